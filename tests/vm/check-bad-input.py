#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Bad writes to every kind of writable file of the mirror, each compared
with the same write to the same file in tracefs.

For each file kind (the writable files at the top, in a system and in an
event) and each bad input, the write goes once through kernfs_events and
once through tracefs, from the same starting state. The two must give
the same result (the errno, or the byte count) and leave the same state
behind, read through tracefs; a write that fails must change nothing
that it does not change in tracefs (where a bad filter leaves its error
message in the filter file).
Nothing here is an expected errno written down from our implementation:
tracefs is the reference.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
PAGE = os.sysconf("SC_PAGE_SIZE")

s = Suite("kfe_bad_input")

# (name, [(offset, bytes), ...]): the writes of one case, on one open fd.
INPUTS = [
    ("empty", [(0, b"")]),
    ("newline_only", [(0, b"\n")]),
    ("oversized_page", [(0, b"1" * (PAGE + 1))]),
    ("oversized_1m", [(0, b"x" * (1 << 20))]),
    ("binary_nul", [(0, b"\x00\x01\x02\xff")]),
    ("non_utf8", [(0, b"\xc3\x28\xa0\xa1")]),
    ("truncated_command", [(0, b"common_pid ==")]),
    ("partial_two_writes", [(0, b"comm"), (0, b"on_pid > 1")]),
    ("at_offset", [(7, b"1")]),
    ("out_of_range_2", [(0, b"2")]),
    ("negative", [(0, b"-1")]),
    ("overflow", [(0, b"99999999999999999999")]),
    ("trailing_garbage", [(0, b" 1x")]),
    ("unknown_trigger", [(0, b"frobnicate")]),
]


def kinds():
    """{kind: (path relative to events/)} for each writable file kind."""
    ev = "sched/sched_switch"
    out = {}
    for rel in ("enable", "sched/enable", "sched/filter",
                f"{ev}/enable", f"{ev}/filter", f"{ev}/trigger"):
        if os.access(os.path.join(TRACEFS, "events", rel), os.F_OK):
            out[rel.replace("sched_switch", "event").replace("/", "_")
                if "/" in rel else "top_enable"] = rel
    return out


def state():
    """What a bad write could change, read through tracefs."""
    out = {}
    for rel in ("enable", "sched/enable", "sched/filter",
                "sched/sched_switch/enable", "sched/sched_switch/filter",
                "sched/sched_switch/trigger"):
        with open(os.path.join(TRACEFS, "events", rel), "rb") as f:
            out[rel] = f.read()
    return out


def reset():
    """Back to the starting state: disabled, no filter, no trigger."""
    ev = os.path.join(TRACEFS, "events", "sched", "sched_switch")
    with open(os.path.join(ev, "trigger"), "rb") as f:
        triggers = [ln.split(b":")[0] for ln in f.read().splitlines()
                    if ln and not ln.startswith(b"#")]
    for t in triggers:
        write_all(os.path.join(ev, "trigger"), [(0, b"!" + t)])
    for rel, v in (("sched/filter", b"0"), ("sched/sched_switch/filter", b"0"),
                   ("enable", b"0")):
        write_all(os.path.join(TRACEFS, "events", rel), [(0, v)])


def write_all(path, writes):
    """Do WRITES on one fd of PATH; the result of each: byte count or -errno."""
    results = []
    fd = os.open(path, os.O_WRONLY)
    try:
        for off, data in writes:
            try:
                results.append(os.pwrite(fd, data, off) if off else
                               os.write(fd, data))
            except OSError as e:
                results.append(-e.errno)
    finally:
        os.close(fd)
    return results


def case(rel, writes):
    reset()
    before = state()
    ours = write_all(os.path.join(MNT, "events", rel), writes)
    after_ours = state()
    reset()
    theirs = write_all(os.path.join(TRACEFS, "events", rel), writes)
    after_theirs = state()
    reset()
    diag = []
    if ours != theirs:
        diag.append(f"results: ours {ours}, tracefs {theirs}")
    if after_ours != after_theirs:
        diag.append(f"state after ours {after_ours}, after tracefs "
                    f"{after_theirs}")
    # A failed write changes nothing, except what the same write to
    # tracefs changes too: a bad filter leaves its error message in the
    # filter file, and the filter off.
    if any(r < 0 for r in ours) and after_ours != before and \
            after_theirs == before:
        diag.append("a failed write changed the state")
    return not diag, "\n".join(diag)


# Mount options: tracefs's errno for each bad value of the options both
# have. tracefs ignores options it does not know, for compatibility;
# ours, a new filesystem, refuses them (documented in the guide).
OPTIONS = ["uid=abc", "uid=-1", "uid=99999999999", "uid=", "gid=x",
           "gid=4294967296", "mode=9", "mode=", "mode=0x1ff", "uid=1,uid=x"]
libc = ctypes.CDLL(None, use_errno=True)


def mount_errno(fstype, opts, target):
    if libc.mount(b"none", target.encode(), fstype.encode(), 0,
                  opts.encode()) == 0:
        libc.umount(target.encode())
        return 0
    return ctypes.get_errno()


def remount_errno(opts):
    MS_REMOUNT = 32
    if libc.mount(b"none", MNT.encode(), None, MS_REMOUNT, opts.encode()):
        return ctypes.get_errno()
    return 0


target = os.path.join(os.environ["TMPDIR"], "kfe-bad-mount")
os.makedirs(target, exist_ok=True)
with open("/proc/self/mounts") as f:
    mounted_before = [ln for ln in f if ln.split()[1] == MNT]
for opts in OPTIONS:
    want = mount_errno("tracefs", opts, target)
    got = mount_errno("kernfs_events", opts, target)
    s.check(f"mount_{opts}", got == want and got != 0,
            f"ours {got}, tracefs {want}")
    err = remount_errno(opts)
    with open("/proc/self/mounts") as f:
        now = [ln for ln in f if ln.split()[1] == MNT]
    s.check(f"remount_{opts}_changes_nothing",
            err == want and now == mounted_before,
            f"errno {err}, mounts {now}")
s.check_eq("mount_unknown_option_refused",
           mount_errno("kernfs_events", "frobnicate", target), 22)

reset()
for kind, rel in kinds().items():
    for name, writes in INPUTS:
        ok, diag = case(rel, writes)
        s.check(f"{kind}_{name}", ok, diag)
s.finish()
