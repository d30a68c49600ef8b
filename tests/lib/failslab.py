# SPDX-License-Identifier: GPL-2.0
"""Slab allocation failures injected into one operation of this thread,
with failslab's /proc/thread-self/fail-nth
(Documentation/fault-injection/fault-injection.rst).

    from failslab import inject
    err, reached = inject(3, lambda: os.mkdir(path))
    with only("kernfs_node_cache"):
        err, reached = inject(3, lambda: os.mkdir(path))

Importing this module makes failslab fail GFP_KERNEL allocations too
(ignore-gfp-wait=N) and keeps it quiet. After report_sites(), each
injected failure logs its stack, and failed_site() names the allocation
that failed from the kernel log records of the attempt:

    report_sites()
    log = Kmsg()
    err, reached = inject(3, lambda: os.mkdir(path))
    site = failed_site(log.records())
"""
import contextlib
import os
import re


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


def report_sites():
    """Log the stack of every injected failure, none held back by the
    rate limit."""
    _set("verbose_ratelimit_interval_ms", "0")
    _set("verbose", "2")


# The frames of the allocator itself, above the call that failed.
_ALLOCATOR = re.compile(
    r"(dump_stack|_*should_fail|fail_dump|krealloc|slab_|__slab|___slab|"
    r"kmem_cache_alloc|kmalloc|__kmalloc|__do_kmalloc|kvmalloc|__kvmalloc|"
    r"kstrdup|kstrndup|kmemdup|kvasprintf|kasprintf)")
_FRAME = re.compile(r"\s*(\? )?([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[(\w+)\])?")


def failed_site(records):
    """Name the allocation whose injected failure the kernel log RECORDS
    show: "caller>allocator", and " in FUNC" after it when the first
    function of a module on the stack is not the caller. None when no
    failure was logged (a __GFP_NOWARN allocation logs none)."""
    frames, state = [], None
    for msg in records:
        if msg.startswith("FAULT_INJECTION: forcing a failure"):
            state = "fault"
        elif state == "fault" and msg == "Call Trace:":
            state = "stack"
        elif state == "stack":
            if msg.strip() == "</TASK>":
                break
            m = _FRAME.fullmatch(msg)
            if m and not m.group(1):
                name = re.sub(r"\.(constprop|isra|part|cold)\.\d+", "",
                              m.group(2))
                frames.append((name, m.group(3)))
    i = 0
    while i < len(frames) and _ALLOCATOR.match(frames[i][0]):
        i += 1
    if not 0 < i < len(frames):
        return None
    site = f"{frames[i][0]}>{frames[i - 1][0]}"
    own = next((name for name, mod in frames[i:] if mod), None)
    return site if own in (None, frames[i][0]) else f"{site} in {own}"


_set("ignore-gfp-wait", "N")
_set("verbose", "0")
