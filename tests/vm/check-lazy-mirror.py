#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Lazy directories in the mirror: a trace instance costs kernfs nodes only
for what someone looked at, each node is made once, and the lazily made
tree is the same as tracefs's, also while events come and go.

Nodes are counted with a kprobe on kernfs_new_node(): the nodes made
between two points are the difference of its hit counts there.
"""
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kprobes import Calls, kprobe  # noqa: E402
from ktap import Suite  # noqa: E402
from tracefs import TRACEFS, settle  # noqa: E402
MNT = os.environ["KFE_MNT"]
PROBE = "kfe_lazy_probe"

s = Suite("kfe_lazy_mirror")
made = []
nodes = Calls("kfe_lazy_nodes", "kernfs_new_node").start()
# The counting probe's system, in the trees mirrored already
settle(lambda: os.path.isdir(os.path.join(MNT, "events", Calls.GROUP)))


def new_instance(name):
    """Create a trace instance; return the number of nodes made so far,
    once its mirror has its directory and events/."""
    os.mkdir(os.path.join(TRACEFS, "instances", name))
    made.append(name)
    if not settle(lambda: os.path.isdir(os.path.join(MNT, "instances", name,
                                                     "events"))):
        raise RuntimeError(f"instance {name} was not mirrored")
    return nodes.count()


def tree(top):
    """{relative path: st_mode} of every node under TOP."""
    out = {}
    for d, _, files in os.walk(top):
        out[os.path.relpath(d, top)] = os.lstat(d).st_mode
        for f in files:
            out[os.path.relpath(os.path.join(d, f), top)] = \
                os.lstat(os.path.join(d, f)).st_mode
    return out


def events_of(name):
    return (os.path.join(MNT, "instances", name, "events"),
            os.path.join(TRACEFS, "instances", name, "events"))


# The smallest system with a few events, so that walks stay short.
tevents = os.path.join(TRACEFS, "events")
sizes = {}
for e in os.scandir(tevents):
    if e.is_dir():
        sizes[e.name] = sum(1 for c in os.scandir(e.path) if c.is_dir())
system = min((n for n in sizes if sizes[n] >= 2), key=lambda n: sizes[n])
print(f"# walking system {system} ({sizes[system]} events)", file=sys.stderr)

# 1. At rest: an instance's mirror is its directory and its events/.
a = new_instance("kfe_lazy_a")
b = new_instance("kfe_lazy_b")
s.check_eq("instance_at_rest_is_two_nodes", b - a, 2)

# 2. A walk of one system makes each node it sees, once, and no other.
ours, theirs = events_of("kfe_lazy_a")
top_level = len(os.listdir(ours))
walked = tree(os.path.join(ours, system))
c = new_instance("kfe_lazy_c")
# events/ of lazy_a (its systems and files), everything below the system
# but the system itself, then lazy_c/events.
s.check_eq("walk_makes_each_node_once", c - b - 1,
           1 + top_level + len(walked) - 1)
s.check_eq("lazy_system_same_as_tracefs", walked,
           tree(os.path.join(theirs, system)))
s.check_eq("lazy_events_dir_same_listing", sorted(os.listdir(ours)),
           sorted(os.listdir(theirs)))

# 3. readdir's d_ino is stat's st_ino, also for nodes made by the readdir.
ours, theirs = events_of("kfe_lazy_b")
bad = [e.name for e in os.scandir(os.path.join(ours, system))
       if e.inode() != os.lstat(e.path).st_ino]
s.check("fresh_readdir_d_ino_is_st_ino", not bad, f"differ: {bad}")

# 4. nlink of a directory never looked into counts its subdirectories.
st = os.lstat(os.path.join(MNT, "instances", "kfe_lazy_c", "events", system))
s.check_eq("unlooked_dir_nlink_counts_subdirs", st.st_nlink, 2 + sizes[system])

# 5. ls -l of events/ and of one system makes the nodes it lists and no
# more: stat() of a directory not looked into counts its subdirectories
# without populating it.
e = new_instance("kfe_lazy_e")
ours, _ = events_of("kfe_lazy_e")
for d in (ours, os.path.join(ours, system)):
    subprocess.run(["ls", "-l", d], check=True, capture_output=True)
f = new_instance("kfe_lazy_f")
# lazy_e's systems and files, then the system's event directories and
# files, then lazy_f/events
s.check_eq("ls_l_makes_only_the_nodes_listed", f - e - 1,
           1 + len(os.listdir(ours)) + len(os.listdir(os.path.join(ours, system))))

# 6. Concurrent first listings of one system all see the whole system.
ours, theirs = events_of("kfe_lazy_c")
want = sorted(os.listdir(os.path.join(theirs, "sched")))
seen = []
go = threading.Barrier(4)


def lister():
    go.wait()
    seen.append(sorted(os.listdir(os.path.join(ours, "sched"))))


threads = [threading.Thread(target=lister) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
s.check("concurrent_first_listings_agree",
        len(seen) == 4 and all(x == want for x in seen),
        f"{[len(x) for x in seen]} entries, want {len(want)}")

# 7. An event added and removed before anyone looked leaves nothing.
d = new_instance("kfe_lazy_d")
ours, theirs = events_of("kfe_lazy_d")
s.check_eq("unseen_probe_created", kprobe(f"p:{PROBE} ksys_sync"), 0)
time.sleep(1)
s.check_eq("unseen_probe_deleted", kprobe(f"-:{PROBE}"), 0)
ok = settle(lambda: sorted(os.listdir(ours)) == sorted(os.listdir(theirs)))
s.check("unseen_event_removed_leaves_nothing",
        ok and not os.path.exists(os.path.join(ours, "kprobes")),
        f"ours {sorted(os.listdir(ours))}")

# 8. An event added to a populated tree appears with its files; removed,
# it goes with its system.
s.check_eq("probe_created", kprobe(f"p:{PROBE} ksys_sync"), 0)
probe_dir = os.path.join(ours, "kprobes", PROBE)
ok = settle(lambda: os.path.isdir(probe_dir))
s.check("added_event_appears_in_populated_tree",
        ok and tree(probe_dir) == tree(os.path.join(theirs, "kprobes", PROBE)))
s.check_eq("probe_deleted", kprobe(f"-:{PROBE}"), 0)
s.check("removed_event_takes_its_system",
        settle(lambda: not os.path.exists(os.path.join(ours, "kprobes"))))

nodes.stop()
for name in made:
    os.rmdir(os.path.join(TRACEFS, "instances", name))
s.check("instances_removed",
        settle(lambda: not any(os.path.exists(os.path.join(MNT, "instances", n))
                               for n in made)))
s.finish()
