#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The mirror of the running kernel's events tree, compared with tracefs
in the same boot: the same paths and modes, the same bytes, writes that
act on tracing, directories that follow kprobe events, modules and
instances, -ENODEV on a removed event's open file, and a tar of the whole
tree equal to cat of tracefs's files.

Directories appear and disappear shortly after tracing's change (a work
item builds them), so each check first waits for the mirror to settle.
"""
import errno
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402
from tracefs import TRACEFS, content, read, settle, write  # noqa: E402
MNT = os.environ["KFE_MNT"]
TOP = os.environ["KFE_TOP"]
# Files whose bytes never change while the checks run.
STATIC = {"format", "id", "header_page", "header_event"}
PROBE = "kfe_probe"
# On a function the checks never call: with the probe on do_sys_openat2,
# which the enable writer of the stress below runs itself, the 6.12.118
# debug kernel under TCG once jumped to address 0 from the ftrace
# trampoline while the probe was being enabled and disabled.
PROBE_DEF = f"p:{PROBE} ksys_sync"

s = Suite("kfe_trace_mirror")
kprobe_events = os.path.join(TRACEFS, "kprobe_events")


def tree(top):
    """{relative path: st_mode} of the events tree under TOP."""
    out = {}
    for d, dirs, files in os.walk(top):
        rel = os.path.relpath(d, top)
        out[rel] = os.lstat(d).st_mode
        for f in files:
            out[os.path.join(rel, f)] = os.lstat(os.path.join(d, f)).st_mode
    return out


def delete_probe():
    """Delete the kprobe event (appending, as >> does); 0 or the errno."""
    return write(kprobe_events, f"-:{PROBE}\n", os.O_APPEND)


def same_tree(ours, theirs):
    try:
        return tree(ours) == tree(theirs)
    except FileNotFoundError:  # a directory went away during the walk
        return False


def tree_diff(ours, theirs):
    a, b = tree(ours), tree(theirs)
    lines = [f"only in tracefs: {p}" for p in sorted(set(b) - set(a))][:20]
    lines += [f"only in ours: {p}" for p in sorted(set(a) - set(b))][:20]
    lines += [f"mode of {p}: {a[p]:o} != {b[p]:o}"
              for p in sorted(set(a) & set(b)) if a[p] != b[p]][:20]
    return "\n".join(lines)


def check_tree(name, ours, theirs):
    ok = settle(lambda: same_tree(ours, theirs))
    s.check(name, ok, "" if ok else tree_diff(ours, theirs))
    return ok


# 1. The top level tree: same paths, same modes.
events, tevents = os.path.join(MNT, "events"), os.path.join(TRACEFS, "events")
check_tree("top_level_same_paths_and_modes", events, tevents)
t = tree(tevents)
systems = [p for p in t if p != "." and os.sep not in p]
nr_events = sum(1 for p in t if p.count(os.sep) == 1 and
                os.path.isdir(os.path.join(tevents, p)))
print(f"# mirrored {len(systems)} systems and {nr_events} events,"
      f" {len(t)} paths", file=sys.stderr)
s.check("mirrors_many_events", nr_events > 100 and len(systems) > 5,
        f"{len(systems)} systems, {nr_events} events")
s.check("ftrace_system_has_no_enable_or_filter",
        os.path.isdir(os.path.join(events, "ftrace")) and
        not os.path.exists(os.path.join(events, "ftrace", "enable")) and
        not os.path.exists(os.path.join(events, "ftrace", "filter")))

# 2. Byte for byte: format, id, header_page, header_event.
compared, differ = 0, []
for p in sorted(t):
    if os.path.basename(p) in STATIC:
        compared += 1
        if read(os.path.join(events, p)) != read(os.path.join(tevents, p)):
            differ.append(p)
print(f"# compared {compared} format/id/header files byte for byte",
      file=sys.stderr)
s.check("static_files_byte_identical", compared > 200 and not differ,
        f"{compared} compared; differ: {differ[:10]}")

# 3. enable, both ways, and the trace records the event.
ev = "sched/sched_switch"
ours_en, their_en = (os.path.join(d, ev, "enable") for d in (events, tevents))
write(os.path.join(TRACEFS, "trace"), "")
s.check_eq("enable_through_ours", write(ours_en, "1"), 0)
s.check_eq("enable_seen_in_tracefs", read(their_en), b"1\n")
time.sleep(0.2)
s.check("trace_records_enabled_event",
        b"sched_switch:" in read(os.path.join(TRACEFS, "trace")))
write(ours_en, "0")
s.check_eq("disable_seen_in_tracefs", read(their_en), b"0\n")
write(their_en, "1")
s.check_eq("enable_through_tracefs_seen_in_ours", read(ours_en), b"1\n")
write(their_en, "0")
s.check_eq("bad_enable_value_same_errno", write(ours_en, "2"),
           write(their_en, "2"))

# 4. A filter syntax error: the same errno, and the same state as the
# same write to tracefs leaves (the filter off, the error shown).
ours_f, their_f = (os.path.join(d, ev, "filter") for d in (events, tevents))
BAD = "prev_pid =="
err_ours = write(ours_f, BAD)
after_ours, ours_view = read(their_f), read(ours_f)
write(their_f, "0")
err_theirs = write(their_f, BAD)
after_theirs = read(their_f)
write(their_f, "0")
s.check("filter_syntax_error_same_errno", err_ours and err_ours == err_theirs,
        f"ours {err_ours}, tracefs {err_theirs}")
s.check_eq("filter_error_same_state_as_tracefs", after_ours, after_theirs)
s.check_eq("filter_error_same_bytes_through_ours", ours_view, after_ours)
s.check_eq("good_filter_through_ours", write(ours_f, "prev_pid == 1"), 0)
s.check_eq("good_filter_seen_in_tracefs", read(their_f), b"prev_pid == 1\n")
write(ours_f, "0")
s.check_eq("filter_cleared", read(their_f), b"none\n")

# A system filter sets its events' filters: their sizes follow.
sys_f = os.path.join(events, "sched", "filter")
s.check_eq("system_filter_through_ours", write(sys_f, "common_pid == 1"), 0)
s.check_eq("system_filter_seen_in_tracefs_event",
           read(their_f), b"common_pid == 1\n")
s.check_eq("event_filter_size_follows_system_filter",
           os.stat(ours_f).st_size, len(read(their_f)))
write(sys_f, "0")
s.check_eq("event_filter_size_after_clearing",
           os.stat(ours_f).st_size, len(read(their_f)))

# 5. kprobe events come and go; a held enable fd gets -ENODEV.
probe = os.path.join(events, "kprobes", PROBE)
s.check_eq("kprobe_created", write(kprobe_events, PROBE_DEF), 0)
s.check("kprobe_dir_appears", settle(lambda: os.path.isdir(probe)))
s.check("kprobe_format_identical", os.path.exists(probe) and
        read(os.path.join(probe, "format")) ==
        read(os.path.join(tevents, "kprobes", PROBE, "format")))
held = os.open(os.path.join(probe, "enable"), os.O_WRONLY)
s.check_eq("kprobe_deleted", delete_probe(), 0)
s.check("kprobe_dir_disappears", settle(lambda: not os.path.exists(probe)))
try:
    os.write(held, b"1")
    got = 0
except OSError as e:
    got = e.errno
s.check_eq("held_fd_of_removed_event_gives_enodev", got, errno.ENODEV)
os.close(held)
s.check("kprobes_system_disappears",
        settle(lambda: not os.path.exists(os.path.join(events, "kprobes"))))

# A synthetic event, another kind of dynamic event.
synth = os.path.join(events, "synthetic", "kfe_synth")
synthetic_events = os.path.join(TRACEFS, "synthetic_events")
s.check_eq("synthetic_created", write(synthetic_events, "kfe_synth u64 lat"), 0)
s.check("synthetic_dir_appears", settle(lambda: os.path.isdir(synth)))
s.check("synthetic_format_identical", os.path.isdir(synth) and
        read(os.path.join(synth, "format")) ==
        read(os.path.join(tevents, "synthetic", "kfe_synth", "format")))
s.check_eq("synthetic_deleted",
           write(synthetic_events, "!kfe_synth\n", os.O_APPEND), 0)
s.check("synthetic_dir_disappears",
        settle(lambda: not os.path.exists(os.path.dirname(synth))))

# 6. A module's events come and go with it.
ko = os.path.join(TOP, "tests", "trace_module", "kfe_trace_event.ko")
mod_dir = os.path.join(events, "kfe_test", "kfe_test_hello")
s.check_eq("module_loaded", subprocess.call(["insmod", ko]), 0)
s.check("module_event_appears", settle(lambda: os.path.isdir(mod_dir)))
s.check("module_event_format_identical", os.path.isdir(mod_dir) and
        read(os.path.join(mod_dir, "format")) ==
        read(os.path.join(tevents, "kfe_test", "kfe_test_hello", "format")))
s.check_eq("module_unloaded", subprocess.call(["rmmod", "kfe_trace_event"]), 0)
s.check("module_event_disappears",
        settle(lambda: not os.path.exists(os.path.dirname(mod_dir))))


# 7. Concurrent enable writes and kprobe deletion: under lockdep, a
# removal that waited for a writer waiting for event_mutex is reported.
def stress(seconds=8):
    stop = time.time() + seconds
    writes = [0]

    def writer():
        while time.time() < stop:
            for v in ("1", "0"):
                if write(os.path.join(probe, "enable"), v) == 0:
                    writes[0] += 1

    th = threading.Thread(target=writer)
    th.start()
    cycles = 0
    while time.time() < stop:
        if write(kprobe_events, PROBE_DEF) == 0:
            settle(lambda: os.path.isdir(probe), 5)
            time.sleep(0.05)
            write(os.path.join(TRACEFS, "events", "kprobes", PROBE, "enable"), "0")
            delete_probe()
            cycles += 1
    th.join()
    write(kprobe_events, "")
    print(f"# stress: {cycles} kprobe add/remove cycles, {writes[0]} enable writes",
          file=sys.stderr)
    if cycles < 3 or writes[0] < 1:
        raise AssertionError(f"{cycles} cycles, {writes[0]} writes")


s.run("concurrent_enable_and_kprobe_removal", stress)


def lockdep_edges():
    """{class name: names of the classes lockdep saw taken inside it}."""
    edges, cur = {}, None
    with open("/proc/lockdep") as f:
        for line in f:
            if line.startswith(" -> "):
                edges[cur].add(line.split("] ", 1)[1].strip())
            elif ": " in line and not line.startswith(" "):
                cur = line.rsplit(": ", 1)[1].strip()
                edges.setdefault(cur, set())
    return edges


# The stress proves something only if lockdep tracks our active
# references: it must have seen event_mutex taken inside one, so that a
# removal under event_mutex would close a cycle it reports.
edges = lockdep_edges()
s.check("lockdep_saw_event_mutex_inside_active_ref",
        any(n.startswith("kn->active") and "event_mutex" in deps
            for n, deps in edges.items()))
s.check("stress_leaves_no_probe",
        settle(lambda: not os.path.exists(os.path.join(events, "kprobes"))))

# 8. Instances: instances/NAME/events mirrors tracefs's, and goes away.
inst = os.path.join(TRACEFS, "instances", "kfe")
os.mkdir(inst)
check_tree("instance_same_paths_and_modes",
           os.path.join(MNT, "instances", "kfe", "events"),
           os.path.join(inst, "events"))
ours_ie = os.path.join(MNT, "instances", "kfe", "events", ev, "enable")
write(ours_ie, "1")
s.check_eq("instance_enable_acts_on_instance_only",
           (read(os.path.join(inst, "events", ev, "enable")), read(their_en)),
           (b"1\n", b"0\n"))
write(ours_ie, "0")
os.rmdir(inst)
s.check("instance_disappears", settle(
    lambda: not os.path.exists(os.path.join(MNT, "instances", "kfe"))))


# 9. tar of the whole tree: no warning, every file equal to cat of tracefs's.
def tar_tree():
    with tempfile.TemporaryDirectory() as tmp:
        tar = subprocess.run(f"tar cf - -C {MNT} events | tar xf - -C {tmp}",
                             shell=True, capture_output=True)
        if tar.returncode or tar.stderr:
            raise AssertionError(f"tar: {tar.returncode} {tar.stderr!r}")
        bad, n = [], 0
        for d, _, files in os.walk(os.path.join(tmp, "events")):
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), tmp)
                n += 1
                # A write-only file (inject) is copied empty, as from
                # tracefs, whose read of it fails.
                theirs = content(os.path.join(TRACEFS, rel)) or b""
                if read(os.path.join(d, f)) != theirs:
                    bad.append(rel)
        print(f"# tar: {n} files extracted and compared with tracefs",
              file=sys.stderr)
        if bad or n < 1000:
            raise AssertionError(f"{n} files; differ: {bad[:10]}")


s.run("tar_whole_tree_equals_tracefs", tar_tree)
s.finish()
