#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Memory reclaim gives back the mirror's nodes that nobody uses, and a
path keeps its inode number across it.

The module's shrinker depopulates, from the bottom up, the lazy
directories whose nodes have no inode, reference or active reference
(kernfs_depopulate(), patches/0013); the next access populates them
again. Each directory was given a block of inode numbers, which its
files share (patches/0012), so the nodes made again have the numbers
they had. drop_caches frees the dentries and inodes, then runs the
shrinkers until they free almost nothing.

Nodes are counted with a kprobe on kernfs_new_node(): a walk after
reclaim makes again exactly the nodes the first walk made. Reclaim is
raced with lookups, reads and listings, with instances and events made
and removed through tracefs, and with remounts; each race counts the
operations that ran beside the drops, and the console must stay clean.
drop_caches runs the shrinker outside lockdep's fs_reclaim map; the
KUnit case kfe_dir_test_lazy_reclaimed_with_numbers_kept runs the
reclaim inside it.
"""
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kprobes import Calls, kprobe  # noqa: E402
from ktap import Suite  # noqa: E402
from tracefs import TRACEFS, content, settle, write  # noqa: E402

MNT = os.environ["KFE_MNT"]
INST = "kfe_reclaim"
TMP = "kfe_reclaim_tmp"
PROBE = "kfe_reclaim_probe"
RACE_SECONDS = 6

s = Suite("kfe_reclaim")


def drop():
    """Free unused dentries and inodes; the shrinkers run until done."""
    write("/proc/sys/vm/drop_caches", "2")


def walk(top):
    """{path relative to TOP: st_ino} of every node below TOP, and the
    entries whose readdir d_ino is not their st_ino."""
    inos, bad = {}, []
    todo = [top]
    while todo:
        d = todo.pop()
        for e in os.scandir(d):
            st = os.lstat(e.path)
            inos[os.path.relpath(e.path, top)] = st.st_ino
            if e.inode() != st.st_ino:
                bad.append(e.path)
            if e.is_dir(follow_symlinks=False):
                todo.append(e.path)
    return inos, bad


def mirror_instance(name):
    os.mkdir(os.path.join(TRACEFS, "instances", name))
    events = os.path.join(MNT, "instances", name, "events")
    if not settle(lambda: os.path.isdir(events)):
        raise RuntimeError(f"instance {name} was not mirrored")
    return events


def race(name, seconds, actors, top):
    """Run ACTORS (functions of a stop event and a Counter, which count
    what they did) beside random lookups, reads and listings of TOP and
    drop_caches, for SECONDS. Returns the counts and the errors."""
    paths = [os.path.join(top, p) for p in walk(top)[0]]
    counts, errors = Counter(), []
    stop = threading.Event()

    def use(kind):
        rnd = random.Random(kind)
        while not stop.is_set():
            p = rnd.choice(paths)
            try:
                if kind == "stat":
                    os.lstat(p)
                elif os.path.isdir(p):
                    os.listdir(p)
                else:
                    content(p)
                counts[kind] += 1
            except OSError as e:
                errors.append(f"{kind} {p}: {e}")

    def dropper(stop, counts):
        while not stop.is_set():
            drop()
            counts["drop_caches"] += 1

    threads = [threading.Thread(target=use, args=(k,)) for k in ("stat", "read")]
    threads += [threading.Thread(target=a, args=(stop, counts))
                for a in (dropper,) + tuple(actors)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    print(f"# {name}: {dict(counts)}, {len(errors)} errors", file=sys.stderr)
    return counts, errors


with Calls("kfe_reclaim_nodes", "kernfs_new_node") as nodes:
    settle(lambda: os.path.isdir(os.path.join(MNT, "events", Calls.GROUP)))
    top = mirror_instance(INST)
    # Once the worker has mirrored every event, reclaim gives back what
    # the first walk made: the two walks below both start from nothing.
    walk(top)
    time.sleep(1)
    drop()

    # 1. Reclaim gives back every node a walk made, and the walk after it
    # makes them again with the numbers they had.
    before = nodes.count()
    first, bad_first = walk(top)
    made = nodes.count() - before
    drop()
    before = nodes.count()
    second, bad_second = walk(top)
    remade = nodes.count() - before
    changed = sorted(p for p in first if second.get(p) != first[p])
    print(f"# {len(first)} paths: the walk made {made} nodes, the walk after "
          f"reclaim {remade}; {len(changed)} inode numbers changed", file=sys.stderr)
    s.check("reclaim_gives_back_every_walked_node",
            made == remade == len(first) > 100,
            f"walks after reclaim made {made} and {remade} nodes for "
            f"{len(first)} paths")
    s.check("inode_numbers_kept_across_reclaim",
            not changed and first.keys() == second.keys(),
            f"{len(changed)} of {len(first)} changed: {changed[:5]}")
    s.check("d_ino_is_st_ino_across_reclaim", not bad_first and not bad_second,
            f"{(bad_first + bad_second)[:5]}")
    everything, _ = walk(MNT)
    s.check("inode_numbers_unique_in_the_mirror",
            len(set(everything.values())) == len(everything),
            f"{len(everything) - len(set(everything.values()))} shared")

    # 2. An open file keeps its directory and those above it, and reads
    # on; the rest is given back.
    fmt = next(p for p in sorted(first) if p.endswith("/format"))
    fd = os.open(os.path.join(top, fmt), os.O_RDONLY)
    try:
        data = os.read(fd, 1 << 20)
        drop()
        before = nodes.count()
        walk(top)
        kept = made - (nodes.count() - before)
        again = os.pread(fd, 1 << 20, 0)
        s.check("open_file_keeps_its_nodes",
                0 < kept < made and again == data and
                os.fstat(fd).st_ino == first[fmt],
                f"kept {kept} of {made} nodes; content equal: {again == data}")
    finally:
        os.close(fd)

    # 3. Reclaim beside lookups, reads and listings: nothing is missed.
    before = nodes.count()
    counts, errors = race("lookups", RACE_SECONDS, (), top)
    repopulated = nodes.count() - before
    s.check("reclaim_races_lookups_reads",
            not errors and counts["drop_caches"] > 0 and counts["stat"] > 0 and
            counts["read"] > 0 and repopulated > 0,
            f"{errors[:5]}; {dict(counts)}; {repopulated} nodes made again")

    # 4. Reclaim beside an instance and an event made and removed in
    # tracefs, and walks of the instance that comes and goes.
    def instances(stop, counts):
        path = os.path.join(TRACEFS, "instances", TMP)
        while not stop.is_set():
            os.mkdir(path)
            tmp = os.path.join(MNT, "instances", TMP, "events")
            settle(lambda: os.path.isdir(tmp), timeout=5)
            try:
                walk(tmp)
            except FileNotFoundError:
                pass
            os.rmdir(path)
            counts["instance"] += 1

    def probes(stop, counts):
        while not stop.is_set():
            if kprobe(f"p:{PROBE} ksys_sync") == 0:
                time.sleep(0.05)
                kprobe(f"-:{PROBE}")
                counts["kprobe"] += 1

    counts, errors = race("removals", RACE_SECONDS, (instances, probes), top)
    ok = settle(lambda: not os.path.exists(os.path.join(MNT, "instances", TMP)) and
                not os.path.exists(os.path.join(top, "kprobes", PROBE)))
    s.check("reclaim_races_instance_and_event_removal",
            ok and not errors and counts["instance"] > 0 and
            counts["kprobe"] > 0 and counts["drop_caches"] > 0,
            f"{errors[:5]}; {dict(counts)}; mirror followed: {ok}")

    # 5. Reclaim beside remounts that change the owner of every node.
    def remounts(stop, counts):
        while not stop.is_set():
            for uid in ("1000", "0"):
                subprocess.run(["mount", "-o", f"remount,uid={uid}", MNT],
                               check=True)
            counts["remount"] += 2

    counts, errors = race("remounts", RACE_SECONDS, (remounts,), top)
    owners = {os.lstat(os.path.join(top, p)).st_uid for p in list(first)[:50]}
    s.check("reclaim_races_remount",
            not errors and counts["remount"] > 0 and counts["drop_caches"] > 0 and
            owners == {0},
            f"{errors[:5]}; {dict(counts)}; owners {owners}")

    # 6. After all that, every path still has its first number.
    drop()
    last, _ = walk(top)
    changed = sorted(p for p in first if last.get(p) != first[p])
    s.check("inode_numbers_kept_after_races", not changed,
            f"{len(changed)} changed: {changed[:5]}")

os.rmdir(os.path.join(TRACEFS, "instances", INST))
s.check("instance_removed",
        settle(lambda: not os.path.exists(os.path.join(MNT, "instances", INST))))
s.finish()
