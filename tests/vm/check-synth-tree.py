#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A synthetic event tree seen by the tools that walk filesystems: find,
tar, stat and getdents. Loads kfe_synth with a few thousand events, checks
inode numbers, link counts and the three size policies, adds and removes
events at run time, and leaves kernfs_events mounted at $KFE_MNT with
kfe_synth unloaded, as it found it."""
import errno
import os
import subprocess
import sys
import tempfile

top = os.environ["KFE_TOP"]
sys.path.insert(0, os.path.join(top, "tests/lib"))
from ktap import Suite  # noqa: E402

MNT = os.environ["KFE_MNT"]
SYNTH = os.path.join(MNT, "synth")
NR_SYSTEMS, NR_EVENTS = 4, 30  # TCG and KASAN: ~30 ms per node walked
EVENT_FILES = ["enable", "filter", "format", "id"]
WRITE_ONLY = ("inject",)


def sh(*cmd, check=True):
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


def load_synth(**params):
    sh("insmod", os.path.join(top, "kfe_synth.ko"),
       *[f"{k}={v}" for k, v in params.items()])


def unload_synth():
    sh("rmmod", "kfe_synth", check=False)


def remount(opts):
    sh("mount", "-o", f"remount,{opts}", MNT)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    """Write DATA in one write(); return 0 or the errno."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def walk(root):
    """Every path below ROOT, ROOT included, as (path, is_dir)."""
    out = [(root, True)]
    for d, dirs, files in os.walk(root):
        out += [(os.path.join(d, n), True) for n in dirs]
        out += [(os.path.join(d, n), False) for n in files]
    return out


s = Suite("kfe_synth_tree")
unload_synth()
load_synth(nr_systems=NR_SYSTEMS, nr_events=NR_EVENTS)
nodes = walk(SYNTH)
n_dirs = 1 + NR_SYSTEMS * (1 + NR_EVENTS)
n_files = 1 + NR_SYSTEMS * NR_EVENTS * len(EVENT_FILES)
s.check_eq("tree_has_every_node", len(nodes), n_dirs + n_files)

r = sh("find", MNT, check=False)
s.check("find_visits_every_node_silently",
        r.returncode == 0 and not r.stderr and
        len(r.stdout.splitlines()) == len(walk(MNT)),
        f"rc {r.returncode}, stderr {r.stderr[:500]!r}")

stats = {p: os.lstat(p) for p, _ in walk(MNT)}
inos = [st.st_ino for st in stats.values()]
s.check_eq("inode_numbers_unique", len(set(inos)), len(inos))


def d_ino_mismatches():
    bad = []
    for d, is_dir in walk(MNT):
        if not is_dir:
            continue
        for e in os.scandir(d):
            if e.inode() != stats[e.path].st_ino:
                bad.append(f"{e.path}: d_ino {e.inode()} st_ino {stats[e.path].st_ino}")
    return bad


bad = d_ino_mismatches()
s.check("d_ino_equals_st_ino", not bad, "\n".join(bad[:10]))

bad = [p for p, is_dir in nodes if is_dir and stats[p].st_nlink !=
       2 + sum(1 for e in os.scandir(p) if e.is_dir(follow_symlinks=False))]
s.check("dir_nlink_is_two_plus_subdirs", not bad, "\n".join(bad[:10]))


def read_or_none(path):
    """The content, or None for a file that cannot be read: root opens a
    write-only file (inject), and kernfs fails the read of a file without
    a read method with EINVAL."""
    try:
        return read(path)
    except OSError as e:
        if e.errno != errno.EINVAL:
            raise
        return None


def size_mismatches(want):
    """Files whose st_size is not WANT(path, content)."""
    bad = []
    for p, is_dir in walk(SYNTH):
        if is_dir:
            continue
        size, data = os.stat(p).st_size, read_or_none(p)
        if data is None and os.path.basename(p) not in WRITE_ONLY:
            bad.append(f"{p}: cannot be read")
        if size != want(p, data):
            bad.append(f"{p}: size {size}, content {len(data)} bytes")
    return bad


bad = size_mismatches(lambda p, data: len(data))
s.check("exact_size_is_content_length", not bad, "\n".join(bad[:10]))


def tar_round_trip():
    with tempfile.TemporaryDirectory() as tmp:
        tarball = os.path.join(tmp, "synth.tar")
        r = sh("tar", "-cf", tarball, "-C", MNT, "synth", check=False)
        assert r.returncode == 0 and not r.stderr, (r.returncode, r.stderr[:500])
        out = os.path.join(tmp, "x")
        os.mkdir(out)
        sh("tar", "-xf", tarball, "-C", out)
        diff = [p for p, is_dir in nodes if not is_dir and
                read(os.path.join(out, os.path.relpath(p, MNT))) != read(p)]
        assert not diff, diff[:10]


s.run("tar_round_trip_exact", tar_round_trip)

ev = os.path.join(SYNTH, "sys3", "event7")


def write_updates_size():
    new = b"common_pid > 1000 && common_type != 7"
    assert write(f"{ev}/filter", new + b"\n") == 0
    assert read(f"{ev}/filter") == new + b"\n"
    assert os.stat(f"{ev}/filter").st_size == len(new) + 1
    assert write(f"{ev}/filter", b"0") == 0
    assert os.stat(f"{ev}/filter").st_size == len(b"none\n")
    assert write(f"{ev}/enable", b"1") == 0
    assert read(f"{ev}/enable") == b"1\n" and os.stat(f"{ev}/enable").st_size == 2


s.run("write_updates_exact_size", write_updates_size)


def bad_input_rejected():
    for f, data in [("enable", b"2"), ("enable", b"yes"), ("filter", b"a\x01b"),
                    ("filter", b"   "), ("filter", b"x" * 300)]:
        before, size = read(f"{ev}/{f}"), os.stat(f"{ev}/{f}").st_size
        err = write(f"{ev}/{f}", data)
        assert err in (errno.EINVAL, errno.E2BIG), (f, data, err)
        assert read(f"{ev}/{f}") == before and os.stat(f"{ev}/{f}").st_size == size, f


s.run("bad_write_einval_changes_nothing", bad_input_rejected)


def runtime_add_remove():
    ctl = os.path.join(SYNTH, "control")
    assert write(ctl, b"add rtsys rtevent") == 0
    assert sorted(os.listdir(f"{SYNTH}/rtsys/rtevent")) == sorted(EVENT_FILES)
    counts = read(ctl)
    assert counts == f"systems {NR_SYSTEMS + 1}\nevents {NR_SYSTEMS * NR_EVENTS + 1}\n".encode(), counts
    assert os.stat(ctl).st_size == len(counts)
    assert write(ctl, b"add rtsys rtevent") == errno.EEXIST
    assert write(ctl, b"frobnicate rtsys") == errno.EINVAL
    assert write(ctl, b"add rt/sys x") == errno.EINVAL
    fd = os.open(f"{SYNTH}/rtsys/rtevent/format", os.O_RDONLY)
    try:
        assert write(ctl, b"remove rtsys rtevent") == 0
        assert not os.path.exists(f"{SYNTH}/rtsys/rtevent")
        try:
            os.read(fd, 100)
            raise AssertionError("read of a removed file succeeded")
        except OSError as e:
            assert e.errno == errno.ENODEV, e
    finally:
        os.close(fd)
    assert write(ctl, b"remove rtsys") == 0 and not os.path.exists(f"{SYNTH}/rtsys")
    assert write(ctl, b"remove rtsys") == errno.ENOENT


s.run("add_and_remove_events_at_run_time", runtime_add_remove)


def inos_stable():
    before = {p: os.lstat(p).st_ino for p, _ in nodes}
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("2")
    assert {p: os.lstat(p).st_ino for p, _ in nodes} == before
    sh("umount", MNT)
    sh("mount", "-t", "kernfs_events", "kernfs_events", MNT)
    assert {p: os.lstat(p).st_ino for p, _ in nodes} == before


s.run("inode_numbers_stable_across_reclaim_and_remount", inos_stable)

# The policies, on a tree with a file that changes without being written
# (hist counts the writes to inject) and a write-only one.
unload_synth()
load_synth(nr_systems=2, nr_events=3, files="enable,format,hist,inject")
PAGE = os.sysconf("SC_PAGE_SIZE")


def kfe_mount_options():
    for line in read("/proc/mounts").decode().splitlines():
        dev, mnt, fstype, opts = line.split()[:4]
        if mnt == MNT and fstype == "kernfs_events":
            return opts.split(",")
    return []


def policy_sizes(opt, want):
    """Under size=OPT every file's st_size is WANT(path, content)."""
    remount(f"size={opt}")
    try:
        bad = size_mismatches(want)
        shown = kfe_mount_options()
    finally:
        remount("size=exact")
    assert not bad, "\n".join(bad[:10])
    assert (f"size={opt}" in shown) == (opt != "exact"), shown


def exact(p, data):
    return 0 if os.path.basename(p) in WRITE_ONLY else len(data)


def hist_follows_inject():
    """hist grows with writes to inject, which never tell it: each stat
    still reports what a read then returns."""
    hists = [p for p, is_dir in walk(SYNTH)
             if not is_dir and os.path.basename(p) == "hist"]
    assert hists
    grown = 0
    for n, p in enumerate(hists):
        before = os.stat(p).st_size
        inject = os.path.join(os.path.dirname(p), "inject")
        for _ in range(10 ** (n % 3 + 1)):
            with open(inject, "w") as f:
                f.write("1")
        size, data = os.stat(p).st_size, read(p)
        assert size == len(data), f"{p}: size {size}, content {len(data)}"
        grown += size > before
    print(f"# {grown} of {len(hists)} hist files grew", file=sys.stderr)
    assert grown == len(hists)


s.run("size_exact_follows_content_changed_elsewhere", hist_follows_inject)
s.run("size_exact_is_length_write_only_zero", policy_sizes, "exact", exact)
s.run("size_page_policy", policy_sizes, "page",
      lambda p, data: 0 if os.path.basename(p) in WRITE_ONLY else PAGE)
s.run("size_zero_policy", policy_sizes, "zero", lambda p, data: 0)

unload_synth()
s.check("synth_unloads_and_mount_stays",
        not os.path.exists(SYNTH) and os.path.ismount(MNT))
s.finish()
