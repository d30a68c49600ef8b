#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Bounded stress of kernfs_events under KASAN, lockdep and kmemleak.

Each loop stops at its count or its time limit, whichever comes first,
and reports what it reached. make check runs it with KFE_STRESS unset
(short loops); make stress sets KFE_STRESS=full for the counts of the
reliability chapter. vm-run fails the run on any splat or leak.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kprobes import kprobe  # noqa: E402
from ktap import Suite  # noqa: E402
from tracefs import content  # noqa: E402
from workers import Workers  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
TOP = os.environ["KFE_TOP"]
FULL = os.environ.get("KFE_STRESS") == "full"
# (count, seconds) per loop
LIMITS = {
    "kprobe_cycles": (10000, 1800) if FULL else (300, 40),
    "mount_cycles": (1000, 900) if FULL else (60, 20),
    "remount_cycles": (2000, 600) if FULL else (60, 20),
    "instance_cycles": (500, 900) if FULL else (15, 30),
    "unload_cycles": (200, 600) if FULL else (5, 20),
}
PROBE = "kfe_stress"
PROBE_DIR = os.path.join(MNT, "events", "kprobes", PROBE)

s = Suite("kfe_stress")


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def need(cond, what):
    if not cond:
        raise AssertionError(what)


def loop(name, body):
    """Run BODY() until its count or time is reached; the count reached."""
    count, seconds = LIMITS[name]
    stop = time.time() + seconds
    n = 0
    t0 = time.time()
    while n < count and time.time() < stop:
        body()
        n += 1
    print(f"# {name}: {n} of {count} in {time.time() - t0:.1f} s",
          file=sys.stderr)
    return n


class Readers(Workers):
    """Threads that walk, stat, open, read and write the mirrored files
    until stopped; they count operations and unexpected errors."""

    ALLOWED = (2, 19, 16)	# ENOENT, ENODEV (removed), EBUSY

    def __init__(self, top, nr=4):
        self.top = top
        self.ops = 0
        self.errors = []
        super().__init__(nr)

    def one(self, i):
        for d, _, files in os.walk(self.top):
            for f in files:
                p = os.path.join(d, f)
                os.lstat(p)
                if i % 2 and f == "enable":
                    fd = os.open(p, os.O_WRONLY)
                    try:
                        os.write(fd, b"0")
                    finally:
                        os.close(fd)
                else:
                    content(p)
                self.ops += 1

    def work(self, i):
        while not self.stop.is_set():
            try:
                self.one(i)
            except OSError as e:
                if e.errno not in self.ALLOWED:
                    self.errors.append(str(e))


def kprobe_churn():
    """kprobe event create/delete cycles while 4 readers use its files."""
    def cycle():
        need(kprobe(f"p:{PROBE} ksys_sync") == 0, "kprobe not created")
        kprobe(f"-:{PROBE}")
    # The readers need the system directory: keep one probe alive.
    need(kprobe("p:kfe_stress_keep ksys_sync") == 0, "kprobe not created")
    keep = os.path.join(MNT, "events", "kprobes", "kfe_stress_keep")
    end = time.time() + 30
    while not os.path.exists(keep) and time.time() < end:
        time.sleep(0.05)
    with Readers(os.path.dirname(keep)) as r:
        n = loop("kprobe_cycles", cycle)
    kprobe("-:kfe_stress_keep")
    print(f"# readers: {r.ops} file operations", file=sys.stderr)
    need(not r.errors, "; ".join(r.errors[:3]))
    need(n > 0, "no cycle ran")


def mount_churn():
    """Mount and unmount a second instance of the filesystem."""
    mnt2 = os.path.join(os.environ["TMPDIR"], "kfe-stress-mnt")
    os.makedirs(mnt2, exist_ok=True)

    def cycle():
        r = run("mount", "-t", "kernfs_events", "kernfs_events", mnt2)
        need(r.returncode == 0, r.stderr)
        os.listdir(os.path.join(mnt2, "events"))
        r = run("umount", mnt2)
        need(r.returncode == 0, r.stderr)
    loop("mount_cycles", cycle)


def remount_churn():
    """remount uid=/gid= while readers look everything up."""
    uid = [0]

    def cycle():
        uid[0] = uid[0] % 5 + 1
        r = run("mount", "-o", f"remount,uid={uid[0]},gid={uid[0]}", MNT)
        need(r.returncode == 0, r.stderr)
    with Readers(os.path.join(MNT, "events", "sched")) as r:
        loop("remount_cycles", cycle)
    run("mount", "-o", "remount,uid=0,gid=0", MNT)
    need(not r.errors, "; ".join(r.errors[:3]))
    bad = [d for d, _, _ in os.walk(os.path.join(MNT, "events"))
           if os.lstat(d).st_uid != 0]
    need(not bad, f"uid not reset on {bad[:2]}")


def instance_churn():
    """Trace instance mkdir/rmdir while files of the instance are open."""
    inst = os.path.join(TRACEFS, "instances", "kfe_stress")
    ours = os.path.join(MNT, "instances", "kfe_stress", "events", "sched")

    def cycle():
        os.mkdir(inst)
        end = time.time() + 30
        while not os.path.exists(ours) and time.time() < end:
            time.sleep(0.02)
        fds = [os.open(os.path.join(ours, "sched_switch", f), os.O_RDONLY)
               for f in ("enable", "format", "filter")]
        os.rmdir(inst)
        for fd in fds:
            try:
                os.read(fd, 100)
            except OSError as e:
                need(e.errno == 19, f"read after rmdir: {e}")
            os.close(fd)
    loop("instance_cycles", cycle)


def unload_attempts():
    """rmmod refused while mounted, clean after umount, and back again."""
    def cycle():
        r = run("rmmod", "kernfs_events")
        need(r.returncode != 0, "rmmod succeeded while mounted")
        need(run("umount", MNT).returncode == 0, "umount failed")
        r = run("rmmod", "kernfs_events")
        need(r.returncode == 0, r.stderr)
        r = run("insmod", os.path.join(TOP, "kernfs_events.ko"))
        need(r.returncode == 0, r.stderr)
        r = run("mount", "-t", "kernfs_events", "kernfs_events", MNT)
        need(r.returncode == 0, r.stderr)
    loop("unload_cycles", cycle)


s.run("stress_kprobe_churn_with_4_readers", kprobe_churn)
s.run("stress_mount_umount", mount_churn)
s.run("stress_remount_uid_gid_during_lookups", remount_churn)
s.run("stress_instance_rmdir_with_open_files", instance_churn)
s.run("stress_unload_refused_while_mounted", unload_attempts)
s.finish()
