#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""uid=, gid= and mode= cost nothing per node, and say who owns what.

A remount with uid= and gid= makes every node of the mirror the
options' (kernfs_root_set_owner()): it must not give each node its
iattrs, about 80 bytes each, as setting an owner node by node does.
This walks two systems of the top events tree (their nodes exist then),
counts the objects of kernfs's iattrs cache, remounts, stats every node
and counts again. A user's chown of one file holds until a remount sets
that part of the owner; directories populated after the remount, and
so created after it, get the options' owner too, also without iattrs.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402

MNT = os.environ["KFE_MNT"]
EVENTS = os.path.join(MNT, "events")
IATTRS = "/sys/kernel/slab/kernfs_iattrs_cache/objects"

s = Suite("kfe_owner_options")


libc = ctypes.CDLL(None, use_errno=True)
MS_REMOUNT = 32


def remount(opts):
    """Remount with OPTS only: mount(8) would add those /proc/mounts
    shows."""
    if libc.mount(b"none", MNT.encode(), None, MS_REMOUNT, opts.encode()):
        raise OSError(ctypes.get_errno(), f"remount {opts}")


def iattrs():
    """Objects in kernfs's iattrs cache (or in the cache it was merged
    with: other users of that cache add a few, not hundreds)."""
    with open(IATTRS) as f:
        return int(f.read().split()[0])


def nodes(top):
    """Every path under TOP, TOP included; walking populates them."""
    found = [top]
    for d, dirs, files in os.walk(top):
        found += [os.path.join(d, n) for n in dirs + files]
    return found


def owners(paths):
    return {(os.lstat(p).st_uid, os.lstat(p).st_gid) for p in paths}


def allocated_by(action, paths):
    """iattrs allocated by ACTION() and a stat of every one of PATHS."""
    before = iattrs()
    action()
    owners(paths)
    return iattrs() - before


walked = nodes(os.path.join(EVENTS, "sched")) + nodes(os.path.join(EVENTS, "signal"))
many = len(walked) // 2
try:
    got = allocated_by(lambda: remount("uid=7,gid=8"), walked)
    s.check("remount_uid_gid_allocates_no_iattrs_per_node", got < many,
            f"{got} iattrs for {len(walked)} nodes")
    s.check_eq("remount_uid_gid_owns_every_node", owners(walked), {(7, 8)})

    got = allocated_by(lambda: remount("mode=0750"), walked)
    s.check("remount_mode_allocates_no_iattrs_per_node", got < many,
            f"{got} iattrs for {len(walked)} nodes")

    later = []
    got = allocated_by(lambda: later.extend(nodes(os.path.join(EVENTS, "timer"))),
                       [])
    s.check("nodes_made_after_remount_get_no_iattrs", got < len(later) // 2,
            f"{got} iattrs for {len(later)} nodes")
    s.check_eq("nodes_made_after_remount_owned_by_options", owners(later),
               {(7, 8)})

    file = os.path.join(EVENTS, "sched", "sched_switch", "format")
    os.chown(file, 1234, 1235)
    remount("gid=9")
    s.check_eq("chown_uid_holds_after_remount_gid",
               owners([file]), {(1234, 9)})
    remount("uid=10")
    s.check_eq("remount_uid_overrides_chown", owners([file]), {(10, 9)})
    s.check_eq("remount_owns_the_rest", owners(walked + later), {(10, 9)})
finally:
    remount("uid=0,gid=0,mode=0700")
s.check_eq("remount_root_owns_every_node_again", owners(walked), {(0, 0)})
s.finish()
