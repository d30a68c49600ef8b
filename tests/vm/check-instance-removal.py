#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Removing a trace instance while the mirror reads its files.

An instance's rmdir in tracefs fails with EBUSY while anything holds a
reference on its trace array. Reading the mirror's files must hold
none: tracing finds the trace array by name under event_mutex, which
rmdir takes, so an rmdir waits for a read in flight and then succeeds.

For CYCLES rounds, an instance is made, its events directory files and
a system's files are read through the mirror in a loop by READERS
threads, and the instance is removed once they are reading: the rmdir
must succeed at its first attempt every time. The check counts the
reads that ran during the rmdirs, so that a round in which nothing
raced is not counted as a pass. The same loop run on tracefs's own
files, which pin the trace array while open, is measured for
comparison and printed.
"""
import errno
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402
from tracefs import settle  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
FULL = os.environ.get("KFE_STRESS") == "full"
CYCLES = 100 if FULL else 20
READERS = 2
NAME = "kfe_rmdir"
FILES = ["enable", "header_page", "header_event", "sched/enable",
         "sched/filter"]

s = Suite("kfe_instance_removal")


def reader(top, stop, counts):
    """Read every file of FILES under TOP until STOP is set; count the
    reads that returned data and the errors (the instance going away)."""
    while not stop.is_set():
        for rel in FILES:
            try:
                with open(os.path.join(top, rel), "rb") as f:
                    f.read()
                counts["reads"] += 1
            except OSError:
                counts["errors"] += 1


def rounds(events_top):
    """CYCLES rounds of mkdir, reads and rmdir; returns (EBUSY count,
    reads done while the rmdirs ran)."""
    inst = os.path.join(TRACEFS, "instances", NAME)
    ebusy = raced = 0
    for _ in range(CYCLES):
        os.mkdir(inst)
        top = events_top()
        if not settle(lambda: all(os.path.exists(os.path.join(top, f))
                                  for f in FILES)):
            os.rmdir(inst)
            raise AssertionError(f"{top} was not mirrored")
        stop = threading.Event()
        counts = {"reads": 0, "errors": 0}
        threads = [threading.Thread(target=reader, args=(top, stop, counts))
                   for _ in range(READERS)]
        for t in threads:
            t.start()
        while counts["reads"] < 10:
            time.sleep(0.01)
        before = counts["reads"] + counts["errors"]
        while True:
            try:
                os.rmdir(inst)
                break
            except OSError as e:
                if e.errno != errno.EBUSY:
                    raise
                ebusy += 1
        raced += counts["reads"] + counts["errors"] - before
        stop.set()
        for t in threads:
            t.join()
    return ebusy, raced


def mirror_readers_never_make_rmdir_busy():
    ebusy, raced = rounds(lambda: os.path.join(MNT, "instances", NAME,
                                               "events"))
    print(f"# mirror: {CYCLES} rmdirs, {ebusy} failed with EBUSY, "
          f"{raced} reads ran during them", file=sys.stderr)
    assert raced > 0, "no read ran during an rmdir: nothing was tested"
    assert ebusy == 0, f"{ebusy} of {CYCLES} rmdirs failed with EBUSY"


def tracefs_readers_for_comparison():
    ebusy, raced = rounds(lambda: os.path.join(TRACEFS, "instances", NAME,
                                               "events"))
    print(f"# tracefs: {CYCLES} rmdirs, {ebusy} attempts failed with EBUSY, "
          f"{raced} reads ran during them", file=sys.stderr)


s.run("mirror_readers_never_make_rmdir_busy",
      mirror_readers_never_make_rmdir_busy)
s.run("tracefs_readers_for_comparison", tracefs_readers_for_comparison)
s.finish()
