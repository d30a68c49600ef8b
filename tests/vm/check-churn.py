#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Lifetimes across the tracing boundary, the way eventfs's bugs were found.

Every way an event goes away (kprobes deleted all at once and one by
one, uprobes, eprobes, synthetic events, the unloading of a module that
defines trace events, an instance's rmdir, and the unmount and reload
of kernfs_events itself) runs while threads lstat, open, read,
write and poll the event's files in the mirror, hold fds on them and
keep a cwd inside its directory, and while reclaim gives directories
back (drop_caches). Each case counts the operations that ran while the
removal was in progress and fails if none did; it fails if the kernel
logs a BUG or a KASAN report meanwhile (vm-run also fails the whole run).

Then what a drop-in must do at once: when a write to kprobe_events or
synthetic_events, or an instance's mkdir or rmdir, returns, a lookup in
the mirror finds what it made and misses what it removed (zero misses
in every round), and the inode numbers of removed events held open do
not lock a directory.

make check runs the short loops; make stress (KFE_STRESS=full) the long ones.
"""
import errno
import os
import select
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kmsg import Kmsg  # noqa: E402
from kprobes import kprobe  # noqa: E402
from ktap import Suite  # noqa: E402
from tracefs import write  # noqa: E402
from workers import Workers  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
TOP = os.environ["KFE_TOP"]
FULL = os.environ.get("KFE_STRESS") == "full"
ROUNDS = 30 if FULL else 6
VISIBILITY_ROUNDS = 200 if FULL else 30
NR_PROBES = 50
GROUP = "kfe_churn"
FILES = ["enable", "filter", "trigger", "hist", "format", "id"]
# What an operation on a file of a removed event may get.
GONE = (errno.ENOENT, errno.ENODEV)

s = Suite("kfe_churn")


def need(cond, what):
    if not cond:
        raise AssertionError(what)


def splats(log):
    return [line for line in log.read()
            if "BUG:" in line or "KASAN" in line or "WARNING:" in line]


class FileOps(Workers):
    """Threads that run every operation on the files of the event
    directories under DIRS() until stopped. Each operation is counted,
    and counted as overlapping when a removal was in progress while it
    ran; errors other than the event going away are kept."""

    def __init__(self, dirs, nr=3):
        self.dirs = dirs
        self.removing = False
        self.ops = 0
        self.overlapped = 0
        self.errors = []
        super().__init__(nr)

    def op(self, i, path):
        kind = (i + self.ops) % 5
        if kind == 0:
            os.lstat(path)
        elif kind == 1:
            with open(path, "rb") as f:
                f.read()
        elif kind == 2 and path.endswith("/enable"):
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        elif kind == 3:
            fd = os.open(path, os.O_RDONLY)
            try:
                p = select.poll()
                p.register(fd, select.POLLIN | select.POLLPRI)
                p.poll(0)
                os.read(fd, 64)
            finally:
                os.close(fd)
        else:
            os.listdir(os.path.dirname(path))

    def work(self, i):
        while not self.stop.is_set():
            for d in self.dirs():
                for name in FILES:
                    during = self.removing
                    try:
                        self.op(i, os.path.join(d, name))
                    except OSError as e:
                        if e.errno not in GONE:
                            self.errors.append(f"{d}/{name}: {e}")
                    self.ops += 1
                    if during or self.removing:
                        self.overlapped += 1
                    if self.stop.is_set():
                        return

    def remove(self, fn):
        """Run the removal FN() with the operations going on."""
        start = self.ops
        while self.ops < start + 20 and not self.errors:
            time.sleep(0.005)
        self.removing = True
        try:
            fn()
        finally:
            self.removing = False


def drop_caches():
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3")


def churn(name, make, dirs, remove, rounds=ROUNDS):
    """ROUNDS times: MAKE() the events, then REMOVE() them while FileOps
    run on DIRS(), with an fd held open on a file of the first, a process
    whose cwd is the last, and reclaim running."""
    log = Kmsg()
    overlapped = ops = 0
    errors = []
    for _ in range(rounds):
        make()
        paths = dirs()
        need(paths, f"{name}: no event directory in the mirror after make()")
        held = os.open(os.path.join(paths[0], "format"), os.O_RDONLY)
        cwd = os.open(paths[-1], os.O_RDONLY | os.O_DIRECTORY)
        inside = subprocess.Popen(["sleep", "60"], cwd=paths[-1])
        with FileOps(lambda: paths) as ops_:
            drop = threading.Thread(target=drop_caches)
            drop.start()
            ops_.remove(remove)
            drop.join()
        # The held fd and the directory fd outlive the event.
        try:
            os.read(held, 64)
        except OSError as e:
            need(e.errno in GONE, f"{name}: held fd read: {e}")
        try:
            os.listdir(f"/proc/self/fd/{cwd}")
        except OSError as e:
            need(e.errno in GONE, f"{name}: held cwd listing: {e}")
        os.close(held)
        os.close(cwd)
        inside.kill()
        inside.wait()
        for p in paths:
            need(not os.path.lexists(p),
                 f"{name}: {p} still in the mirror after the removal returned")
        overlapped += ops_.overlapped
        ops += ops_.ops
        errors += ops_.errors
    print(f"# {name}: {rounds} rounds, {ops} operations, {overlapped} "
          f"during a removal", file=sys.stderr)
    need(not errors, f"{name}: unexpected errors: {errors[:5]}")
    need(overlapped > 0, f"{name}: no operation overlapped a removal")
    bad = splats(log)
    need(not bad, f"{name}: the kernel logged {bad[:3]}")


def probes_file(lines):
    return "".join(f"{line}\n" for line in lines)


def kprobe_dirs():
    return [os.path.join(MNT, "events", GROUP, f"p{i}")
            for i in range(NR_PROBES)]


def make_kprobes():
    defs = [f"p:{GROUP}/p{i} ksys_sync" for i in range(NR_PROBES)]
    need(write(os.path.join(TRACEFS, "kprobe_events"), probes_file(defs),
               os.O_APPEND) == 0, "could not create the kprobes")


def truncate(name):
    """Delete every probe of the tracefs file NAME, as "> NAME" does."""
    os.close(os.open(os.path.join(TRACEFS, name), os.O_WRONLY | os.O_TRUNC))


def kprobes_deleted_at_once():
    churn("kprobes_at_once", make_kprobes, kprobe_dirs,
          lambda: truncate("kprobe_events"))


def kprobes_deleted_one_by_one():
    def remove_each():
        for i in range(NR_PROBES):
            need(kprobe(f"-:{GROUP}/p{i}") == 0, f"could not delete p{i}")
    churn("kprobes_one_by_one", make_kprobes, kprobe_dirs, remove_each)


UPROBES = os.path.join(TRACEFS, "uprobe_events")


def uprobe_dirs():
    return [os.path.join(MNT, "events", "kfe_churn_u", f"u{i}")
            for i in range(10)]


def uprobes_deleted_at_once():
    """Uprobes on the shared host's /bin/true, never hit: their events
    exist from the write that makes them to the one that truncates."""
    def make():
        defs = [f"p:kfe_churn_u/u{i} /bin/true:{0x1000 + 16 * i:#x}"
                for i in range(10)]
        need(write(UPROBES, probes_file(defs), os.O_APPEND) == 0,
             "could not create the uprobes")
    churn("uprobes_at_once", make, uprobe_dirs,
          lambda: truncate("uprobe_events"))


DYNAMIC = os.path.join(TRACEFS, "dynamic_events")


def eprobe_dirs():
    return [os.path.join(MNT, "events", "kfe_churn_e", f"e{i}")
            for i in range(10)]


def eprobes_deleted_at_once():
    """Event probes on sched_switch, made and deleted through
    dynamic_events, each in one write: an eprobe holds a reference on the
    event it probes, which its deletion drops."""
    def make():
        defs = [f"e:kfe_churn_e/e{i} sched/sched_switch" for i in range(10)]
        need(write(DYNAMIC, probes_file(defs), os.O_APPEND) == 0,
             "could not create the eprobes")

    def remove():
        need(write(DYNAMIC, probes_file(f"-:kfe_churn_e/e{i}"
                                        for i in range(10)),
                   os.O_APPEND) == 0, "could not delete the eprobes")
    churn("eprobes_at_once", make, eprobe_dirs, remove)


SYNTH = os.path.join(TRACEFS, "synthetic_events")


def synth_dirs():
    return [os.path.join(MNT, "events", "synthetic", f"kfe_s{i}")
            for i in range(10)]


def synthetic_deleted():
    def make():
        need(write(SYNTH, probes_file(f"kfe_s{i} u64 lat; pid_t pid"
                                      for i in range(10)), os.O_APPEND) == 0,
             "could not create the synthetic events")

    def remove():
        for i in range(10):
            need(write(SYNTH, f"!kfe_s{i}\n", os.O_APPEND) == 0,
                 f"could not delete kfe_s{i}")
    churn("synthetic", make, synth_dirs, remove)


def module_unloaded():
    ko = os.path.join(TOP, "tests", "trace_module", "kfe_trace_event.ko")
    mod_dir = [os.path.join(MNT, "events", "kfe_test", "kfe_test_hello")]

    def make():
        need(subprocess.call(["insmod", ko]) == 0, "insmod failed")

    def remove():
        need(subprocess.call(["rmmod", "kfe_trace_event"]) == 0,
             "rmmod failed")
    churn("module", make, lambda: mod_dir, remove)


def mounted():
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == MNT for line in f)


def unloaded():
    return subprocess.call(["rmmod", "kernfs_events"],
                           stderr=subprocess.DEVNULL) == 0


def kernfs_events_reloaded():
    """kernfs_events itself goes: a lazy umount with the operations
    going on, then rmmod must fail while the held fd and cwd keep the
    superblock, succeed once they are gone, and a new insmod and mount
    must serve the tree again."""
    ko = os.path.join(TOP, "kernfs_events.ko")
    dirs = [os.path.join(MNT, "events", "sched", e)
            for e in ("sched_switch", "sched_wakeup")]

    def make():
        if mounted():
            return
        end = time.time() + 10
        while not unloaded():
            need(time.time() < end, "rmmod failed after the last fd closed")
            time.sleep(0.1)
        need(subprocess.call(["insmod", ko]) == 0, "insmod failed")
        need(subprocess.call(["mount", "-t", "kernfs_events",
                              "kernfs_events", MNT]) == 0, "mount failed")

    def remove():
        need(subprocess.call(["umount", "-l", MNT]) == 0, "umount failed")
        need(not unloaded(), "rmmod succeeded with an fd of the mount open")
    try:
        churn("kernfs_events", make, lambda: dirs, remove,
              rounds=max(2, ROUNDS // 3))
    finally:
        make()


def instance_removed():
    inst = os.path.join(TRACEFS, "instances", "kfe_churn")
    top = os.path.join(MNT, "instances", "kfe_churn", "events")
    dirs = [os.path.join(top, "sched", e)
            for e in ("sched_switch", "sched_wakeup")]
    def remove():
        # A write in flight pins the trace array, as in tracefs.
        while True:
            try:
                return os.rmdir(inst)
            except OSError as e:
                if e.errno != errno.EBUSY:
                    raise
    churn("instance", lambda: os.mkdir(inst), lambda: dirs, remove,
          rounds=max(2, ROUNDS // 2))


def visible_when_call_returns(name, make, made, remove, gone):
    """VISIBILITY_ROUNDS times: MAKE(), then at once every path of MADE
    must be in the mirror; REMOVE(), then at once none of GONE."""
    misses = []
    for r in range(VISIBILITY_ROUNDS):
        make(r)
        misses += [f"round {r}: {p} missing" for p in made(r)
                   if not os.path.lexists(p)]
        remove(r)
        misses += [f"round {r}: {p} still there" for p in gone(r)
                   if os.path.lexists(p)]
    print(f"# {name}: {VISIBILITY_ROUNDS} rounds, {len(misses)} misses",
          file=sys.stderr)
    need(not misses, f"{name}: {len(misses)} misses: {misses[:5]}")


def kprobe_visible_when_write_returns():
    """As kprobe/kprobe_args_symbol.tc does: replace the probes, then use
    the new one and kprobes/enable at once."""
    events = os.path.join(MNT, "events", "kprobes")

    def make(r):
        need(write(os.path.join(TRACEFS, "kprobe_events"),
                   f"p:kfe_vis{r} ksys_sync\n") == 0, "kprobe")

    def made(r):
        return [os.path.join(events, f"kfe_vis{r}", "enable"),
                os.path.join(events, "enable")]

    def remove(r):
        need(write(os.path.join(TRACEFS, "kprobe_events"),
                   f"p:kfe_vis{r + 1}x ksys_sync\n") == 0, "kprobe")

    def gone(r):
        return [os.path.join(events, f"kfe_vis{r}")]
    try:
        visible_when_call_returns("kprobe_replaced", make, made, remove, gone)
    finally:
        write(os.path.join(TRACEFS, "kprobe_events"), "")


def synthetic_visible_when_write_returns():
    events = os.path.join(MNT, "events", "synthetic")

    def make(r):
        need(write(SYNTH, f"kfe_v{r} u64 lat\n", os.O_APPEND) == 0, "synth")

    def made(r):
        return [os.path.join(events, f"kfe_v{r}", "format")]

    def remove(r):
        need(write(SYNTH, f"!kfe_v{r}\n", os.O_APPEND) == 0, "synth")

    def gone(r):
        return [os.path.join(events, f"kfe_v{r}")]
    visible_when_call_returns("synthetic", make, made, remove, gone)


def instance_whole_when_mkdir_returns():
    inst = os.path.join(TRACEFS, "instances", "kfe_vis")
    top = os.path.join(MNT, "instances", "kfe_vis")

    def made(r):
        return [os.path.join(top, "events", "sched", "sched_switch", "enable"),
                os.path.join(top, "events", "enable")]
    visible_when_call_returns("instance", lambda r: os.mkdir(inst), made,
                              lambda r: os.rmdir(inst), lambda r: [top])


def held_numbers_do_not_lock_directory():
    """Kprobe types are reused lowest first: each event made again while
    the enable file of the one before is held open, with reclaim between,
    must be reachable (it failed with EBUSY when a subdirectory took a
    number of its parent's block)."""
    kprobes = os.path.join(MNT, "events", "kprobes")
    held = []
    failures = []
    try:
        for i in range(4):
            need(kprobe(f"p:kfe_num{i} ksys_sync") == 0, "kprobe")
            path = os.path.join(kprobes, f"kfe_num{i}", "enable")
            try:
                os.lstat(path)
                os.listdir(kprobes)
                held.append(os.open(path, os.O_RDONLY))
            except OSError as e:
                failures.append(f"kfe_num{i}: {e}")
            need(kprobe(f"-:kfe_num{i}") == 0, "kprobe delete")
            drop_caches()
    finally:
        for fd in held:
            os.close(fd)
    need(not failures, f"{failures}")


s.run("kprobes_deleted_at_once_under_file_ops", kprobes_deleted_at_once)
s.run("kprobes_deleted_one_by_one_under_file_ops", kprobes_deleted_one_by_one)
s.run("uprobes_deleted_at_once_under_file_ops", uprobes_deleted_at_once)
s.run("eprobes_deleted_at_once_under_file_ops", eprobes_deleted_at_once)
s.run("synthetic_deleted_under_file_ops", synthetic_deleted)
s.run("module_unloaded_under_file_ops", module_unloaded)
s.run("instance_removed_under_file_ops", instance_removed)
s.run("kernfs_events_reloaded_under_file_ops", kernfs_events_reloaded)
s.run("kprobe_visible_when_write_returns", kprobe_visible_when_write_returns)
s.run("synthetic_visible_when_write_returns",
      synthetic_visible_when_write_returns)
s.run("instance_whole_when_mkdir_returns", instance_whole_when_mkdir_returns)
s.run("held_numbers_do_not_lock_directory", held_numbers_do_not_lock_directory)
s.finish()
