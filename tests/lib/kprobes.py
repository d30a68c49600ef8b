# SPDX-License-Identifier: GPL-2.0
"""kprobe events for the checks that create and delete them.

    from kprobes import kprobe
    kprobe("p:kfe_x ksys_sync")    # 0, or the errno
    kprobe("-:kfe_x")
"""
import os

TRACEFS = "/sys/kernel/tracing"


def kprobe(line):
    """Append LINE to kprobe_events in one write(); 0 or the errno.

    Not open(..., "a"): Python seeks to the end, which tracefs refuses.
    """
    fd = os.open(os.path.join(TRACEFS, "kprobe_events"),
                 os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, (line + "\n").encode())
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)
