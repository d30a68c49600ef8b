#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The mirror under kernel lockdown, compared with tracefs.

Run by tools/check in a boot of its own, since lockdown cannot be lifted
and forbids the debugfs writes that the other checks need. It raises
lockdown to confidentiality through securityfs, as a system does once
it has booted: booted with lockdown=confidentiality, the kernel never
sets tracing up ("Tracing disabled due to lockdown"), and tracefs and
the mirror are both empty. Then tracefs refuses to open every file of
the events tree but an event's format and id (LOCKDOWN_TRACEFS), and so
must the mirror: for
every file of the top events directory, of one system and of one event,
opening it for reading and for writing as its mode allows, reading it,
writing it and its size at stat must give in the mirror what they give
in tracefs (where
the mirror's size is exact, tracefs reports 0: then the size must be
that of what a read returns), and the content of what both let read
must be the same.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
DIRS = ["events", "events/sched", "events/sched/sched_switch"]

s = Suite("kfe_lockdown")


def attempt(path, mode):
    """What each operation on PATH that MODE grants gives: an errno (0
    for success), and the bytes read if reading worked."""
    out = {}
    for how, flags, bit in (("open_read", os.O_RDONLY, 0o444),
                            ("open_write", os.O_WRONLY, 0o222)):
        if not mode & bit:
            continue
        try:
            fd = os.open(path, flags)
        except OSError as e:
            out[how] = e.errno
            continue
        out[how] = 0
        try:
            if flags == os.O_RDONLY:
                out["content"] = os.read(fd, 1 << 20)
            else:
                os.write(fd, b"0")
            out["io"] = 0
        except OSError as e:
            out["io"] = e.errno
        finally:
            os.close(fd)
    return out


LOCKDOWN = "/sys/kernel/security/lockdown"


def lockdown_level():
    with open(LOCKDOWN) as f:
        return f.read().split("[")[1].split("]")[0]


with open(LOCKDOWN, "w") as f:
    f.write("confidentiality")
s.check_eq("lockdown_raised_to_confidentiality", lockdown_level(),
           "confidentiality")

for d in DIRS:
    theirs = os.path.join(TRACEFS, d)
    ours = os.path.join(MNT, d)
    names = sorted(n for n in os.listdir(theirs)
                   if os.path.isfile(os.path.join(theirs, n)))
    s.check_eq(f"{d}_same_files", sorted(n for n in os.listdir(ours)
               if os.path.isfile(os.path.join(ours, n))), names)
    for name in names:
        case = f"{d}/{name}".replace("/", "_")
        mode = os.stat(os.path.join(theirs, name)).st_mode
        s.check_eq(f"{case}_mode", os.stat(os.path.join(ours, name)).st_mode,
                   mode)
        got = attempt(os.path.join(ours, name), mode)
        want = attempt(os.path.join(theirs, name), mode)
        s.check_eq(f"{case}_refused_as_in_tracefs", got, want)
        size = os.stat(os.path.join(ours, name)).st_size
        s.check_eq(f"{case}_size_is_what_a_read_gives", size,
                   len(want.get("content", b"")))

s.finish()
