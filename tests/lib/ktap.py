# SPDX-License-Identifier: GPL-2.0
"""KTAP output for the user-space checks, so that the kernel's own
tools/testing/kunit/kunit.py counts them together with the KUnit suites.

    from ktap import Suite
    s = Suite("kfe_mount_vm")
    s.check("root_is_a_directory", os.path.isdir(mnt))
    s.check_eq("size_matches", st.st_size, len(data))
    s.finish()   # prints the document, exits 1 if a check failed

Each check records one test case; the document is printed at the end
with its plan, as KTAP requires.
"""
import sys
import traceback


class Suite:
    def __init__(self, name):
        self.name = name
        self.cases = []  # (name, ok, diagnostic lines)

    def check(self, name, ok, diag=""):
        """Record case NAME as passed if OK is true; DIAG explains a failure."""
        lines = [] if ok else [l for l in str(diag).splitlines() if l]
        self.cases.append((name, bool(ok), lines))
        return bool(ok)

    def check_eq(self, name, got, want):
        return self.check(name, got == want, f"got {got!r}, want {want!r}")

    def run(self, name, fn, *args):
        """Record case NAME from FN(*ARGS): passed unless it raises."""
        try:
            fn(*args)
        except Exception:  # a failing check must not stop the suite
            return self.check(name, False, traceback.format_exc())
        return self.check(name, True)

    def finish(self):
        out = ["KTAP version 1", f"1..1", f"    KTAP version 1",
               f"    # Subtest: {self.name}", f"    1..{len(self.cases)}"]
        for i, (name, ok, diag) in enumerate(self.cases, 1):
            out += [f"    # {d}" for d in diag]
            out.append(f"    {'ok' if ok else 'not ok'} {i} {name}")
        failed = any(not ok for _, ok, _ in self.cases) or not self.cases
        out.append(f"{'not ok' if failed else 'ok'} 1 {self.name}")
        print("\n".join(out), flush=True)
        sys.exit(1 if failed else 0)
