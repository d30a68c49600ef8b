#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Step 8 of the kernfs tutorial, seen from user space: wait in poll()
for a tick.  Usage: poll_ticks.py MOUNTPOINT (as root, to write "tick")."""
import os
import select
import sys
import time

mnt = sys.argv[1]
ticks = os.open(f"{mnt}/ticks", os.O_RDONLY)
print("ticks:", os.read(ticks, 64).decode().strip())

p = select.poll()
p.register(ticks, select.POLLPRI)
print("events before the tick:", p.poll(0))

if os.fork() == 0:		# another process ticks a second later
    time.sleep(1)
    with open(f"{mnt}/tick", "w") as tick:
        tick.write("1")
    os._exit(0)

events = dict(p.poll(10000)).get(ticks, 0)
print("woken by:", " ".join(name for name in ("POLLIN", "POLLPRI", "POLLERR")
                            if events & getattr(select, name)))
os.wait()

os.lseek(ticks, 0, os.SEEK_SET)	# read again from the start
print("ticks:", os.read(ticks, 64).decode().strip())
print("events after reading:", p.poll(0))
