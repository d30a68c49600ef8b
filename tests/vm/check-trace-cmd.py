#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""trace-cmd, the real client, on the mirror: in a private mount
namespace where $KFE_MNT/events is bind-mounted over tracefs's events
directory, trace-cmd lists the same events as on plain tracefs and
records sched events that trace-cmd report shows. Meanwhile one thread
reads /proc/mounts and mountinfo (ours and the namespace's, which shows
the bind) and another makes and removes a tracefs instance; both count
the operations that raced. The kernel log must show no splat since the
check started, and tracing is left off, the instance gone and $KFE_MNT
mounted as found.
"""
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from ktap import Suite  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
TMP = os.environ.get("TMPDIR", "/tmp")
INSTANCE = os.path.join(TRACEFS, "instances", "kfe_tc")
# Run "$@" with the mirror bound over tracefs's events, in a namespace
# of its own; exit 99 if the bind is not what the command sees.
BIND = ('mount --bind "$0/events" /sys/kernel/tracing/events && '
        'grep -q " /sys/kernel/tracing/events .* - kernfs_events " '
        '/proc/self/mountinfo || { echo "bind failed" >&2; exit 99; }; '
        'exec "$@"')
# "comm-pid [cpu] (flags) timestamp: event:" in trace-cmd report.
RECORD = re.compile(r"\[\d+\]\s+(?:\S+\s+)?\d+\.\d+:\s+(\w+):")
SPLAT = re.compile(r"possible circular locking dependency|WARNING:|BUG:|"
                   r"KASAN:|Oops|Call Trace:")

s = Suite("kfe_trace_cmd")
ns_pid = [None]  # the pid of the namespace's command while it runs


def kmsg_open():
    """/dev/kmsg, positioned after the records already logged."""
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    os.lseek(fd, 0, os.SEEK_END)
    return fd


def kmsg_new(fd):
    """The messages logged since kmsg_open() or the last call."""
    out = []
    while True:
        try:
            rec = os.read(fd, 8192).decode(errors="replace")
        except BlockingIOError:
            return out
        except BrokenPipeError:  # overwritten records: go on reading
            continue
        out.append(rec.split(";", 1)[1].split("\n", 1)[0])


def trace_cmd(args, mirror, timeout=200):
    """Run trace-cmd ARGS, through the mirror if MIRROR; its stdout."""
    cmd = ["trace-cmd"] + args
    if mirror:
        cmd = ["unshare", "-m", "--propagation", "private",
               "sh", "-c", BIND, MNT] + cmd
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if mirror:
        ns_pid[0] = p.pid
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        err += f"\nkilled after {timeout}s"
    finally:
        ns_pid[0] = None
    where = "mirror" if mirror else "tracefs"
    print(f"# {where}: trace-cmd {' '.join(args)}: {time.time() - t0:.0f}s",
          file=sys.stderr)
    if p.returncode:
        raise AssertionError(f"{where}: {' '.join(args)}: status "
                             f"{p.returncode}\n{err[-2000:]}")
    return out


def read_mounts(stop, n):
    """Read the mount tables until STOP; count reads and sightings."""
    while not stop.is_set():
        for f in ("/proc/mounts", "/proc/self/mountinfo"):
            with open(f) as fh:
                if f" {MNT} " not in fh.read():
                    n["kfe_missing"] += 1
            n["reads"] += 1
        pid = ns_pid[0]
        try:
            with open(f"/proc/{pid}/mountinfo") as fh:
                if " /sys/kernel/tracing/events " in fh.read():
                    n["ns_bind_seen"] += 1
            n["reads"] += 1
        except OSError:  # no namespace now, or it just ended
            pass
        stop.wait(0.02)


def churn_instance(stop, n):
    """mkdir and rmdir the tracefs instance until STOP; count cycles."""
    while not stop.is_set():
        try:
            os.mkdir(INSTANCE)
            # Every other rmdir comes after the mirror built its tree.
            stop.wait(0.5 * (n["cycles"] % 2))
            os.rmdir(INSTANCE)
            n["cycles"] += 1
        except OSError as e:
            n["errors"].append(f"{e.strerror} on {e.filename}")
        # Each cycle builds and tears down a whole events tree, here and
        # in the mirror: leave the guest's CPUs to trace-cmd in between.
        stop.wait(0.5)


def settle(cond, timeout=60):
    """Wait until COND() is true (the mirror follows in a work item)."""
    end = time.time() + timeout
    while not cond():
        if time.time() > end:
            return False
        time.sleep(0.2)
    return True


def events_of(report):
    """The event names of the records in trace-cmd report's output."""
    return [m.group(1) for m in map(RECORD.search, report.splitlines()) if m]


kmsg = kmsg_open()
tracing_on = open(os.path.join(TRACEFS, "tracing_on")).read()
mnt_before = [line.split()[:3] for line in open("/proc/self/mounts")
              if line.split()[1] == MNT]
sched = {e for e in os.listdir(os.path.join(TRACEFS, "events", "sched"))
         if os.path.isdir(os.path.join(TRACEFS, "events", "sched", e))}

stop = threading.Event()
mounts = {"reads": 0, "kfe_missing": 0, "ns_bind_seen": 0}
churn = {"cycles": 0, "errors": []}
threads = [threading.Thread(target=f, args=(stop, n), daemon=True)
           for f, n in ((read_mounts, mounts), (churn_instance, churn))]
for t in threads:
    t.start()
start = time.time()

# 1. trace-cmd list: available_events ("-e"), and the events directory
# walked system by system ("-e ." lists what every system directory holds).
listed = {}
for args in (["list", "-e"], ["list", "-e", "."]):
    for mirror in (True, False):
        try:
            listed[(args[-1], mirror)] = set(trace_cmd(args, mirror).split())
        except AssertionError as e:
            print(f"# {e}", file=sys.stderr)
            listed[(args[-1], mirror)] = None
for arg, what in (("-e", "available_events"), (".", "events_dir")):
    ours, theirs = listed[(arg, True)], listed[(arg, False)]
    print(f"# trace-cmd list {arg}: {len(ours or ())} events through the "
          f"mirror, {len(theirs or ())} on tracefs", file=sys.stderr)
    s.check(f"list_{what}_same_as_tracefs",
            ours is not None and ours == theirs and len(ours) > 100,
            f"mirror {len(ours or ())}, tracefs {len(theirs or ())}; only on "
            f"tracefs: {sorted((theirs or set()) - (ours or set()))[:10]}; "
            f"only through the mirror: "
            f"{sorted((ours or set()) - (theirs or set()))[:10]}")

# 2. trace-cmd record -e sched, through the mirror and on tracefs.
records = {}
for mirror in (True, False):
    dat = os.path.join(TMP, f"kfe-tc-{'mirror' if mirror else 'tracefs'}.dat")
    try:
        trace_cmd(["record", "-o", dat, "-e", "sched", "sleep", "1"], mirror)
        records[mirror] = events_of(trace_cmd(["report", "-i", dat], False))
    except AssertionError as e:
        print(f"# {e}", file=sys.stderr)
        records[mirror] = None
    finally:
        if os.path.exists(dat):
            os.unlink(dat)
    print(f"# trace-cmd record -e sched: {len(records[mirror] or ())} "
          f"records {'through the mirror' if mirror else 'on tracefs'}",
          file=sys.stderr)
ours = records[True]
s.check("record_through_mirror_has_records", ours,
        "trace-cmd failed" if ours is None else "no records")
s.check("record_through_mirror_only_enabled_events",
        ours is not None and set(ours) <= sched,
        f"not in sched: {sorted(set(ours or ()) - sched)[:10]}")
s.check("record_on_tracefs_has_records", records[False])

stop.set()
for t in threads:
    t.join()
print(f"# while trace-cmd ran ({time.time() - start:.0f}s): "
      f"{mounts['reads']} mount table reads (the bind seen in "
      f"{mounts['ns_bind_seen']}), {churn['cycles']} instance mkdir/rmdir "
      f"cycles, {len(churn['errors'])} errors", file=sys.stderr)
s.check("mount_tables_read_beside_trace_cmd",
        mounts["reads"] > 0 and mounts["ns_bind_seen"] > 0 and
        not mounts["kfe_missing"],
        f"{mounts['reads']} reads, bind seen {mounts['ns_bind_seen']} times, "
        f"{MNT} missing {mounts['kfe_missing']} times")
s.check("instance_churned_beside_trace_cmd",
        churn["cycles"] > 0 and not churn["errors"],
        f"{churn['cycles']} cycles; errors: {churn['errors'][:5]}")

# 3. Clean up on tracefs itself (trace-cmd reset disables the events
# and sets the nop tracer), and check that all is as found.
reset = subprocess.run(["trace-cmd", "reset"], capture_output=True, text=True)
s.check_eq("trace_cmd_reset", (reset.returncode, reset.stderr), (0, ""))
with open(os.path.join(TRACEFS, "events", "enable"), "w") as f:
    f.write("0")
with open(os.path.join(TRACEFS, "tracing_on"), "w") as f:
    f.write(tracing_on)
if os.path.isdir(INSTANCE):
    os.rmdir(INSTANCE)
mnt_after = [line.split()[:3] for line in open("/proc/self/mounts")
             if line.split()[1] == MNT]
s.check_eq("events_disabled_after_cleanup",
           open(os.path.join(TRACEFS, "events", "enable")).read(), "0\n")
s.check("instance_removed", not os.path.exists(INSTANCE) and
        settle(lambda: not os.path.exists(
            os.path.join(MNT, "instances", "kfe_tc"))))
s.check("mirror_mounted_as_found",
        mnt_after == mnt_before and mnt_before and
        mnt_before[0][2] == "kernfs_events",
        f"before {mnt_before}, after {mnt_after}")

# 4. No splat in the kernel log since the check started.
splats = [m for m in kmsg_new(kmsg) if SPLAT.search(m)]
os.close(kmsg)
s.check("no_splat_in_kernel_log", not splats, "\n".join(splats[:20]))
s.finish()
