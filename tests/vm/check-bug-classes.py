#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One test per kind of bug that eventfs had
(Documentation/eventfs-lessons.rst), run against kernfs_events under
KASAN, lockdep and kmemleak.

Each case is named after its number here and says, in its docstring,
what it would catch; the numbers missing were bugs of eventfs internals
with no counterpart in kernfs. vm-run fails the whole run on any splat,
so a case that only "survives" (classes 4, 5, 6, 14, 30) fails there if
the kernel does not.
"""
import ctypes
import errno
import os
import select
import stat
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from failslab import inject  # noqa: E402
from kprobes import kprobe  # noqa: E402
import ktap  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
EVENTS = os.path.join(MNT, "events")
KPROBES = os.path.join(EVENTS, "kprobes")
PROBE = "kfe_bug"
PROBE_DIR = os.path.join(KPROBES, PROBE)
# The files of an event that every kernel config has and root can read.
PROBE_FILES = ("enable", "filter", "format", "id", "trigger")
INSTANCE = "kfe_bug_inst"
CHURN_SECONDS = 4



class Suite(ktap.Suite):
    """A ktap.Suite that keeps what a case said with note() as KTAP
    diagnostics of that case, whether it passed or not."""

    def __init__(self, name):
        super().__init__(name)
        self.notes = []

    def note(self, msg):
        print(f"# {msg}", file=sys.stderr, flush=True)
        self.notes.append(msg)

    def check(self, name, ok, diag=""):
        ok = super().check(name, ok, diag)
        self.cases[-1][2][:0] = self.notes
        self.notes = []
        return ok


s = Suite("kfe_bug_classes")


def add_probe(name=PROBE):
    return kprobe(f"p:{name} ksys_sync")


def del_probe(name=PROBE):
    return kprobe(f"-:{name}")


def settle(cond, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def errno_of(fn, *args):
    try:
        fn(*args)
        return 0
    except OSError as e:
        return e.errno


def remount(opts):
    subprocess.run(["mount", "-o", f"remount,{opts}", MNT], check=True)


def nodes(top):
    """Every path under TOP, TOP included."""
    out = [top]
    for d, dirs, files in os.walk(top):
        out += [os.path.join(d, n) for n in dirs + files]
    return out


def need(cond, what):
    if not cond:
        raise AssertionError(what)


def churn(readers, seconds=CHURN_SECONDS):
    """Create and delete a kprobe event while READERS run in threads.

    The mirror builds an event's directory after tracing made it, so
    each cycle waits until the mirror shows the event, then deletes it
    20 ms later: the readers get something to race. A reader is called
    as READER(hit) in a loop and calls hit() for every operation that
    reached the event (found, listed, opened or wrote it). A reader may
    see a name vanish (ENOENT, ENODEV); any other error fails the case,
    and so does a reader none of whose operations reached the event:
    then it raced nothing.
    """
    stop = time.time() + seconds
    errors = []
    reached = [0] * len(readers)
    calls = [0] * len(readers)

    def run(i, fn):
        def hit():
            reached[i] += 1
        while time.time() < stop:
            calls[i] += 1
            try:
                fn(hit)
            except (FileNotFoundError, ProcessLookupError):
                pass
            except OSError as e:
                if e.errno not in (errno.ENOENT, errno.ENODEV):
                    errors.append(f"{fn.__name__}: {e}")
    threads = [threading.Thread(target=run, args=(i, fn))
               for i, fn in enumerate(readers)]
    for t in threads:
        t.start()
    cycles = shown = 0
    while time.time() < stop:
        add_probe()
        shown += settle(lambda: os.path.isdir(PROBE_DIR), 5)
        time.sleep(0.02)
        # EBUSY while a reader has the event enabled: try again, for a
        # while, so that a slow host still completes its cycles.
        cycles += settle(lambda: del_probe() == 0, 2)
    for t in threads:
        t.join()
    del_probe()
    s.note(f"{cycles} create/delete cycles, the event mirrored in {shown}")
    for fn, n, c in zip(readers, reached, calls):
        s.note(f"{fn.__name__}: {n} operations reached the event, in {c} calls")
    need(not errors, "; ".join(errors[:5]))
    need(cycles >= 3, f"only {cycles} create/delete cycles")
    for fn, n in zip(readers, reached):
        need(n > 0, f"{fn.__name__}: no operation reached the event: "
             f"nothing raced its removal")


def class01():
    """A held enable fd of a removed event: -ENODEV, no use-after-free."""
    need(add_probe() == 0, "kprobe not created")
    need(settle(lambda: os.path.isdir(PROBE_DIR)), "not mirrored")
    fd = os.open(os.path.join(PROBE_DIR, "enable"), os.O_WRONLY | os.O_APPEND)
    try:
        need(del_probe() == 0, "kprobe not deleted")
        need(settle(lambda: not os.path.exists(PROBE_DIR)), "dir stayed")
        err = errno_of(os.write, fd, b"1")
        need(err == 19, f"write after removal gave errno {err}, want ENODEV")
    finally:
        os.close(fd)


def class02():
    """format, filter, trigger, id read after removal: -ENODEV, and poll
    reports the removal at once (POLLERR), which it did not before."""
    need(add_probe() == 0, "kprobe not created")
    need(settle(lambda: os.path.isdir(PROBE_DIR)), "not mirrored")
    names = [n for n in ("format", "filter", "trigger", "id", "hist")
             if os.path.exists(os.path.join(PROBE_DIR, n))]
    fds = [os.open(os.path.join(PROBE_DIR, n), os.O_RDONLY) for n in names]
    try:
        # kernfs polls a file that was never read as changed (POLLERR):
        # read each once, and then only the removal can set POLLERR.
        for n, fd in zip(names, fds):
            os.read(fd, 4096)
            got = poll(fd)
            need(not got & select.POLLERR,
                 f"poll of {n} before removal gave {poll_bits(got)}")
        need(del_probe() == 0, "kprobe not deleted")
        need(settle(lambda: not os.path.exists(PROBE_DIR)), "dir stayed")
        for n, fd in zip(names, fds):
            err = errno_of(os.read, fd, 4096)
            need(err == 19, f"read of {n} after removal gave errno {err}")
            # At once, and with POLLERR: no waiting for a dead file.
            got = poll(fd)
            need(got & select.POLLERR and not got & select.POLLNVAL,
                 f"poll of {n} after removal gave {poll_bits(got)}, "
                 f"want POLLERR")
    finally:
        for fd in fds:
            os.close(fd)


def poll(fd):
    """What poll() with no timeout reports of FD, as a reader would ask."""
    p = select.poll()
    p.register(fd, select.POLLIN | select.POLLPRI)
    return dict(p.poll(0)).get(fd, 0)


def poll_bits(mask):
    names = [n for n in ("POLLIN", "POLLPRI", "POLLOUT", "POLLERR",
                         "POLLHUP", "POLLNVAL") if mask & getattr(select, n)]
    return "|".join(names) or "nothing"


def class03():
    """A failed open (injected allocation failure) must not pin the
    instance: rmdir of the instance succeeds afterwards."""
    inst = os.path.join(TRACEFS, "instances", INSTANCE)
    os.mkdir(inst)
    try:
        ev = os.path.join(MNT, "instances", INSTANCE, "events", "sched",
                          "sched_switch", "format")
        need(settle(lambda: os.path.exists(ev)), "instance not mirrored")
        failures = 0
        for n in range(1, 200):
            err, reached = inject(n, lambda: os.close(os.open(ev, os.O_RDONLY)))
            failures += bool(err)
            if not reached:
                break
        s.note(f"open failed {failures} times before it succeeded")
        need(failures > 0, "no allocation of open() could be failed")
    finally:
        err = errno_of(os.rmdir, inst)
    need(err == 0, f"rmdir of the instance gave errno {err}")


def class04():
    """getdents of events/kprobes racing creation and removal."""
    def lister(hit):
        if PROBE in os.listdir(KPROBES):
            hit()
    churn([lister, lister])


def of_probe(path):
    return path == PROBE_DIR or path.startswith(PROBE_DIR + "/")


def class05():
    """lookup, stat, getdents and read of events/kprobes/* during churn."""
    def stat_all(hit):
        for n in nodes(KPROBES):
            os.lstat(n)
            if of_probe(n):
                hit()

    def read_all(hit):
        # By name, without a listing first: the event lives for a few
        # tens of milliseconds, and a walk of the whole system reached
        # it in none of 163 calls in a CI run.
        for name in PROBE_FILES:
            with open(os.path.join(PROBE_DIR, name), "rb") as f:
                hit()
                f.read()
    churn([stat_all, read_all])


def class06():
    """remount uid= racing creation and removal; uids consistent after."""
    stop = threading.Event()

    def remounter():
        uid = 0
        while not stop.is_set():
            uid = uid % 7 + 1
            remount(f"uid={uid}")
    def lister(hit):
        if "kprobes" in os.listdir(EVENTS):
            hit()
    t = threading.Thread(target=remounter)
    t.start()
    try:
        churn([lister])
    finally:
        stop.set()
        t.join()
    remount("uid=4242")
    bad = [n for n in nodes(os.path.join(EVENTS, "sched"))
           if os.lstat(n).st_uid != 4242]
    remount("uid=0")
    need(not bad, f"{len(bad)} nodes kept another uid, e.g. {bad[:2]}")


def class07():
    """find reports no loops; every directory's inode number is unique."""
    r = subprocess.run(["find", EVENTS], capture_output=True, text=True)
    need(r.returncode == 0 and not r.stderr, r.stderr[:300])
    dirs = [os.lstat(n).st_ino for n in nodes(EVENTS) if os.path.isdir(n)]
    need(len(dirs) == len(set(dirs)), "duplicate directory inode numbers")


def class08():
    """No directory shares an inode number with a file."""
    d, f = set(), set()
    for n in nodes(EVENTS):
        st = os.lstat(n)
        (d if stat.S_ISDIR(st.st_mode) else f).add(st.st_ino)
    need(not d & f, f"shared: {sorted(d & f)[:5]}")
    need(len(f) > 1, "all files share one inode number")


def class10():
    """readdir's d_ino and d_type match lstat's st_ino and type."""
    bad = []
    for d, _, _ in os.walk(os.path.join(EVENTS, "sched")):
        for e in os.scandir(d):
            st = os.lstat(e.path)
            if e.inode() != st.st_ino or \
                    e.is_dir(follow_symlinks=False) != stat.S_ISDIR(st.st_mode):
                bad.append(e.path)
    need(not bad, f"differ: {bad[:3]}")


def inode_count():
    with open("/proc/sys/fs/inode-nr") as f:
        return int(f.read().split()[0])


def class11():
    """getdents alone makes no inodes (eventfs once made one per entry)."""
    big = max((e.path for e in os.scandir(EVENTS) if e.is_dir()),
              key=lambda p: len(os.listdir(p)))
    os.listdir(big)			# populate the lazy directory
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3")
    before = inode_count()
    entries = len(os.listdir(big))
    made = inode_count() - before
    need(made < entries // 4, f"listing {entries} entries made {made} inodes")


def getdents64(fd, size):
    """One getdents64() call with a SIZE-byte buffer: the names read."""
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(size)
    n = libc.syscall(217, fd, buf, size)
    if n < 0:
        raise OSError(ctypes.get_errno(), "getdents64")
    names, pos = [], 0
    while pos < n:
        reclen = int.from_bytes(buf.raw[pos + 16:pos + 18], "little")
        names.append(buf.raw[pos + 19:pos + reclen].split(b"\0")[0].decode())
        pos += reclen
    return names


def class13():
    """Entries already listed are removed, and one added, while a directory
    is half read: no survivor twice, none skipped, no crash.  kernfs keeps
    its place at the first entry not yet listed, which stays; when that
    entry itself goes, kernfs may repeat or skip one (the guide's
    concepts.rst, tested by the kernfs_guide suite)."""
    names = [f"{PROBE}{i}" for i in range(8)]
    for n in names:
        need(add_probe(n) == 0, f"kprobe {n} not created")
    need(settle(lambda: all(n in os.listdir(KPROBES) for n in names)),
         "not mirrored")
    fd = os.open(KPROBES, os.O_RDONLY | os.O_DIRECTORY)
    gone = []
    try:
        seen = getdents64(fd, 128)
        gone = [n for n in names if n in seen]
        for n in gone:
            del_probe(n)
        add_probe(f"{PROBE}new")
        time.sleep(0.5)
        while True:
            more = getdents64(fd, 128)
            if not more:
                break
            seen += more
    finally:
        os.close(fd)
        for n in [n for n in names if n not in gone] + [f"{PROBE}new"]:
            del_probe(n)
    need(gone, "the first getdents64() listed none of the probes")
    need(len(gone) < len(names), "the first getdents64() listed them all")
    dup = {n for n in seen if seen.count(n) > 1}
    need(not dup, f"listed twice: {sorted(dup)}")
    need(all(n in seen for n in names if n not in gone),
         "a surviving entry was skipped")


def class14():
    """A partial getdents of the root, then remount gid=: no crash."""
    fd = os.open(MNT, os.O_RDONLY | os.O_DIRECTORY)
    try:
        getdents64(fd, 64)
        remount("gid=4243")
        while getdents64(fd, 64):
            pass
    finally:
        os.close(fd)
        remount("gid=0")


def class15():
    """Every directory's nlink is 2 plus its subdirectories."""
    bad = []
    for d, dirs, _ in os.walk(EVENTS):
        if os.lstat(d).st_nlink != 2 + len(dirs):
            bad.append(d)
    need(not bad, f"wrong nlink: {bad[:3]}")


def class16():
    """tar archives the content: format files are not empty."""
    r = subprocess.run(f"tar -cf - -C {EVENTS} sched/sched_switch | tar -tvf -",
                       shell=True, capture_output=True, text=True, check=True)
    fmt = [ln for ln in r.stdout.splitlines() if ln.endswith("/format")]
    need(fmt and int(fmt[0].split()[2]) > 0, f"archived: {fmt}")
    want = open(os.path.join(TRACEFS, "events/sched/sched_switch/format"), "rb").read()
    need(int(fmt[0].split()[2]) == len(want), "archived size is not the content's")


def all_gid(top, gid):
    return [n for n in nodes(top) if os.lstat(n).st_gid != gid]


def class18():
    """gid= applies to every node, looked up before or not; modes kept."""
    inst = os.path.join(TRACEFS, "instances", INSTANCE)
    os.mkdir(inst)
    try:
        top = os.path.join(MNT, "instances", INSTANCE)
        need(settle(lambda: os.path.exists(top)), "instance not mirrored")
        modes = {n: os.lstat(n).st_mode for n in nodes(os.path.join(EVENTS, "sched"))}
        remount("gid=4244")
        bad = all_gid(top, 4244) + all_gid(os.path.join(EVENTS, "sched"), 4244)
        changed = [n for n, m in modes.items() if os.lstat(n).st_mode != m]
    finally:
        remount("gid=0")
        os.rmdir(inst)
    need(not bad, f"{len(bad)} nodes without the gid, e.g. {bad[:2]}")
    need(not changed, f"modes changed: {changed[:2]}")


def class19():
    """The same remount, twice in a row, with two gids: both apply."""
    for gid in (4245, 4246):
        remount(f"gid={gid}")
        bad = all_gid(os.path.join(EVENTS, "sched"), gid)
        need(not bad, f"gid {gid}: {len(bad)} nodes missed")
    remount("gid=0")


def class20():
    """chmod and chown persist across reclaim of the inode."""
    f = os.path.join(EVENTS, "sched", "sched_switch", "enable")
    old = os.lstat(f)
    os.chmod(f, 0o600)
    os.chown(f, 4247, 4248)
    with open("/proc/sys/vm/drop_caches", "w") as d:
        d.write("3")
    st = os.lstat(f)
    os.chmod(f, stat.S_IMODE(old.st_mode))
    os.chown(f, old.st_uid, old.st_gid)
    need(stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == 4247 and
         st.st_gid == 4248, f"after reclaim: {oct(st.st_mode)} {st.st_uid}:{st.st_gid}")


def class21():
    """chgrp of a system directory does not propagate (as in eventfs)."""
    d = os.path.join(EVENTS, "sched")
    f = os.path.join(d, "sched_switch", "enable")
    old_d, old_f = os.lstat(d), os.lstat(f)
    os.chown(d, -1, 4249)
    gid = os.lstat(f).st_gid
    os.chown(d, -1, old_d.st_gid)
    need(gid == old_f.st_gid, f"file gid became {gid}")


def class22():
    """Instances follow gid=: made after the remount, and at the next one."""
    remount("gid=4250")
    inst = os.path.join(TRACEFS, "instances", INSTANCE)
    os.mkdir(inst)
    try:
        top = os.path.join(MNT, "instances", INSTANCE)
        need(settle(lambda: os.path.exists(top)), "instance not mirrored")
        bad = all_gid(top, 4250)
        need(not bad, f"new instance: {len(bad)} nodes without gid 4250")
        remount("gid=4251")
        bad = all_gid(top, 4251)
        need(not bad, f"after remount: {len(bad)} nodes without gid 4251")
    finally:
        remount("gid=0")
        os.rmdir(inst)


def class26():
    """cwd in a removed event directory: nothing stale in it, .. works,
    re-creation works."""
    need(add_probe() == 0, "kprobe not created")
    need(settle(lambda: os.path.isdir(PROBE_DIR)), "not mirrored")
    old = os.getcwd()
    os.chdir(PROBE_DIR)
    try:
        need(del_probe() == 0, "kprobe not deleted")
        need(settle(lambda: not os.path.exists(PROBE_DIR)), "dir stayed")
        # eventfs says ENOENT; kernfs, like sysfs, lists a removed
        # directory as empty. Either way no stale name shows.
        try:
            left = os.listdir(".")
        except FileNotFoundError:
            left = []
        need(left == [], f"the removed cwd still lists {left}")
        err = errno_of(os.stat, "enable")
        need(err == 2, f"stat of a file of the removed cwd gave errno {err}")
        os.chdir("..")
    finally:
        os.chdir(old)
    need(add_probe() == 0, "kprobe not re-created")
    ok = settle(lambda: os.path.exists(os.path.join(PROBE_DIR, "enable")))
    del_probe()
    need(ok, "the re-created event has no enable file")


def risk_i():
    """enable writes racing kprobe deletion: no deadlock, lockdep quiet."""
    def writer(hit):
        for v in (b"1", b"0"):
            fd = os.open(os.path.join(PROBE_DIR, "enable"), os.O_WRONLY)
            try:
                os.write(fd, v)
                hit()
            finally:
                os.close(fd)
    churn([writer])
    enable = os.path.join(TRACEFS, "events", "kprobes", PROBE, "enable")
    if os.path.exists(enable):
        with open(enable, "w") as f:
            f.write("0")
        need(del_probe() == 0, "the probe could not be deleted after the race")


def risk_ii():
    """rmdir of an instance while its files are open: succeeds, then -ENODEV."""
    inst = os.path.join(TRACEFS, "instances", INSTANCE)
    os.mkdir(inst)
    f = os.path.join(MNT, "instances", INSTANCE, "events", "sched",
                     "sched_switch", "enable")
    need(settle(lambda: os.path.exists(f)), "instance not mirrored")
    fd = os.open(f, os.O_RDONLY)
    try:
        err = errno_of(os.rmdir, inst)
        need(err == 0, f"rmdir gave errno {err}")
        err = errno_of(os.read, fd, 10)
        need(err == 19, f"read after rmdir gave errno {err}, want ENODEV")
    finally:
        os.close(fd)
        if os.path.exists(inst):
            os.rmdir(inst)


def past_mode(path, flags):
    """(errno of open, errno of the read or write that follows) of PATH,
    opened with FLAGS; 0 for success."""
    try:
        fd = os.open(path, flags)
    except OSError as e:
        return e.errno, None
    try:
        if flags == os.O_RDONLY:
            os.read(fd, 4096)
        else:
            os.write(fd, b"0")
        return 0, 0
    except OSError as e:
        return 0, e.errno
    finally:
        os.close(fd)


def risk_iv():
    """Root opens a file past its mode as in tracefs (CAP_DAC_OVERRIDE):
    a read-only file for writing, a write-only one (inject) for reading,
    and the write or read fails with the errno tracefs gives. Every such
    access to the files of the events directory, a system and an event."""
    tried = {"write": 0, "read": 0}
    diffs = []
    for rel in ("", "sched", "sched/sched_switch"):
        theirs = os.path.join(TRACEFS, "events", rel)
        for name in sorted(os.listdir(theirs)):
            mode = os.lstat(os.path.join(theirs, name)).st_mode
            if not stat.S_ISREG(mode):
                continue
            for how, flags, bits in (("write", os.O_WRONLY, 0o222),
                                     ("read", os.O_RDONLY, 0o444)):
                if mode & bits:
                    continue
                tried[how] += 1
                want = past_mode(os.path.join(theirs, name), flags)
                got = past_mode(os.path.join(EVENTS, rel, name), flags)
                if got != want:
                    diffs.append(f"{how} {rel}/{name}: (open, {how}) "
                                 f"errnos {got}, tracefs {want}")
    s.note(f"{tried['write']} writes to read-only files and "
           f"{tried['read']} reads of write-only files compared")
    need(not diffs, "; ".join(diffs))
    need(tried["write"], "no read-only file to compare")


for name, fn in [
        ("class01_file_used_after_event_removed", class01),
        ("class02_other_files_read_after_event_removed", class02),
        ("class03_failed_open_does_not_pin_instance", class03),
        ("class04_getdents_racing_removal", class04),
        ("class05_lookup_stat_read_during_churn", class05),
        ("class06_remount_racing_creation_and_removal", class06),
        ("class07_find_reports_no_loops", class07),
        ("class08_dir_and_file_inodes_disjoint", class08),
        ("class10_readdir_d_ino_is_st_ino", class10),
        ("class11_getdents_makes_no_inodes", class11),
        ("class13_entries_change_while_dir_half_read", class13),
        ("class14_partial_getdents_then_remount_gid", class14),
        ("class15_nlink_counts_subdirectories", class15),
        ("class16_tar_archives_content", class16),
        ("class18_gid_applies_to_unlooked_nodes", class18),
        ("class19_remount_gid_repeatable", class19),
        ("class20_chmod_chown_persist_across_reclaim", class20),
        ("class21_chgrp_of_dir_does_not_propagate", class21),
        ("class22_instances_follow_gid", class22),
        ("class26_cwd_in_removed_event_dir", class26),
        ("risk_i_enable_racing_removal_no_deadlock", risk_i),
        ("risk_ii_rmdir_instance_with_open_files", risk_ii),
        ("risk_iv_root_opens_past_mode_as_in_tracefs", risk_iv)]:
    s.run(name, fn)
s.finish()
