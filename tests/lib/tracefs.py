# SPDX-License-Identifier: GPL-2.0
"""What the checks of the events mirror share: reading and writing a file
as a shell redirection does, and waiting for the mirror to follow a
change that tracing made (a work item builds and removes directories)."""
import errno
import os
import time

TRACEFS = "/sys/kernel/tracing"


def read(path):
    with open(path, "rb") as f:
        return f.read()


def content(path):
    """What a read of PATH to the end gives: the bytes, or None for a
    write-only file (inject), whose read fails with EPERM in tracefs and
    in the mirror alike. Any other error is raised."""
    try:
        return read(path)
    except PermissionError as e:
        if e.errno != errno.EPERM or os.lstat(path).st_mode & 0o444:
            raise
        return None


def write(path, data, flags=os.O_TRUNC):
    """Write DATA in one write(), as echo > (or >> with O_APPEND) does;
    return 0 or the errno."""
    try:
        fd = os.open(path, os.O_WRONLY | flags)
    except OSError as e:
        return e.errno
    try:
        os.write(fd, data.encode())
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def settle(cond, timeout=120):
    """Wait until COND() is true; return whether it became true."""
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.2)
    return cond()
