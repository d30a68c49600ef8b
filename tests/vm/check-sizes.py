#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""st_size on the real mirror after tracing was changed behind its back.

Through tracefs, as trace-cmd and scripts do: an event filter, a trigger
that soft-enables another event, a system filter, a histogram that events
keep filling, and an instance whose events/enable is set. Then, on the
mirror (size=exact), every readable file of the sched system and of the
instance reports the length a read returns, and tar and rsync -a copies
of the system equal cat of tracefs's files with no warning. Last, the one
window left: a histogram that grows between stat and read, counted.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402
from tracefs import TRACEFS, content, read, settle, write  # noqa: E402

MNT = os.environ["KFE_MNT"]
INSTANCE = "kfe_sizes"
SCHED = os.path.join("events", "sched")
SWITCH = os.path.join(SCHED, "sched_switch")
EXEC = os.path.join(SCHED, "sched_process_exec")

s = Suite("kfe_sizes")


def tracefs(rel, data, flags=os.O_TRUNC):
    err = write(os.path.join(TRACEFS, rel), data, flags)
    if err:
        raise OSError(err, f"{data!r} > {rel}")


def readable_files(top):
    for d, _, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            if os.stat(p).st_mode & 0o444:
                yield p


def mismatches(top, changing=()):
    """Files under TOP whose st_size is not the length of a read that
    follows. A file named in CHANGING may change in between: it must
    match on one of three tries."""
    bad = []
    for p in readable_files(top):
        for _ in range(3 if os.path.basename(p) in changing else 1):
            size, data = os.stat(p).st_size, read(p)
            if size == len(data):
                break
        else:
            bad.append(f"{os.path.relpath(p, MNT)}: size {size}, read {len(data)}")
    return bad


def look(top):
    """stat and read every file under TOP, as ls -l and cat do: a mirror
    that fixed sizes when it first showed a file fixes them now."""
    n = 0
    for p in readable_files(top):
        os.stat(p)
        read(p)
        n += 1
    return n


def changes():
    """What trace-cmd and scripts change through tracefs, after the
    mirror's files were first looked at."""
    os.mkdir(os.path.join(TRACEFS, "instances", INSTANCE))
    inst = os.path.join(MNT, "instances", INSTANCE, "events")
    if not settle(lambda: os.path.exists(os.path.join(inst, "enable"))):
        raise AssertionError("the instance was not mirrored")
    n = look(os.path.join(MNT, SCHED)) + look(inst)
    print(f"# {n} files looked at before the changes", file=sys.stderr)
    tracefs(os.path.join(SWITCH, "filter"), "common_pid > 0")
    tracefs(os.path.join(SWITCH, "trigger"), "enable_event:sched:sched_wakeup")
    tracefs(os.path.join(SWITCH, "trigger"), "hist:keys=common_pid",
            os.O_APPEND)
    tracefs(os.path.join(EXEC, "trigger"), "hist:keys=common_pid",
            os.O_APPEND)
    tracefs(os.path.join(SCHED, "sched_wakeup_new", "filter"), "prio < 200")
    tracefs(os.path.join(SCHED, "sched_waking", "filter"), "prio > 0")
    tracefs(os.path.join(SCHED, "sched_process_fork", "filter"), "0")
    tracefs(os.path.join("events", "sched", "filter"), "common_pid != 1")
    # Every event enabled, none recorded: enable reads 1, nothing slows.
    tracefs(os.path.join("instances", INSTANCE, "tracing_on"), "0")
    tracefs(os.path.join("instances", INSTANCE, "events", "enable"), "1")
    for _ in range(5):  # events for the exec histogram
        subprocess.run(["true"])


def undo():
    for ev, cmds in ((SWITCH, ("hist:keys=common_pid",
                               "enable_event:sched:sched_wakeup")),
                     (EXEC, ("hist:keys=common_pid",))):
        for cmd in cmds:
            write(os.path.join(TRACEFS, ev, "trigger"), "!" + cmd, os.O_APPEND)
    write(os.path.join(TRACEFS, SCHED, "filter"), "0")
    inst = os.path.join(TRACEFS, "instances", INSTANCE)
    if os.path.isdir(inst):
        write(os.path.join(inst, "events", "enable"), "0")
        os.rmdir(inst)


def contents_seen():
    """The changes are visible in the mirror's bytes, so that the size
    checks below look at content that changed."""
    ours = os.path.join(MNT, SCHED)
    # Soft-enabled: "0*", or "1*" once the trigger has fired.
    assert read(os.path.join(ours, "sched_wakeup", "enable")) in (b"0*\n", b"1*\n")
    assert read(os.path.join(ours, "sched_switch", "filter")) != b"none\n"
    assert b"hist:keys=common_pid" in read(os.path.join(ours, "sched_switch", "trigger"))
    assert b"Totals" in read(os.path.join(ours, "sched_process_exec", "hist"))
    inst = os.path.join(MNT, "instances", INSTANCE, "events")
    assert read(os.path.join(inst, "enable")) == b"1\n"


def sizes_exact():
    bad = mismatches(os.path.join(MNT, SCHED), changing=("hist",))
    bad += mismatches(os.path.join(MNT, "instances", INSTANCE, "events"))
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:20])


def copies_equal_tracefs(copy):
    """COPY(src, dst) copies the mirror's sched system but for the
    switch histogram, which grows (see window()); every file must equal
    cat of tracefs's."""
    with tempfile.TemporaryDirectory() as tmp:
        dst = os.path.join(tmp, "sched")
        out = copy(os.path.join(MNT, SCHED), dst)
        if out.returncode or out.stderr:
            raise AssertionError(f"exit {out.returncode}: {out.stderr!r}")
        bad, n = [], 0
        for d, _, files in os.walk(dst):
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), dst)
                n += 1
                # A write-only file (inject) is copied empty: tracefs
                # reports size 0 for it, and its read fails.
                theirs = content(os.path.join(TRACEFS, SCHED, rel)) or b""
                if read(os.path.join(d, f)) != theirs:
                    bad.append(rel)
        print(f"# {copy.__name__}: {n} files equal to tracefs's",
              file=sys.stderr)
        assert n > 50 and not bad, f"{n} files; differ: {bad[:10]}"


GROWING = os.path.join("sched_switch", "hist")


def tar(src, dst):
    os.mkdir(dst)
    return subprocess.run(f"tar cf - -C {src} --exclude=./{GROWING} . |"
                          f" tar xf - -C {dst}", shell=True, capture_output=True)


def rsync(src, dst):
    return subprocess.run(["rsync", "-a", f"--exclude=/{GROWING}", src + "/",
                           dst], capture_output=True)


def window(rounds=200):
    """The switch histogram grows with context switches: count how often
    a stat and the read right after it disagree, and how often tar of it
    warns. A histogram only grows, so a stat never reports more than the
    read after it returns."""
    hist = os.path.join(MNT, SWITCH, "hist")
    differ, more, warned = 0, [], 0
    # Two context switches every half millisecond, beside the loop.
    switcher = subprocess.Popen([sys.executable, "-c",
                                 "import time\nwhile 1: time.sleep(0.0005)"])
    try:
        first = read(hist)
        for _ in range(rounds):
            size, data = os.stat(hist).st_size, read(hist)
            differ += size != len(data)
            if size > len(data):
                more.append(f"stat {size} > read {len(data)}")
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(rounds // 10):
                out = subprocess.run(["tar", "cf", os.path.join(tmp, "h.tar"),
                                      "-C", os.path.dirname(hist), "hist"],
                                     capture_output=True)
                warned += bool(out.returncode or out.stderr)
        grew = len(read(hist)) - len(first)
    finally:
        switcher.kill()
        switcher.wait()
    print(f"# window: stat and read differed in {differ} of {rounds} rounds;"
          f" tar warned {warned} of {rounds // 10} times; the histogram"
          f" grew by {grew} bytes", file=sys.stderr)
    assert grew > 0, "no event arrived: the window was not exercised"
    assert not more, "\n".join(more[:10])


try:
    s.run("tracefs_changes_made_after_a_first_look", changes)
    s.run("tracefs_changes_seen_in_mirror", contents_seen)
    s.run("sizes_exact_after_tracefs_changes", sizes_exact)
    s.run("tar_equals_tracefs", copies_equal_tracefs, tar)
    s.run("rsync_equals_tracefs", copies_equal_tracefs, rsync)
    s.run("stat_read_window_counted", window)
finally:
    undo()
s.check("instance_gone_from_mirror", settle(
    lambda: not os.path.exists(os.path.join(MNT, "instances", INSTANCE))))
s.finish()
