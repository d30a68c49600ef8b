#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Paths through the mirror are walked as paths through tracefs are.

- The mirror has no extended attributes, as tracefs has none
  (KERNFS_ROOT_NO_XATTR, patches/0011): getxattr, setxattr and
  removexattr fail with EOPNOTSUPP and listxattr lists nothing. ls -l
  then asks for a file's SELinux label once per filesystem, as on
  tracefs, not once per file (kernfs's ENODATA made it ask again for
  every entry: a second path walk per file).
- A walk through the mirror stays in RCU mode (patches/0012): kernfs's
  d_revalidate and permission do not send it back to ref-walk. Counted
  with return probes on both while every node of two systems is
  stat-ed from a directory of the mirror (the guest's root is 9p, which
  leaves RCU mode by itself); the calls are counted too, so that a
  probe that never fired cannot pass.
- The RCU walk still sees removal: a path cached before its instance is
  removed through tracefs is gone after it, and the same path in an
  instance made again with the same name is the new node.
"""
import errno
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kprobes import kprobe  # noqa: E402
from ktap import Suite  # noqa: E402

MNT = os.environ["KFE_MNT"]
EVENTS = os.path.join(MNT, "events")
TRACEFS = "/sys/kernel/tracing"
COUNTER = "kfe_walk"   # the trace instance whose buffer counts the probes
ECHILD = -errno.ECHILD

s = Suite("kfe_path_walk")


def xattr_errnos(path):
    """The errnos of getxattr, setxattr and removexattr on PATH, and
    what listxattr lists."""
    got = []
    for call in (lambda: os.getxattr(path, "security.selinux", follow_symlinks=False),
                 lambda: os.setxattr(path, "trusted.kfe", b"1", follow_symlinks=False),
                 lambda: os.removexattr(path, "trusted.kfe", follow_symlinks=False)):
        try:
            call()
            got.append(0)
        except OSError as e:
            got.append(e.errno)
    return got, os.listxattr(path, follow_symlinks=False)


def xattr_calls(top):
    """How many getxattr-family calls ls -l of TOP makes, and how many
    entries it lists."""
    trace = "/dev/shm/kfe-ls.strace"
    out = subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e",
                          "trace=getxattr,lgetxattr,fgetxattr",
                          "ls", "-l", top], check=True,
                         capture_output=True, text=True).stdout
    with open(trace) as f:
        calls = sum(1 for line in f if "xattr(" in line)
    os.unlink(trace)
    return calls, len(out.splitlines()) - 1


def nodes(top):
    """Every path under TOP, relative to it."""
    found = []
    for d, dirs, files in os.walk(top):
        found += [os.path.relpath(os.path.join(d, n), top) for n in dirs + files]
    return found


def probe_counts(stat_all):
    """Run STAT_ALL() with return probes on kernfs's d_revalidate and
    permission, counted in the COUNTER instance for this process only:
    {probe: (calls, -ECHILD returns)}."""
    probes = {"kfe_walk_reval": "kernfs_dop_revalidate",
              "kfe_walk_perm": "kernfs_iop_permission"}
    inst = os.path.join(TRACEFS, "instances", COUNTER)
    for name, fn in probes.items():
        err = kprobe(f"r:{name} {fn} ret=$retval:s32")
        if err:
            raise OSError(err, f"kprobe {fn}")
    os.mkdir(inst)
    try:
        with open(os.path.join(inst, "buffer_size_kb"), "w") as f:
            f.write("8192")
        for name in probes:
            ev = os.path.join(inst, "events", "kprobes", name)
            with open(os.path.join(ev, "filter"), "w") as f:
                f.write(f"common_pid == {os.getpid()}")
            with open(os.path.join(ev, "enable"), "w") as f:
                f.write("1")
        stat_all()
        with open(os.path.join(inst, "tracing_on"), "w") as f:
            f.write("0")
        with open(os.path.join(inst, "trace")) as f:
            lines = [line for line in f if not line.startswith("#")]
        with open(os.path.join(inst, "per_cpu", "cpu0", "stats")) as f:
            overrun = next(int(line.split()[1]) for line in f
                           if line.startswith("overrun"))
    finally:
        os.rmdir(inst)
        for name in probes:
            kprobe(f"-:{name}")
    if overrun:
        raise RuntimeError(f"the counting buffer overran by {overrun} events")
    counts = {}
    for name in probes:
        mine = [line for line in lines if f" {name}: " in line]
        counts[name] = (len(mine),
                        sum(1 for line in mine if f"ret={ECHILD}" in line))
    return counts


# Extended attributes: none, as on tracefs.
for rel in ("sched/sched_switch/format", "sched/sched_switch", "sched"):
    got = xattr_errnos(os.path.join(EVENTS, rel))
    want = xattr_errnos(os.path.join(TRACEFS, "events", rel))
    s.check_eq(f"xattrs_as_tracefs_{rel.replace('/', '_')}", got, want)
s.check_eq("xattrs_unsupported",
           xattr_errnos(os.path.join(EVENTS, "sched/sched_switch/enable")),
           ([errno.EOPNOTSUPP] * 3, []))

calls, entries = xattr_calls(os.path.join(EVENTS, "sched"))
tracefs_calls, _ = xattr_calls(os.path.join(TRACEFS, "events", "sched"))
s.check("ls_l_asks_xattrs_once_not_per_entry",
        entries > 10 and calls <= tracefs_calls,
        f"{calls} xattr calls for {entries} entries (tracefs: {tracefs_calls})")

# The RCU walk. The first walk looks every node up; the second, counted,
# finds each dentry in the cache and validates it.
dfd = os.open(EVENTS, os.O_RDONLY | os.O_DIRECTORY)
try:
    paths = [os.path.join(sys_, p) for sys_ in ("sched", "timer")
             for p in [""] + nodes(os.path.join(EVENTS, sys_))]
    paths = [p.rstrip("/") for p in paths]
    for p in paths:
        os.stat(p, dir_fd=dfd, follow_symlinks=False)
    counts = probe_counts(lambda: [os.stat(p, dir_fd=dfd, follow_symlinks=False)
                                   for p in paths])
finally:
    os.close(dfd)
components = sum(p.count("/") + 1 for p in paths)
for name, what in (("kfe_walk_reval", "revalidate"), ("kfe_walk_perm", "permission")):
    calls, echild = counts[name]
    s.check(f"rcu_walk_{what}_never_echild", calls >= components // 2 and echild == 0,
            f"{calls} calls, {echild} returned -ECHILD, for {len(paths)} paths "
            f"of {components} components")

# Removal is seen by a walk that found the path in the dentry cache.
inst = os.path.join(TRACEFS, "instances", "kfe_walk_rm")
mirror = os.path.join(MNT, "instances", "kfe_walk_rm", "events", "sched", "sched_switch", "id")
os.mkdir(inst)
first = os.stat(mirror).st_ino
os.stat(mirror)
os.rmdir(inst)
try:
    os.stat(mirror)
    gone = 0
except OSError as e:
    gone = e.errno
s.check_eq("rcu_walk_sees_instance_removed", gone, errno.ENOENT)
os.mkdir(inst)
try:
    again = os.stat(mirror).st_ino
finally:
    os.rmdir(inst)
s.check("rcu_walk_finds_new_instance_node", again != first,
        f"inode {first} before, {again} after")
s.finish()
