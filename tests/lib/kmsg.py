# SPDX-License-Identifier: GPL-2.0
"""The kernel log from now on, read through /dev/kmsg.

    log = Kmsg()          # before the operation: opening allocates
    ...
    if "no memory" in log.text(): ...
    msgs = log.records()  # the records so far; closes the log

read() and text() may be called again and again: each returns every
record logged since the Kmsg was made.
"""
import os


class Kmsg:
    def __init__(self):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)
        self.seen = []

    def read(self):
        """The text of each record logged so far."""
        while True:
            try:
                rec = os.read(self.fd, 8192).decode(errors="replace")
            except BlockingIOError:
                break
            except BrokenPipeError:  # records overwritten: go on
                continue
            self.seen.append(rec.split(";", 1)[1].rstrip("\n"))
        return self.seen

    def text(self):
        return "\n".join(self.read())

    def close(self):
        os.close(self.fd)

    def records(self):
        found = self.read()
        self.close()
        return found
