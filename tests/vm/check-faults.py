#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Allocation failures injected with failslab's fail-nth into each
operation that makes kernfs_events allocate: module load (with the
replay of every instance and event), mount, and the population of a
lazy event directory (where an event's nodes are made). Not trace
instance creation: tracing's ring buffer WARNs when its allocation fails
(trace_rb_cpu_prepare()), which fails any run; see the guide.

For N = 1, 2, ... the Nth slab allocation of the operation fails, until
the operation completes without reaching N. Every failed attempt must
return an errno and leave nothing behind, and the next attempt must
succeed with the complete tree; kmemleak, run by vm-run after the
checks, must find nothing. make check fails every allocation up to 40,
then one in steps that grow by a quarter; make stress (KFE_STRESS=full)
fails every one.
"""
import ctypes
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from failslab import inject  # noqa: E402
from ktap import Suite  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
TOP = os.environ["KFE_TOP"]
FULL = os.environ.get("KFE_STRESS") == "full"
LIMIT = 5000

s = Suite("kfe_faults")
libc = ctypes.CDLL(None, use_errno=True)


def nths():
    n = 1
    while n <= LIMIT:
        yield n
        n += 1 if FULL or n < 40 else n // 4


def sweep(name, setup, attempt, check, teardown):
    """For N = 1, 2, ...: SETUP(), ATTEMPT() with its Nth allocation
    failing, CHECK(errno) the state it left, TEARDOWN(). Stops when
    ATTEMPT no longer reaches N; returns the number of failures."""
    failures = 0
    for n in nths():
        setup()
        err, reached = inject(n, attempt)
        try:
            if not reached:
                need(err == 0, f"N={n}: errno {err} without a fault")
            check(err)
        except AssertionError as e:
            raise AssertionError(f"N={n}: {e}")
        finally:
            teardown()
        failures += bool(err)
        if not reached:
            print(f"# {name}: {failures} injected failures returned an "
                  f"errno; completes within {n - 1} allocations",
                  file=sys.stderr)
            return failures
    raise AssertionError(f"{name}: still allocating after {LIMIT}")


def need(cond, what):
    if not cond:
        raise AssertionError(what)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def loaded():
    with open("/proc/modules") as f:
        return any(line.startswith("kernfs_events ") for line in f)


with open(os.path.join(TOP, "kernfs_events.ko"), "rb") as f:
    IMAGE = f.read()


def init_module():
    """init_module(2) of kernfs_events from memory: a failure injected
    into a read of the file from the guest's 9p root could break the
    9p client for every later exec."""
    if libc.syscall(175, IMAGE, len(IMAGE), b"") != 0:
        raise OSError(ctypes.get_errno(), "init_module")


def mount():
    if libc.mount(b"kernfs_events", MNT.encode(), b"kernfs_events", 0, None):
        raise OSError(ctypes.get_errno(), "mount")


def tree_complete():
    """Our events tree has every system tracefs has, with its events."""
    ours = set(os.listdir(os.path.join(MNT, "events")))
    theirs = set(os.listdir(os.path.join(TRACEFS, "events")))
    return theirs <= ours


def wait(cond, timeout=60):
    end = time.time() + timeout
    while not cond() and time.time() < end:
        time.sleep(0.05)
    return cond()


def module_load():
    need(run("umount", MNT).returncode == 0, "umount")
    need(run("rmmod", "kernfs_events").returncode == 0, "rmmod")

    def check(err):
        if err:
            need(not loaded(), "insmod failed but the module is loaded")
            return
        mount()
        need(wait(tree_complete), "the module mirrors an incomplete tree")
        need(run("umount", MNT).returncode == 0, "umount")

    def teardown():
        if loaded():
            need(run("rmmod", "kernfs_events").returncode == 0, "rmmod")
    try:
        need(sweep("module_load", lambda: None, init_module, check,
                   teardown) > 0, "no failure injected")
    finally:
        if not loaded():
            init_module()
        mount()


def mount_sweep():
    def check(err):
        mounted = run("mountpoint", "-q", MNT).returncode == 0
        need(mounted == (err == 0), f"errno {err}, mounted {mounted}")

    def teardown():
        if run("mountpoint", "-q", MNT).returncode == 0:
            need(run("umount", MNT).returncode == 0, "umount")
    need(run("umount", MNT).returncode == 0, "umount")
    try:
        need(sweep("mount", lambda: None, mount, check, teardown) > 0,
             "no failure injected")
    finally:
        mount()


INST = os.path.join(TRACEFS, "instances", "kfe_faults")
OURS = os.path.join(MNT, "instances", "kfe_faults")


def instance_gone():
    if os.path.exists(INST):
        os.rmdir(INST)
    need(wait(lambda: not os.path.exists(OURS)),
         "the mirror of a removed instance stayed")


def same_as_tracefs(rel):
    theirs = os.path.join(INST, "events", rel)
    ours = os.path.join(OURS, "events", rel)
    return sorted(os.listdir(ours)) == sorted(os.listdir(theirs))


def populate_sweep():
    """The population of a lazy system and event directory: where the
    mirror makes an event's nodes."""
    def setup():
        os.mkdir(INST)
        need(wait(lambda: os.path.exists(os.path.join(OURS, "events"))),
             "instance not mirrored")
        os.listdir(os.path.join(OURS, "events"))

    def attempt():
        os.listdir(os.path.join(OURS, "events", "sched"))
        os.listdir(os.path.join(OURS, "events", "sched", "sched_switch"))

    def check(err):
        # Failed or not, the next look finds the whole directories.
        need(same_as_tracefs("sched"), "system differs from tracefs")
        need(same_as_tracefs("sched/sched_switch"), "event differs")
    need(sweep("populate", setup, attempt, check, instance_gone) > 0,
         "no failure injected")


s.run("fault_module_load", module_load)
s.run("fault_mount", mount_sweep)
s.run("fault_lazy_population", populate_sweep)
s.finish()
