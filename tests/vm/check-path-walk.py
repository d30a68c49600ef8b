#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Paths through the mirror are walked as paths through tracefs are.

- The mirror has no extended attributes, as tracefs has none
  (KERNFS_ROOT_NO_XATTR, patches/0010): getxattr, setxattr and
  removexattr fail with EOPNOTSUPP and listxattr lists nothing. ls -l
  then asks for a file's SELinux label once per filesystem, as on
  tracefs, not once per file (kernfs's ENODATA made it ask again for
  every entry: a second path walk per file).
- A walk through the mirror stays in RCU mode (patches/0011): kernfs's
  d_revalidate is called in RCU mode, and neither it nor permission
  sends the walk back to ref-walk. Counted with probes on both while
  every node of two systems is
  stat-ed from a directory of the mirror (the guest's root is 9p, which
  leaves RCU mode by itself); the calls are counted too, so that a
  probe that never fired cannot pass. The same from the tmpfs directory
  above the mount, through its root and a chmod-ed directory: nodes
  with attributes of their own.
- The RCU walk still sees removal: a path cached before its instance is
  removed through tracefs is gone once the mirror has followed, and the
  same path in an instance made again with the same name is the new
  node.
"""
import errno
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kprobes import kprobe  # noqa: E402
from ktap import Suite  # noqa: E402
from tracefs import settle  # noqa: E402

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


LOOKUP_RCU = 0x0040
# The probes: name, definition, and what to count in a line of it.
PROBES = {
    "kfe_walk_reval": ("r kernfs_dop_revalidate ret=$retval:s32",
                       lambda f: f["ret"] == ECHILD),
    "kfe_walk_revrcu": ("p kernfs_dop_revalidate flags=%si:u32",
                        lambda f: f["flags"] & LOOKUP_RCU),
    "kfe_walk_perm": ("r kernfs_iop_permission ret=$retval:s32",
                      lambda f: f["ret"] == ECHILD),
}


def probe_counts(stat_all):
    """Run STAT_ALL() with PROBES on kernfs's d_revalidate and
    permission, counted in the COUNTER instance for this process only:
    {probe: (calls, calls that match)}. STAT_ALL() runs twice: first to
    look every path up once the probes' event system and the instance
    are in the mirror (a new child changes the revision of the
    directories above, which sends their next walk to ref-walk once),
    then counted."""
    inst = os.path.join(TRACEFS, "instances", COUNTER)
    for name, (definition, _) in PROBES.items():
        kind, rest = definition.split(" ", 1)
        err = kprobe(f"{kind}:{name} {rest}")
        if err:
            raise OSError(err, f"kprobe {definition}")
    os.mkdir(inst)
    try:
        with open(os.path.join(inst, "buffer_size_kb"), "w") as f:
            f.write("8192")
        for name in PROBES:
            ev = os.path.join(inst, "events", "kprobes", name)
            with open(os.path.join(ev, "filter"), "w") as f:
                f.write(f"common_pid == {os.getpid()}")
        settle(lambda: all(os.path.exists(os.path.join(EVENTS, "kprobes", name))
                           for name in PROBES) and
               os.path.exists(os.path.join(MNT, "instances", COUNTER, "events")))
        stat_all()
        for name in PROBES:
            with open(os.path.join(inst, "events", "kprobes", name, "enable"), "w") as f:
                f.write("1")
        stat_all()
        with open(os.path.join(inst, "tracing_on"), "w") as f:
            f.write("0")
        with open(os.path.join(inst, "trace")) as f:
            lines = [line for line in f if not line.startswith("#")]
        overrun = 0
        for cpu in os.listdir(os.path.join(inst, "per_cpu")):
            with open(os.path.join(inst, "per_cpu", cpu, "stats")) as f:
                overrun += next(int(line.split()[1]) for line in f
                                if line.startswith("overrun"))
    finally:
        os.rmdir(inst)
        for name in PROBES:
            kprobe(f"-:{name}")
    if overrun:
        raise RuntimeError(f"the counting buffer overran by {overrun} events")
    counts = {}
    for name, (_, match) in PROBES.items():
        fields = [dict((k, int(v)) for k, v in re.findall(r"(\w+)=(-?\d+)", line))
                  for line in lines if f" {name}: " in line]
        counts[name] = (len(fields), sum(1 for f in fields if match(f)))
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

def walk_counts(top, paths):
    """probe_counts() of a stat of each of PATHS, relative to TOP, and
    the number of path components they have; both printed."""
    dfd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        counts = probe_counts(lambda: [os.stat(p, dir_fd=dfd, follow_symlinks=False)
                                       for p in paths])
    finally:
        os.close(dfd)
    components = sum(p.count("/") + 1 for p in paths)
    print(f"# from {top}: {len(paths)} paths of {components} components: " +
          ", ".join(f"{name} {calls} calls, {n} counted"
                    for name, (calls, n) in counts.items()), flush=True)
    return counts, components


# The RCU walk: every path validated from the dentry cache.
paths = [os.path.join(sys_, p).rstrip("/") for sys_ in ("sched", "timer")
         for p in [""] + nodes(os.path.join(EVENTS, sys_))]
counts, components = walk_counts(EVENTS, paths)
calls, echild = counts["kfe_walk_reval"]
_, rcu = counts["kfe_walk_revrcu"]
s.check("rcu_walk_revalidate_in_rcu_mode",
        rcu >= components // 2 and echild == 0,
        f"{calls} calls, {rcu} in RCU mode, {echild} returned -ECHILD, "
        f"for {len(paths)} paths of {components} components")
calls, echild = counts["kfe_walk_perm"]
s.check("rcu_walk_permission_never_echild",
        calls >= components // 2 and echild == 0,
        f"{calls} calls, {echild} returned -ECHILD, for {len(paths)} "
        f"paths of {components} components")

# From outside the mount: the walk enters the mirror at its root, whose
# mode the mount sets (so it has kernfs_iattrs, as has any chmod-ed sysfs
# file), and goes on through a system directory chmod-ed in an instance
# of its own, which takes the attributes with it when it goes.
attr_inst = os.path.join(TRACEFS, "instances", "kfe_walk_attr")
chmodded = os.path.join(MNT, "instances", "kfe_walk_attr", "events", "timer")
outside = os.path.dirname(MNT)
os.mkdir(attr_inst)
try:
    settle(lambda: os.path.exists(chmodded))
    os.chmod(chmodded, 0o750)
    rel = os.path.relpath(chmodded, outside)
    paths = [rel] + [os.path.join(rel, p) for p in nodes(chmodded)]
    counts, components = walk_counts(outside, paths)
finally:
    os.rmdir(attr_inst)
calls, echild = counts["kfe_walk_perm"]
_, rcu = counts["kfe_walk_revrcu"]
_, reval_echild = counts["kfe_walk_reval"]
s.check("rcu_walk_through_nodes_with_attributes",
        calls >= components // 2 and rcu >= components // 2 and
        echild == 0 and reval_echild == 0,
        f"{calls} permission calls, {echild} returned -ECHILD; {rcu} "
        f"d_revalidate calls in RCU mode, {reval_echild} returned -ECHILD; "
        f"for {len(paths)} paths of {components} components")

# Removal is seen by a walk that found the path in the dentry cache. The
# mirror follows tracefs's mkdir and rmdir from a work item: wait for it.
inst = os.path.join(TRACEFS, "instances", "kfe_walk_rm")
mirror = os.path.join(MNT, "instances", "kfe_walk_rm", "events", "sched", "sched_switch", "id")
os.mkdir(inst)
settle(lambda: os.path.exists(mirror))
first = os.stat(mirror).st_ino
os.stat(mirror)
os.rmdir(inst)
s.check("rcu_walk_sees_instance_removed",
        settle(lambda: not os.path.exists(mirror)),
        f"{mirror} still found after its instance was removed")
os.mkdir(inst)
try:
    settle(lambda: os.path.exists(mirror))
    again = os.stat(mirror).st_ino
finally:
    os.rmdir(inst)
s.check("rcu_walk_finds_new_instance_node", again != first,
        f"inode {first} before, {again} after")
s.finish()
