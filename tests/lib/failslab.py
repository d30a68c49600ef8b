# SPDX-License-Identifier: GPL-2.0
"""Slab allocation failures injected into one operation of this thread,
with failslab's /proc/thread-self/fail-nth
(Documentation/fault-injection/fault-injection.rst).

    from failslab import inject
    err, reached = inject(3, lambda: os.mkdir(path))
    with only("kernfs_node_cache"):
        err, reached = inject(3, lambda: os.mkdir(path))

Importing this module makes failslab fail GFP_KERNEL allocations too
(ignore-gfp-wait=N) and keeps it quiet.
"""
import contextlib
import os


def _set(setting, value, where="/sys/kernel/debug/failslab"):
    with open(f"{where}/{setting}", "w") as f:
        f.write(value)


def inject(n, fn):
    """Run FN() with the Nth slab allocation of this thread failing.

    fail-nth stays open across the attempt, so that opening and reading
    it count no allocation. Returns (the errno FN raised or 0, whether
    the Nth allocation was reached).
    """
    fd = os.open("/proc/thread-self/fail-nth", os.O_RDWR)
    try:
        os.pwrite(fd, str(n).encode(), 0)
        try:
            fn()
            err = 0
        except OSError as e:
            err = e.errno
        reached = os.pread(fd, 32, 0).strip() == b"0"
        os.pwrite(fd, b"0", 0)
    finally:
        os.close(fd)
    return err, reached


@contextlib.contextmanager
def only(cache):
    """Within the block, count and fail only allocations from the slab
    cache named CACHE (failslab's cache-filter)."""
    _set("failslab", "1", f"/sys/kernel/slab/{cache}")
    _set("cache-filter", "Y")
    try:
        yield
    finally:
        _set("cache-filter", "N")
        _set("failslab", "0", f"/sys/kernel/slab/{cache}")


_set("ignore-gfp-wait", "N")
_set("verbose", "0")
