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



class Calls:
    """Count the calls of kernel function SYMBOL with a kprobe NAME, from
    its hit count in kprobe_profile, while the probe exists:

        with Calls("kfe_nodes", "kernfs_new_node") as nodes:
            before = nodes.count()
            ...
            made = nodes.count() - before

    The probe is in a system of its own, kfe_count, so that checks of
    the kprobes system do not see it. A check that counts the mirror's
    nodes starts it before the mirror gets that system.
    """

    GROUP = "kfe_count"

    def __init__(self, name, symbol):
        self.name = name
        self.symbol = symbol
        self.enable = os.path.join(TRACEFS, "events", self.GROUP, name,
                                   "enable")

    def start(self):
        err = kprobe(f"p:{self.GROUP}/{self.name} {self.symbol}")
        if err:
            raise OSError(err, f"kprobe on {self.symbol}")
        with open(self.enable, "w") as f:
            f.write("1")
        return self

    def count(self):
        with open(os.path.join(TRACEFS, "kprobe_profile")) as f:
            for line in f:
                fields = line.split()
                if fields and fields[0] == self.name:
                    return int(fields[1])
        raise LookupError(f"{self.name} not in kprobe_profile")

    def stop(self):
        with open(self.enable, "w") as f:
            f.write("0")
        kprobe(f"-:{self.GROUP}/{self.name}")

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
