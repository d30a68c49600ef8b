#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmark, run inside the VM by tools/bench/run (and, small, by
tests/vm/check-bench): kernfs_events against eventfs and against a
dentry-per-file tree, in one boot, on one event set.

    guest.py [--small] OUT.json

The event set is that of a fresh trace instance: tracing gives it the
same events as the top level, and its eventfs and kernfs_events trees are
created by the mkdir, so their cost is the filesystems' own. The third
design, dentry_per_file, is the same tree of directories and files built
by tools/bench/kfe_dentry_bench.ko in debugfs.

Memory comes from /proc/allocinfo, attributed by call site: a design
owns the lines of its own code (fs/kernfs and kernfs_events, fs/tracefs,
fs/debugfs and the bench module) and the dentries and inodes (fs/dcache.c,
fs/inode.c) that appear while it alone is being walked. Designs are
walked one after the other, with caches dropped in between.

Filter writes are timed last, on kernfs_events and eventfs only, once
every node of both trees has been walked: a write's cost must not grow
with the nodes the mirror holds.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
TOP = os.environ["KFE_TOP"]
BENCH_DEBUGFS = "/sys/kernel/debug/kfe_dentry_bench"
INSTANCE = "kfe_bench"
SMALL = "--small" in sys.argv
OUT = sys.argv[-1]
REPS = 1 if SMALL else 9
SCALES = [50] if SMALL else [1000, 10000]
# Warm stat of one file in a large directory: the median of this many.
STAT_REPS = 3 if SMALL else 21
# What is walked and timed, relative to each design's events/: two
# systems for the small run, which checks the code, not the numbers.
SUBSET = ["sched", "timer"] if SMALL else ["."]
# Filter writes: pairs (set, then clear) per design, timed after the
# whole tree has been walked, relative to each design's events/.
FILTER_PAIRS = 2 if SMALL else 20
SIZE_POLICIES = ("exact", "zero", "eventfs")
FILTERS = {"event": "sched/sched_switch/filter", "system": "sched/filter"}
FILTER_SET = b"common_pid != 1"
FILTER_CLEAR = b"0"

# The call sites of each design's own code. At rest, eventfs is only
# event_inode.c: the rest of tracefs's allocations at mkdir are the
# instance's other files. During a walk of the events tree, tracefs's
# inodes (tracefs_alloc_inode, which embeds the VFS inode) count too.
OWN_SITES = {
    "kernfs_events": re.compile(r"^fs/kernfs/|\[kernfs_events\]"),
    "eventfs": re.compile(r"^fs/tracefs/"),
    "dentry_per_file": re.compile(r"^fs/debugfs/|\[kfe_dentry_bench\]"),
}
IDLE_SITES = dict(OWN_SITES, eventfs=re.compile(r"^fs/tracefs/event_inode\.c"))
VFS_SITES = re.compile(r"^fs/(dcache|inode)\.c:")


def log(msg):
    print(f"# {msg}", file=sys.stderr, flush=True)


def write(path, data):
    with open(path, "w") as f:
        f.write(data)


def drop_caches():
    """Drop dentries and inodes until the VFS's bytes stop changing.

    One drop is not enough for kernfs: a directory's inode becomes
    unused only when the dentries below it are freed, after the inode
    shrinker of that pass has run. Waiting for the bytes to settle also
    lets the RCU-delayed frees finish, so that they are not counted in
    the next design's walk."""
    os.sync()
    last = None
    for _ in range(60):
        write("/proc/sys/vm/drop_caches", "3")
        time.sleep(0.5)
        now = bytes_of(allocinfo(), VFS_SITES)
        if now == last:
            return
        last = now
    log("drop_caches: the VFS's bytes did not settle in 60 drops")


def profiling():
    """Whether allocations are counted. The debug flavour boots with the
    counting off (tools/vm-run), and it stays off: turning it on or off
    at run time leaves counters that the fault injection and the module
    unloads of later checks turn into WARNs. There every byte count is
    zero, and tests/vm/check-bench checks only the form."""
    with open("/proc/sys/vm/mem_profiling") as f:
        return f.read().strip() == "1"


def allocinfo():
    """{call site: bytes} from /proc/allocinfo."""
    sites = {}
    with open("/proc/allocinfo") as f:
        for line in f:
            fields = line.split()
            if len(fields) < 3 or not fields[0].isdigit():
                continue
            site = " ".join(fields[2:])
            sites[site] = sites.get(site, 0) + int(fields[0])
    return sites


def bytes_of(snap, pattern):
    return sum(v for k, v in snap.items() if pattern.search(k))


def by_site(after, before, pattern):
    """The call sites matching PATTERN whose bytes changed, with the change."""
    out = {}
    for site in set(after) | set(before):
        if pattern.search(site):
            d = after.get(site, 0) - before.get(site, 0)
            if d:
                out[site] = d
    return dict(sorted(out.items(), key=lambda kv: -abs(kv[1]))[:12])


def slab(name):
    """Bytes in use in the slab cache NAME, from /proc/slabinfo."""
    with open("/proc/slabinfo") as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == name:
                return int(fields[1]) * int(fields[3])
    return 0


def settle(cond, timeout=300):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


# The timed operations run in each design's events directory, on paths
# relative to it, as a user who has done "cd /sys/kernel/tracing" would:
# the guest's root is 9p, whose d_revalidate sends every absolute path
# walk to ref-walk at its first component, for every design alike, where
# a real root file system keeps the walk in RCU mode.
SUBSET_ARGS = " ".join(SUBSET)


def nodes(top, files_only=False):
    """The paths under TOP of the SUBSET, relative to TOP, which is the
    working directory while they are yielded."""
    os.chdir(top)
    try:
        for rel in SUBSET:
            for d, dirs, files in os.walk(rel):
                for name in files if files_only else dirs + files:
                    yield os.path.join(d, name)
    finally:
        os.chdir("/")


def walk(top):
    """stat every node under TOP, as find -exec stat does; the node count."""
    n = 0
    for path in nodes(top):
        os.lstat(path)
        n += 1
    return n


def read_all(top):
    """Read every file under TOP to its end, as cat does; the file count.
    tar reads only st_size bytes of each file, so on eventfs, whose files
    all report size 0, it reads none: this is the reading tar leaves out
    there, done by both designs."""
    n = 0
    for path in nodes(top, files_only=True):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:	# write-only, such as inject
            continue
        try:
            while os.read(fd, 65536):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        n += 1
    return n


def sh(cmd):
    subprocess.run(cmd, shell=True, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


# GNU tar does not read files when the archive is /dev/null: a pipe
# makes it read what it archives.
OPS = {
    "find": lambda t: sh(f"cd {t} && find {SUBSET_ARGS} > /dev/null"),
    "ls_lR": lambda t: sh(f"cd {t} && ls -lR {SUBSET_ARGS} > /dev/null"),
    "stat_all": walk,
    "read_all": read_all,
    "tar": lambda t: sh(f"tar -cf - -C {t} {SUBSET_ARGS} | cat > /dev/null"),
}


def timed(fn, arg):
    t0 = time.perf_counter()
    fn(arg)
    return time.perf_counter() - t0


def summary(samples):
    return {"median": statistics.median(samples), "min": min(samples),
            "max": max(samples), "runs": len(samples)}


def time_ops(trees):
    """Cold and warm times of each operation in each of TREES ({design:
    events dir}). The designs take turns, in alternating order, so that
    a slower stretch of the host falls on all of them."""
    samples = {name: {op: {"cold": [], "warm": []} for op in OPS}
               for name in trees}
    for op, fn in OPS.items():
        for i in range(REPS):
            for name in turn(trees, i):
                drop_caches()
                samples[name][op]["cold"].append(timed(fn, trees[name]))
        for i in range(REPS):
            for name in turn(trees, i):
                samples[name][op]["warm"].append(timed(fn, trees[name]))
    return {name: {op: {kind: summary(v) for kind, v in t.items()}
                   for op, t in ops.items()}
            for name, ops in samples.items()}


def turn(trees, i):
    """The designs of TREES in the order of turn I."""
    order = list(trees)
    return order if i % 2 == 0 else order[::-1]


def write_filter(path, data):
    """One write(2) on a fresh fd, as `echo ... > filter` does."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def filter_pair(path):
    """Set a filter, then clear it: open, write and close each time."""
    t0 = time.perf_counter()
    write_filter(path, FILTER_SET)
    write_filter(path, FILTER_CLEAR)
    return time.perf_counter() - t0


def time_filters(trees):
    """The median of FILTER_PAIRS filter write pairs to one event's and
    to one system's filter, in each of TREES ({design: events dir}).
    Every tree is walked first, so that every directory of the mirror
    is populated; the designs take turns, in alternating order, so that
    a slower stretch of the host falls on both."""
    for top in trees.values():
        walk(top)
    samples = {name: {k: [] for k in FILTERS} for name in trees}
    for i in range(FILTER_PAIRS):
        for name in turn(trees, i):
            for k, rel in FILTERS.items():
                path = os.path.join(trees[name], rel)
                samples[name][k].append(filter_pair(path))
    return {name: {k: summary(v) for k, v in s.items()}
            for name, s in samples.items()}


def time_size_policies(ours, theirs):
    """Warm stat of every node of the mirror under each size policy
    against eventfs's, the three taking turns, REPS times: what exact
    sizes cost beyond kernfs's own stat, which size=zero (eventfs's
    answer, rendering nothing) leaves."""
    trees = {k: theirs if k == "eventfs" else ours for k in SIZE_POLICIES}
    samples = {k: [] for k in trees}
    for i in range(REPS):
        for k in turn(trees, i):
            if k != "eventfs":
                sh(f"mount -o remount,size={k} {MNT}")
            walk(trees[k])	# the policy's first stat of each node
            samples[k].append(timed(walk, trees[k]))
    sh(f"mount -o remount,size=exact {MNT}")
    out = {k: summary(v) for k, v in samples.items()}
    for s in out.values():
        s["ratio_to_eventfs"] = s["median"] / out["eventfs"]["median"]
    return out


def tree_shape(top):
    """The paths of every file under TOP, relative to it."""
    paths = []
    for d, _, files in os.walk(top):
        rel = os.path.relpath(d, top)
        paths += [os.path.join(rel, f) for f in files if rel != "."]
    return sorted(paths)


def press_memory():
    """Fill all but 64 MB of the memory available, as a workload would,
    then free it: what reclaim gives back then is what pressure, not
    drop_caches, takes (on the 2 GB guest, page cache, not the walked
    trees). Return the megabytes filled."""
    with open("/proc/meminfo") as f:
        avail = next(int(line.split()[1]) for line in f
                     if line.startswith("MemAvailable:")) // 1024
    fill = 64 if SMALL else max(avail - 64, 0)    # --small checks the code
    # Filled, not only allocated: untouched pages would cost nothing.
    chunks = [b"\1" * (16 << 20) for _ in range(min(fill, avail) // 16)]
    filled = 16 * len(chunks)
    del chunks
    time.sleep(1)
    return filled


def remounted_bytes(design, mount, owner, idle):
    """DESIGN's bytes at rest after a remount of MOUNT with OWNER's
    uid= and gid= (then the root's again), from IDLE."""
    own = IDLE_SITES[design]
    before = allocinfo()
    sh(f"mount -o remount,uid={owner},gid={owner} {mount}")
    after = allocinfo()
    sh(f"mount -o remount,uid=0,gid=0 {mount}")
    return idle + bytes_of(after, own) - bytes_of(before, own)


def measure_walks(design, top, idle, res):
    """Walk, tar, then drop caches; record the bytes of DESIGN at each
    state: IDLE, its bytes at rest, plus what its own code and the VFS
    allocated since the caches were dropped before the walk. The first
    walk is timed: for kernfs_events it builds the lazy directories."""
    own = OWN_SITES[design]
    drop_caches()
    before = allocinfo()
    res["first_walk_s"] = timed(walk, top)
    walked = allocinfo()
    OPS["tar"](top)
    tarred = allocinfo()
    res["pressed_mb"] = press_memory()
    pressed = allocinfo()
    drop_caches()
    dropped = allocinfo()

    def total(snap):
        return idle + bytes_of(snap, own) - bytes_of(before, own) + \
            bytes_of(snap, VFS_SITES) - bytes_of(before, VFS_SITES)
    res["bytes_idle"] = idle
    res["bytes_walked"] = total(walked)
    res["bytes_tarred"] = total(tarred)
    res["bytes_pressed"] = total(pressed)
    res["bytes_dropped"] = total(dropped)
    res["sites_walked"] = by_site(walked, before, own)
    res["vfs_walked"] = by_site(walked, before, VFS_SITES)


def main():
    results = {"kernel": os.uname().release, "small": SMALL, "designs": {},
               "allocation_profiling": profiling()}
    tinst = os.path.join(TRACEFS, "instances", INSTANCE)
    ours = os.path.join(MNT, "instances", INSTANCE, "events")
    theirs = os.path.join(tinst, "events")
    dentry = os.path.join(BENCH_DEBUGFS, "events")

    # 1. A fresh instance: eventfs and kernfs_events at rest.
    drop_caches()
    base = allocinfo()
    slab0 = slab("kernfs_node_cache")
    os.mkdir(tinst)
    # Listing the instance's directory does not look into events/, which
    # stat (nlink) or a lookup in it would populate.
    top = os.path.dirname(ours)
    if not settle(lambda: os.path.exists(top) and
                  "events" in os.listdir(top)):
        raise SystemExit("the instance was not mirrored")
    time.sleep(1)		# let the mirror's worker finish
    idle = allocinfo()
    slab_idle = slab("kernfs_node_cache")

    paths = tree_shape(theirs)
    events = len({os.path.dirname(p) for p in paths if p.count("/") == 2})
    results["events"] = events
    results["systems"] = len({p.split("/")[0] for p in paths})
    results["files"] = len(paths)
    log(f"{events} events, {results['systems']} systems, {len(paths)} files")

    designs = results["designs"]
    for name, top in (("kernfs_events", ours), ("eventfs", theirs)):
        designs[name] = {"tree": top}
        at_rest = bytes_of(idle, IDLE_SITES[name]) - \
            bytes_of(base, IDLE_SITES[name])
        designs[name]["sites_idle"] = by_site(idle, base, IDLE_SITES[name])
        designs[name]["bytes_remounted"] = remounted_bytes(
            name, MNT if name == "kernfs_events" else TRACEFS, 1000, at_rest)
        measure_walks(name, top, at_rest, designs[name])
    designs["kernfs_events"]["slab_kernfs_node_idle"] = slab_idle - slab0
    designs["kernfs_events"]["slab_kernfs_node_walked"] = \
        slab("kernfs_node_cache") - slab0

    # 2. The same tree, one dentry and inode per node, in debugfs.
    drop_caches()
    base_d = allocinfo()
    sh(f"insmod {TOP}/tools/bench/kfe_dentry_bench.ko")
    t0 = time.perf_counter()
    write(os.path.join(BENCH_DEBUGFS, "build"), "\n".join(paths) + "\n")
    build_s = time.perf_counter() - t0
    idle_d = allocinfo()
    designs["dentry_per_file"] = {"tree": dentry, "build_s": build_s}
    # debugfs pins a dentry and an inode per node from creation.
    sites = re.compile(OWN_SITES["dentry_per_file"].pattern + "|" +
                       VFS_SITES.pattern)
    designs["dentry_per_file"]["sites_idle"] = by_site(idle_d, base_d, sites)
    at_rest = bytes_of(idle_d, sites) - bytes_of(base_d, sites)
    designs["dentry_per_file"]["bytes_remounted"] = remounted_bytes(
        "dentry_per_file", "/sys/kernel/debug", 1000, at_rest)
    measure_walks("dentry_per_file", dentry, at_rest,
                  designs["dentry_per_file"])

    # 3. Times, cold and warm, the designs' trees taking turns.
    log("timing the walks")
    timings = time_ops({name: d["tree"] for name, d in designs.items()})
    for name, d in designs.items():
        d["timings"] = timings[name]
    log("timing filter writes")
    writes = time_filters({name: designs[name]["tree"]
                           for name in ("kernfs_events", "eventfs")})
    for name, w in writes.items():
        designs[name]["filter_writes"] = w
    log("timing stat under each size policy")
    results["size_policies"] = time_size_policies(
        designs["kernfs_events"]["tree"], designs["eventfs"]["tree"])
    sh("rmmod kfe_dentry_bench")
    os.rmdir(tinst)

    for d in designs.values():
        for state in ("idle", "remounted", "walked", "tarred", "pressed",
                      "dropped"):
            d[f"bytes_per_event_{state}"] = d[f"bytes_{state}"] / events
        for op, t in d["timings"].items():
            for kind in ("cold", "warm"):
                ref = designs["eventfs"]["timings"][op][kind]["median"]
                t[kind]["ratio_to_eventfs"] = t[kind]["median"] / ref
        for k, w in d.get("filter_writes", {}).items():
            ref = designs["eventfs"]["filter_writes"][k]["median"]
            w["ratio_to_eventfs"] = w["median"] / ref

    results["scale"] = [scale(n) for n in SCALES]
    results["module_load"] = module_load()
    with open(OUT, "w") as f:
        json.dump(results, f, indent=1)


def scale(n):
    """N kprobe events in one system: listing and stat, both trees."""
    log(f"scale: {n} kprobe events")
    kp = os.path.join(TRACEFS, "kprobe_events")
    lines = [f"p:kfe_scale/e{i} ksys_sync\n" for i in range(n)]
    t0 = time.perf_counter()
    fd = os.open(kp, os.O_WRONLY | os.O_APPEND)
    for i in range(0, n, 1000):
        os.write(fd, "".join(lines[i:i + 1000]).encode())
    os.close(fd)
    create_s = time.perf_counter() - t0
    ours = os.path.join(MNT, "events", "kfe_scale")
    theirs = os.path.join(TRACEFS, "events", "kfe_scale")
    ok = settle(lambda: os.path.isdir(ours) and len(os.listdir(ours)) >= n + 2)
    mirror_s = time.perf_counter() - t0 - create_s
    out = {"events": n, "create_s": create_s, "mirror_s": mirror_s,
           "mirrored": ok}
    mid = f"e{n // 2}/enable"
    trees = {"kernfs_events": ours, "eventfs": theirs}
    # In the directory, on relative paths, as the walks above.
    for name, top in trees.items():
        os.chdir(top)
        try:
            drop_caches()
            out[f"{name}_list_cold_s"] = timed(os.listdir, ".")
            out[f"{name}_list_warm_s"] = timed(os.listdir, ".")
            drop_caches()
            out[f"{name}_stat_cold_s"] = timed(os.lstat, mid)
        finally:
            os.chdir("/")
    # Warm stats of a few microseconds: the trees take turns at each, so
    # that a slower stretch of the host falls on both.
    fds = {name: os.open(top, os.O_RDONLY | os.O_DIRECTORY)
           for name, top in trees.items()}
    samples = {name: [] for name in trees}
    try:
        for i in range(STAT_REPS):
            for name in turn(trees, i):
                samples[name].append(timed(
                    lambda p: os.lstat(p, dir_fd=fds[name]), mid))
    finally:
        for fd in fds.values():
            os.close(fd)
    for name, v in samples.items():
        out[f"{name}_stat_warm_s"] = statistics.median(v)
    # Clearing them all at once is one write, as `> kprobe_events` is.
    fd = os.open(kp, os.O_WRONLY | os.O_TRUNC)
    os.close(fd)
    settle(lambda: not os.path.exists(ours))
    return out


def module_load():
    """Unload, then time insmod, mount and a listing of every system."""
    sh(f"umount {MNT}")
    sh("rmmod kernfs_events")
    t0 = time.perf_counter()
    sh(f"insmod {TOP}/kernfs_events.ko")
    insmod_s = time.perf_counter() - t0
    sh(f"mount -t kernfs_events kernfs_events {MNT}")
    want = len(os.listdir(os.path.join(TRACEFS, "events")))
    events = os.path.join(MNT, "events")
    settle(lambda: os.path.isdir(events) and
           len(os.listdir(events)) >= want, 60)
    return {"insmod_s": insmod_s, "mirrored_s": time.perf_counter() - t0}


if __name__ == "__main__":
    main()
