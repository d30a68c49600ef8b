# SPDX-License-Identifier: GPL-2.0
"""Threads that run until told to stop, as a context manager:

    class Readers(Workers):
        def work(self, i):
            while not self.stop.is_set():
                ...
    with Readers(4) as r:
        ...          # r.work(0) .. r.work(3) run meanwhile
"""
import threading


class Workers:
    def __init__(self, nr):
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.work, args=(i,))
                        for i in range(nr)]

    def work(self, i):
        raise NotImplementedError

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()
