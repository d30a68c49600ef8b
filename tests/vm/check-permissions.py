#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What an unprivileged user may do in the mirror, compared with tracefs.

Both filesystems are remounted with the same gid= and mode=; then a user
(uid 1000 and gid 1001, with and without membership of that group, through setpriv)
tries, on every node of one system: lookup, readdir, open for reading,
open for writing, truncate, chmod, chown and utime. Each attempt must
give the same result in both, and exactly what the modes grant. By
default both let only root in: the top directory's mode is 0700.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
GID = 1000
SYSTEM = "sched"

s = Suite("kfe_permissions")

# Run as the user: try everything on each path, print {path: results}.
PROBE = r'''
import json, os, sys
def errno_of(fn, *a):
    try:
        r = fn(*a)
        if isinstance(r, int) and fn is os.open:
            os.close(r)
        return 0
    except OSError as e:
        return e.errno
out = {}
top = sys.argv[1]
for d, dirs, files in os.walk(top):
    for p in [d] + [os.path.join(d, f) for f in files]:
        rel = os.path.relpath(p, top)
        r = {"stat": errno_of(os.lstat, p)}
        if os.path.isdir(p):
            r["readdir"] = errno_of(os.listdir, p)
        else:
            r["read"] = errno_of(os.open, p, os.O_RDONLY)
            r["write"] = errno_of(os.open, p, os.O_WRONLY)
            r["trunc"] = errno_of(os.open, p, os.O_WRONLY | os.O_TRUNC)
        r["chmod"] = errno_of(os.chmod, p, 0o777)
        r["chown"] = errno_of(os.chown, p, os.getuid(), -1)
        r["utime"] = errno_of(os.utime, p, (0, 0))
        out[rel] = r
print(json.dumps(out))
'''


def as_user(top, groups):
    cmd = ["setpriv", "--reuid=1000", "--regid=1001"]
    cmd += ["--groups=%d" % GID] if groups else ["--clear-groups"]
    r = subprocess.run(cmd + ["python3", "-c", PROBE, top],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr)
    return json.loads(r.stdout)


def remount(path, opts):
    subprocess.run(["mount", "-o", f"remount,{opts}", path], check=True)


def snapshot(top):
    """Modes and owners of every node under TOP, to prove nothing changed."""
    out = {}
    for d, _, files in os.walk(top):
        for p in [d] + [os.path.join(d, f) for f in files]:
            st = os.lstat(p)
            out[os.path.relpath(p, top)] = (st.st_mode, st.st_uid, st.st_gid)
    return out


def compare(name, groups):
    ours = os.path.join(MNT, "events", SYSTEM)
    theirs = os.path.join(TRACEFS, "events", SYSTEM)
    before = snapshot(ours)
    got = as_user(ours, groups)
    want = as_user(theirs, groups)
    diff = [f"{p}: ours {got.get(p)}, tracefs {want.get(p)}"
            for p in sorted(set(got) | set(want)) if got.get(p) != want.get(p)]
    s.check(name, not diff, "\n".join(diff[:8]))
    s.check(name + "_changes_nothing", snapshot(ours) == before,
            "a denied attempt changed a mode or an owner")
    return got


def granted(top, rel, in_group):
    """What the modes grant uid 1000 (who owns nothing here) on REL: the
    same dict as the probe prints, worked out from lstat as root."""
    def allows(path, bit):
        st = os.lstat(path)
        shift = 3 if in_group and st.st_gid == GID else 0
        return bool(st.st_mode & (bit << shift))

    path = os.path.normpath(os.path.join(top, rel))
    dirs, d = [], os.path.dirname(path)
    while d != "/":
        dirs.append(d)
        d = os.path.dirname(d)
    if not all(allows(d, 1) for d in dirs):
        return None		# not reachable: the probe never saw it
    r = {"stat": 0}
    if os.path.isdir(path):
        r["readdir"] = 0 if allows(path, 4) else 13
    else:
        r["read"] = 0 if allows(path, 4) else 13
        r["write"] = r["trunc"] = 0 if allows(path, 2) else 13
    r["chmod"] = r["chown"] = r["utime"] = 1
    return r


def check_granted(name, got, in_group):
    top = os.path.join(MNT, "events", SYSTEM)
    diff = [f"{rel}: got {res}, modes grant {granted(top, rel, in_group)}"
            for rel, res in sorted(got.items())
            if res != granted(top, rel, in_group)]
    if granted(top, ".", in_group) is None:
        s.check(name, got == {}, f"reached {len(got)} unreachable nodes")
    else:
        s.check(name, got and not diff, "\n".join(diff[:8]))


def default_top_mode():
    st = os.lstat(MNT)
    return oct(st.st_mode & 0o7777)


s.check_eq("top_default_mode_0700_as_tracefs", default_top_mode(), "0o700")
got = compare("default_mode_user_same_as_tracefs", False)
s.check("default_mode_user_reaches_nothing", got == {},
        f"reached {len(got)} nodes")
try:
    for mode in ("0755", "0750"):
        remount(MNT, f"gid={GID},mode={mode}")
        remount(TRACEFS, f"gid={GID},mode={mode}")
        got = compare(f"mode_{mode}_user_in_group_same_as_tracefs", True)
        check_granted(f"mode_{mode}_user_in_group_gets_what_modes_grant",
                      got, True)
        got = compare(f"mode_{mode}_user_outside_group_same_as_tracefs",
                      False)
        check_granted(f"mode_{mode}_user_outside_group_gets_what_modes_grant",
                      got, False)
finally:
    remount(TRACEFS, "gid=0,mode=0700")
    remount(MNT, "gid=0,mode=0700")
s.finish()
