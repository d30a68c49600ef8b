#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""perf, the other tracing front end, through the mirror.

perf finds tracepoints in /sys/kernel/tracing/events: their names by
listing it, their ids in "id" and their fields in "format". Each step
runs twice, in a mount namespace of its own with a tmpfs /tmp: on
tracefs, then with the mirror's events directory bound over tracefs's.

- perf list tracepoint lists the same events;
- perf stat counts sched:sched_switch and sched:sched_wakeup, both
  non-zero while a child sleeps and wakes;
- perf record of sched:sched_switch, then perf script, prints the
  event's fields by name, parsed from the format file it read.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402

MNT = os.environ["KFE_MNT"]
KERNFS_EVENTS_MAGIC = "6b666576"
TRACEFS_MAGIC = "74726163"
WAKER = "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done"

RUN = """set -e
mount -t tmpfs tmp /tmp
cd /tmp
[ "$1" = mirror ] && mount --bind "$KFE_MNT/events" /sys/kernel/tracing/events
[ "$(stat -f -c %t /sys/kernel/tracing/events)" = "$2" ]
case $3 in
list)	perf list --raw-dump tracepoint ;;
stat)	perf stat -x, -e sched:sched_switch -e sched:sched_wakeup -- sh -c "$WAKER" 2>&1 >/dev/null ;;
script)	perf record -q -e sched:sched_switch -o /tmp/perf.data -- sh -c "$WAKER" >/dev/null 2>&1
	perf script -i /tmp/perf.data -F event,trace 2>/dev/null ;;
esac
"""


def perf(where, step):
    """The output of STEP run on tracefs or through the mirror."""
    magic = KERNFS_EVENTS_MAGIC if where == "mirror" else TRACEFS_MAGIC
    out = subprocess.run(["unshare", "-m", "sh", "-c", RUN, "perf", where, magic, step],
                         env=dict(os.environ, WAKER=WAKER), capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"perf {step} on {where}: exit {out.returncode}\n{out.stderr}")
    return out.stdout


def counts(output):
    """{event: count} from perf stat -x, output."""
    got = {}
    for line in output.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("sched:"):
            got[fields[2]] = int(fields[0]) if fields[0].isdigit() else fields[0]
    return got


def switches(output):
    """The sched_switch lines of perf script, and how many of them show
    the fields by name."""
    lines = [line for line in output.splitlines() if "sched:sched_switch" in line]
    named = [line for line in lines
             if re.search(r"prev_comm=\S+ prev_pid=\d+ .*next_comm=\S+ next_pid=\d+", line)]
    return len(lines), len(named)


s = Suite("kfe_perf")
lists = {w: perf(w, "list").split() for w in ("tracefs", "mirror")}
s.check("list_tracepoints_as_on_tracefs",
        lists["mirror"] == lists["tracefs"] and "sched:sched_switch" in lists["mirror"],
        f"{len(lists['mirror'])} tracepoints through the mirror, "
        f"{len(lists['tracefs'])} on tracefs; only through the mirror: "
        f"{sorted(set(lists['mirror']) - set(lists['tracefs']))[:5]}, only on "
        f"tracefs: {sorted(set(lists['tracefs']) - set(lists['mirror']))[:5]}")
print(f"# perf list: {len(lists['mirror'])} tracepoints on both", flush=True)

stats = {w: counts(perf(w, "stat")) for w in ("tracefs", "mirror")}
print(f"# perf stat: {stats}", flush=True)
s.check("stat_counts_tracepoints",
        all(isinstance(stats[w].get(e), int) and stats[w][e] > 0
            for w in stats for e in ("sched:sched_switch", "sched:sched_wakeup")),
        f"counts {stats}")

scripts = {w: switches(perf(w, "script")) for w in ("tracefs", "mirror")}
print(f"# perf script: (sched_switch lines, with named fields) {scripts}", flush=True)
s.check("script_prints_fields_from_format",
        all(n > 0 and named == n for n, named in scripts.values()),
        f"{scripts}")
s.finish()
