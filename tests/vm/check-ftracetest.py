#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel's own ftrace selftests, on tracefs and through the mirror.

ftracetest (tools/testing/selftests/ftrace of the source tree that
tools/kernel-build extracts) runs first on tracefs, then in a mount
namespace of its own where the mirror's events directory is bound over
/sys/kernel/tracing/events. Its tests that also run in a trace instance
make one with "mktemp -d .../instances/ftracetest.XXXXXX": a mktemp
first on PATH binds the mirror's events directory of the new instance
over tracefs's, so those runs go through the mirror too. /tmp is a
tmpfs in both namespaces: ftracetest keeps its work files there.

Each test is one case: it must pass on tracefs (anything else is this
guest's doing, not the mirror's) and give the same result through the
mirror; the instances that ftracetest made through the mirror are
counted. make check runs tests of the enable, filter and hist files
(about three minutes), and the kprobe test that creates probes and uses
them at once; make stress (KFE_STRESS=full) runs every test of event, filter,
trigger, kprobe, dynevent and instances.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402

MNT = os.environ["KFE_MNT"]
SELFTESTS = os.path.join(os.environ["KFE_SRC"], "tools", "testing", "selftests", "ftrace")
FULL = os.environ.get("KFE_STRESS") == "full"
TESTS = (["test.d/event", "test.d/filter", "test.d/trigger", "test.d/kprobe",
          "test.d/dynevent", "test.d/instances"] if FULL else
         ["test.d/event/event-enable.tc", "test.d/event/subsystem-enable.tc",
          "test.d/filter/event-filter-incomplete.tc", "test.d/trigger/trigger-hist.tc",
          "test.d/kprobe/kprobe_args_symbol.tc"])

# ftracetest makes a trace instance with mktemp -d: bind the mirror's
# copy of its events directory over tracefs's. The instance's mkdir
# returns once the mirror has all of it.
MKTEMP = """#!/bin/sh
d=$(/usr/bin/mktemp "$@") || exit
case $d in
/sys/kernel/tracing/instances/*)
	mount --bind "$KFE_MNT/instances/${d##*/}/events" "$d/events" ||
		{ echo "mktemp: no mirror of $d" >&2; exit 1; }
	echo "$d" >>"$BIN/bound" ;;
esac
echo "$d"
"""

RUN = """set -e
mount -t tmpfs tmp /tmp
if [ "$1" = mirror ]; then
	mount --bind "$KFE_MNT/events" /sys/kernel/tracing/events
	PATH=$BIN:$PATH
fi
[ "$(stat -f -c %t /sys/kernel/tracing/events)" = "$2" ]
cd "$SELFTESTS"
shift 2
exec ./ftracetest -K -l - "$@"
"""

RESULT = re.compile(r"^(not ok|ok) \d+\s+(.*?)\s*(?:# (\w+).*)?$")
KERNFS_EVENTS_MAGIC = "6b666576"
TRACEFS_MAGIC = "74726163"


def results(where, bin_dir):
    """{test name: PASS, FAIL, UNRESOLVED, SKIP or XFAIL} of one run."""
    magic = KERNFS_EVENTS_MAGIC if where == "mirror" else TRACEFS_MAGIC
    out = subprocess.run(["unshare", "-m", "sh", "-c", RUN, "run", where, magic] + TESTS,
                         env=dict(os.environ, BIN=bin_dir, SELFTESTS=SELFTESTS),
                         capture_output=True, text=True)
    got = {}
    for line in out.stdout.splitlines():
        m = RESULT.match(line)
        if m:
            ok, name, directive = m.groups()
            got[name] = directive or ("PASS" if ok == "ok" else "FAIL")
    if not got:
        raise RuntimeError(f"ftracetest on {where} ran nothing (exit {out.returncode}):\n"
                           + (out.stderr or out.stdout)[-2000:])
    return got


def slug(name):
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


s = Suite("kfe_ftracetest")
with tempfile.TemporaryDirectory() as bin_dir:
    mktemp = os.path.join(bin_dir, "mktemp")
    with open(mktemp, "w") as f:
        f.write(MKTEMP)
    os.chmod(mktemp, 0o755)
    tracefs = results("tracefs", bin_dir)
    mirror = results("mirror", bin_dir)
    try:
        with open(os.path.join(bin_dir, "bound")) as f:
            bound = len(f.readlines())
    except FileNotFoundError:
        bound = 0
for where, got in (("tracefs", tracefs), ("mirror", mirror)):
    counts = {}
    for r in got.values():
        counts[r] = counts.get(r, 0) + 1
    print(f"# {where}: " + ", ".join(f"{n} {r}" for r, n in sorted(counts.items())),
          flush=True)
in_instance = sum(1 for name in mirror if name.startswith("(instance)"))
s.check("instance_runs_went_through_the_mirror", bound == in_instance > 0,
        f"{bound} instances bound to the mirror for {in_instance} instance runs")
for name in sorted(set(tracefs) | set(mirror)):
    t, m = tracefs.get(name, "not run"), mirror.get(name, "not run")
    s.check(slug(name), t == "PASS" and m == t,
            f"{name}: {t} on tracefs, {m} through the mirror")
s.finish()
