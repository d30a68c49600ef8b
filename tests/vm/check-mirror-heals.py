#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""No silent holes: after an allocation failure in the worker that
builds the mirror, the mirror heals and ends up equal to tracefs.

The worker runs in a kworker, out of reach of the per-task fail-nth
that check-faults.py uses, so each case fails the next allocation of a
kernfs node anywhere (failslab's cache-filter on kernfs_node_cache,
times=1) and then makes tracing add something whose directory the
worker must build: an event directory in a system someone has listed,
a system directory in an events directory someone has listed, an
instance's directories, and the top level's events/, which the worker
builds after the module has loaded (there only the workqueue workers
may fail, with failslab's task-filter). The kernel log must show that
the fault hit the build, so that the case tests what it says, and the
mirror must then show what tracefs shows, without any other change to
the tree to prompt it.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from failslab import _set, inject, only  # noqa: E402
from kmsg import Kmsg  # noqa: E402
from kprobes import kprobe  # noqa: E402
from ktap import Suite  # noqa: E402
from tracefs import TRACEFS, settle  # noqa: E402

MNT = os.environ["KFE_MNT"]
TOP = os.environ["KFE_TOP"]
FAILSLAB = "/sys/kernel/debug/failslab"
HEAL_TIMEOUT = 30

s = Suite("kfe_mirror_heals")


def fail_next_kernfs_node(action, what):
    """Run ACTION() with the next kernfs node allocation failing; wait
    until the fault is spent and the log names WHAT. Returns the log."""
    log = Kmsg()
    try:
        with only("kernfs_node_cache"):
            _set("interval", "1")
            _set("probability", "100")
            _set("times", "1")
            try:
                action()
                spent = settle(lambda: open(f"{FAILSLAB}/times").read().strip() == "0",
                               timeout=20)
            finally:
                _set("probability", "0")
                _set("times", "1")
        if not spent:
            raise AssertionError("the fault was never injected")
        if not settle(lambda: what in log.text(), timeout=10):
            raise AssertionError(f"the log does not name {what!r}: the "
                                 f"fault hit something else:\n{log.text()}")
        return log.text()
    finally:
        log.close()


def listing(top, rel):
    try:
        return sorted(os.listdir(os.path.join(top, rel)))
    except FileNotFoundError:
        return None


def heals(rel, deep=True):
    """Our REL lists what tracefs's does, within HEAL_TIMEOUT seconds,
    and, if DEEP, every directory in it lists the same too."""
    theirs = listing(TRACEFS, rel)
    start = time.time()
    ok = settle(lambda: listing(MNT, rel) == theirs, timeout=HEAL_TIMEOUT)
    if not ok:
        raise AssertionError(f"{rel}: ours {listing(MNT, rel)}, tracefs "
                             f"{theirs} after {HEAL_TIMEOUT} s")
    for name in theirs if deep else []:
        sub = os.path.join(rel, name)
        if os.path.isdir(os.path.join(TRACEFS, sub)):
            got, want = listing(MNT, sub), listing(TRACEFS, sub)
            if got != want:
                raise AssertionError(f"{sub}: ours {got}, tracefs {want}")
    print(f"# {rel} healed after {time.time() - start:.1f} s", file=sys.stderr)


def visible(rel, timeout=60):
    return settle(lambda: os.path.exists(os.path.join(MNT, rel)),
                  timeout=timeout)


def event_dir():
    """An event added to a system whose directory has been listed."""
    assert kprobe("p:kfe_heal/kfe_heal_a ksys_sync") == 0
    try:
        assert visible("events/kfe_heal/kfe_heal_a"), "first event not mirrored"
        os.listdir(os.path.join(MNT, "events/kfe_heal"))
        fail_next_kernfs_node(
            lambda: kprobe("p:kfe_heal/kfe_heal_b ksys_sync"),
            "could not mirror event kfe_heal/kfe_heal_b")
        heals("events/kfe_heal")
    finally:
        kprobe("-:kfe_heal/kfe_heal_b")
        kprobe("-:kfe_heal/kfe_heal_a")


def system_dir():
    """A new system in an events directory that has been listed."""
    os.listdir(os.path.join(MNT, "events"))
    try:
        fail_next_kernfs_node(
            lambda: kprobe("p:kfe_heal2/kfe_heal_c ksys_sync"),
            "could not mirror event kfe_heal2/kfe_heal_c")
        heals("events")
        heals("events/kfe_heal2")
    finally:
        kprobe("-:kfe_heal2/kfe_heal_c")


def instance():
    """A new instance: instances/NAME, then its events directory."""
    inst = os.path.join(TRACEFS, "instances", "kfe_heal")
    try:
        fail_next_kernfs_node(lambda: os.mkdir(inst),
                              "could not mirror the events of kfe_heal")
        # An instance has many more files in tracefs than events/.
        heals("instances", deep=False)
        heals("instances/kfe_heal/events")
    finally:
        if os.path.isdir(inst):
            os.rmdir(inst)


def removed_while_waiting():
    """An event whose build failed and that tracing removes before the
    retry: the retry must not resurrect it, and unload must be clean."""
    assert kprobe("p:kfe_heal3/kfe_heal_d ksys_sync") == 0
    try:
        assert visible("events/kfe_heal3/kfe_heal_d"), "first event not mirrored"
        os.listdir(os.path.join(MNT, "events/kfe_heal3"))

        def add_and_remove():
            assert kprobe("p:kfe_heal3/kfe_heal_e ksys_sync") == 0
        fail_next_kernfs_node(add_and_remove,
                              "could not mirror event kfe_heal3/kfe_heal_e")
        assert kprobe("-:kfe_heal3/kfe_heal_e") == 0
        heals("events/kfe_heal3")
        time.sleep(1)
        heals("events/kfe_heal3")
    finally:
        kprobe("-:kfe_heal3/kfe_heal_e")
        kprobe("-:kfe_heal3/kfe_heal_d")


def event_records():
    """kprobe creation with its Nth allocation failing, in this task,
    where tracing calls the module to record the event: whenever
    tracing has the event, the mirror gets it."""
    name = "kfe_heal_rec"
    rel = f"events/kprobes/{name}"
    n = created = 0
    while True:
        n += 1
        err, reached = inject(n, lambda: os.write(
            kprobe_fd(), f"p:{name} ksys_sync\n".encode()))
        # Tracing may keep the event without its tracefs directory
        # ("Could not create directory"): then it is not compared.
        listed = kprobe_listed(name)
        has_dir = os.path.isdir(os.path.join(TRACEFS, rel))
        created += has_dir
        try:
            if not reached and (err or not has_dir):
                raise AssertionError(f"N={n}: errno {err} without a fault")
            if has_dir and not visible(rel, 10):
                raise AssertionError(f"N={n}: tracing has {rel} (errno "
                                     f"{err}), the mirror never shows it")
        finally:
            if listed:
                assert kprobe(f"-:{name}") == 0
                settle(lambda: not os.path.exists(os.path.join(MNT, rel)))
        if not reached:
            print(f"# event records: {n - 1} allocations, tracing had the "
                  f"event after {created} attempts", file=sys.stderr)
            return


def kprobe_listed(name):
    with open(os.path.join(TRACEFS, "kprobe_events")) as f:
        return any(f":kprobes/{name} " in line for line in f)


_kprobe_fd = None


def kprobe_fd():
    """kprobe_events, opened before the fault is armed: opening it
    allocates."""
    return _kprobe_fd


def event_records_case():
    global _kprobe_fd
    _kprobe_fd = os.open(os.path.join(TRACEFS, "kprobe_events"),
                         os.O_WRONLY | os.O_APPEND)
    try:
        event_records()
    finally:
        os.close(_kprobe_fd)


def kworkers():
    """The pids of the kernel's workqueue workers."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().startswith("kworker/"):
                    pids.append(pid)
        except OSError:
            pass
    return pids


def make_it_fail(pids, value):
    for pid in pids:
        try:
            with open(f"/proc/{pid}/make-it-fail", "w") as f:
                f.write(value)
        except OSError:
            pass


def loaded():
    with open("/proc/modules") as f:
        return any(line.startswith("kernfs_events ") for line in f)


def top_level_at_load():
    """The top level's events/, which the worker builds after the module
    has loaded: only the workqueue workers may fail (failslab's
    task-filter), so the load itself, in insmod, succeeds."""
    assert subprocess.run(["umount", MNT]).returncode == 0, "umount"
    assert subprocess.run(["rmmod", "kernfs_events"]).returncode == 0, "rmmod"
    try:
        pids = kworkers()

        def load():
            make_it_fail(pids, "1")
            _set("task-filter", "Y")
            assert subprocess.run(
                ["insmod", os.path.join(TOP, "kernfs_events.ko")]
            ).returncode == 0, "insmod failed"
        try:
            fail_next_kernfs_node(
                load, "could not mirror the events of the top level")
        finally:
            _set("task-filter", "N")
            make_it_fail(pids, "0")
    finally:
        if not loaded():
            subprocess.run(["insmod", os.path.join(TOP, "kernfs_events.ko")])
        subprocess.run(["mount", "-t", "kernfs_events", "kernfs_events", MNT])
    heals("events", deep=False)
    heals("events/sched")


s.check("mirror_is_up", visible("events/sched"))
s.run("event_dir_heals", event_dir)
s.run("system_dir_heals", system_dir)
s.run("instance_heals", instance)
s.run("removed_before_retry_stays_removed", removed_while_waiting)
s.run("event_records_never_fail", event_records_case)
s.run("top_level_events_heals_after_load", top_level_at_load)
s.finish()
