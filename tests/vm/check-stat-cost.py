#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What a stat() of a kernfs file costs, with kernfs_ops->size()
(patches/0006): nothing more for a file without the method (every sysfs
file), and no measurement for a caller who may not read the file.

The cost is counted, not timed: a kprobe on kernfs_get_active() counts
the active references that stat() of every sysfs file takes (none:
the method is looked for in the node's flags, KERNFS_HAS_SIZE), and one
on the mirror's size method counts the measurements that stat() of an
event's files makes for root (one per file) and for a user who can
search the directories but not read the files (none: such a user gets
the size given at creation, 0, as from tracefs).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kprobes import Calls  # noqa: E402
from ktap import Suite  # noqa: E402

MNT = os.environ["KFE_MNT"]
EVENT = os.path.join(MNT, "events", "sched", "sched_switch")
# The files of an event whose size the module measures with
# kfe_event_size() (format and id have a length fixed for the event's
# life and another method).
MEASURED = [n for n in ("enable", "filter", "trigger", "hist", "hist_debug")
            if os.path.exists(os.path.join(EVENT, n))]

s = Suite("kfe_stat_cost")


def sysfs_files():
    out = []
    for d, _, files in os.walk("/sys"):
        out += [os.path.join(d, f) for f in files]
    return out


def lstat_all(paths):
    for p in paths:
        try:
            os.lstat(p)
        except OSError:
            pass    # a file that went away meanwhile


def sysfs_stat_takes_no_active_reference():
    files = sysfs_files()
    lstat_all(files)    # the dentries and inodes are made: only getattr is left
    with Calls("kfe_active", "kernfs_get_active") as active:
        before = active.count()
        lstat_all(files)
        sysfs = active.count() - before
        before = active.count()
        lstat_all([os.path.join(EVENT, n) for n in MEASURED])
        ours = active.count() - before
    note(f"{len(files)} sysfs files: {sysfs} active references; "
         f"{len(MEASURED)} mirror files with size(): {ours}")
    need(len(files) > 1000, f"only {len(files)} sysfs files")
    # The control: the probe counts the references that size() takes.
    need(ours >= len(MEASURED), f"the probe saw {ours} references for "
         f"{len(MEASURED)} stats of files with size()")
    need(sysfs == 0, f"stat() of sysfs files took {sysfs} active references")


STAT = """
import os, sys
print(" ".join(str(os.lstat(p).st_size) for p in sys.argv[1:]))
"""
GID = 1000


def sizes_as(paths, user):
    cmd = ["python3", "-c", STAT] + paths
    if user:
        cmd = ["setpriv", "--reuid=1000", f"--regid={GID}",
               f"--groups={GID}"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True)
    need(r.returncode == 0, r.stderr.strip())
    return [int(n) for n in r.stdout.split()]


def size_only_for_a_caller_who_may_read():
    """gid= gives a group the directories; the files, made 0600, stay
    root's: the group may search and stat them but not read them."""
    paths = [os.path.join(EVENT, n) for n in MEASURED]
    modes = [os.lstat(p).st_mode & 0o7777 for p in paths]
    subprocess.run(["mount", "-o", f"remount,gid={GID},mode=0711", MNT],
                   check=True)
    try:
        for p in paths:
            os.chmod(p, 0o600)
        with Calls("kfe_size", "kfe_event_size") as size:
            before = size.count()
            theirs = sizes_as(paths, user=True)
            by_user = size.count() - before
            before = size.count()
            ours = sizes_as(paths, user=False)
            by_root = size.count() - before
    finally:
        for p, mode in zip(paths, modes):
            os.chmod(p, mode)
        subprocess.run(["mount", "-o", "remount,gid=0,mode=0700", MNT],
                       check=True)
    note(f"{len(paths)} files: {by_user} measurements for a user who "
         f"cannot read them, sizes {theirs}; {by_root} for root, "
         f"sizes {ours}")
    need(by_root >= len(paths), f"root's stats made {by_root} measurements")
    need(by_user == 0, f"a user who cannot read the files made "
         f"{by_user} measurements")
    need(theirs == [0] * len(paths), f"sizes {theirs} for a user who "
         f"cannot read the files, want 0 as from tracefs")


def note(msg):
    print(f"# {msg}", file=sys.stderr, flush=True)


def need(cond, what):
    if not cond:
        raise AssertionError(what)


s.run("sysfs_stat_takes_no_active_reference",
      sysfs_stat_takes_no_active_reference)
s.run("size_only_for_a_caller_who_may_read",
      size_only_for_a_caller_who_may_read)
s.finish()
