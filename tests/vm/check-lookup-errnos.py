#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Errors for names that cannot exist, compared with tmpfs.

For each shape of path (a name over NAME_MAX, empty components, "." and
".." at the edges, a trailing slash on a file, a path through a file,
bytes tracefs never puts in a name, ...) and each system call that
looks a name up (stat, open O_RDONLY, open O_CREAT, mkdir, rmdir,
unlink, rename from and to the path), the errno through our mount must
be the errno tmpfs gives for the same path in a tree of the same shape,
built afresh for each call. tmpfs is the reference: libfs's
simple_lookup() and the VFS together give POSIX's answers.

The two cannot agree where tmpfs changes the tree: kernfs_events has
no mkdir, rmdir, unlink, rename or create. Where the call succeeds on
tmpfs and changes its tree, and where tmpfs's own rmdir finds a real
directory not empty, our mount must refuse the call with the errno of
that refusal (REFUSED below, what sysfs gives too), after every check
on the path has passed, as tmpfs checks it. A call that succeeds on
tmpfs without changing anything (O_CREAT on an existing file, a rename
of a file onto itself) must succeed on our mount too.
"""
import errno
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ktap import Suite  # noqa: E402
from tracefs import settle  # noqa: E402

MNT = os.environ["KFE_MNT"]

# The part of the mirror the paths below walk through.
DIRS = ["events", "events/sched", "events/sched/sched_switch", "instances"]
FILES = ["events/enable", "events/header_page", "events/sched/enable",
         "events/sched/filter", "events/sched/sched_switch/enable",
         "events/sched/sched_switch/format", "events/sched/sched_switch/id"]

# What a filesystem without the operation answers where tmpfs succeeds.
REFUSED = {
    "open_creat": errno.EACCES,	# the VFS, for a directory without ->create
    "mkdir": errno.EPERM,	# kernfs, no kernfs_syscall_ops->mkdir
    "rmdir": errno.EPERM,	# kernfs, no kernfs_syscall_ops->rmdir
    "unlink": errno.EPERM,	# the VFS, for a directory without ->unlink
    "rename_from": errno.EPERM,	# kernfs, no kernfs_syscall_ops->rename
    "rename_to": errno.EPERM,
}

L255 = "n" * 255
L256 = "n" * 256

# (shape, path relative to the top of the tree); none of these names
# exists in tracefs, or the path around it is malformed.
SHAPES = [
    ("name_255", f"events/{L255}"),
    ("name_256", f"events/{L256}"),
    ("name_256_at_top", L256),
    ("name_256_in_lazy_dir", f"events/sched/{L256}"),
    ("name_256_in_event_dir", f"events/sched/sched_switch/{L256}"),
    ("name_4000", "events/" + "n" * 4000),
    ("name_256_then_more", f"events/{L256}/enable"),
    ("name_256_dotdot", f"events/{L256}/.."),
    ("name_256_trailing_slash", f"events/{L256}/"),
    ("name_256_through_file", f"events/enable/{L256}"),
    ("empty_component_existing", "events//sched"),
    ("empty_component_file", "events//enable"),
    ("empty_component_missing", "events/nosuch//x"),
    ("empty_components_new", "events///kfe_new"),
    ("dot_last", "events/sched/."),
    ("dotdot_last", "events/sched/.."),
    ("dotdot_lazy_last", "events/sched/sched_switch/.."),
    ("dotdot_then_file", "events/sched/../enable"),
    ("missing_then_dotdot", "events/nosuch/.."),
    ("missing_then_dot", "events/nosuch/."),
    ("missing_then_dotdot_name", "events/nosuch/../sched"),
    ("file_then_dot", "events/enable/."),
    ("file_then_dotdot", "events/enable/.."),
    ("trailing_slash_file", "events/enable/"),
    ("trailing_slash_event_file", "events/sched/sched_switch/enable/"),
    ("trailing_slash_missing", "events/nosuch/"),
    ("through_file", "events/enable/x"),
    ("through_event_file", "events/sched/sched_switch/enable/x"),
    ("byte_ff", "events/sch\xffed"),
    ("byte_newline", "events/sched\n"),
    ("byte_space", "events/sched "),
    ("byte_colon", "events/sched:sched_switch"),
    ("byte_control", "events/\x01\x7f"),
    ("byte_backslash", "events/sched\\sched_switch"),
    ("byte_star", "events/sched/*"),
    ("upper_case", "events/SCHED"),
    ("missing_lazy_event", "events/sched/nosuch"),
    ("missing_instance", "instances/nosuch"),
]

OPS = ["stat", "open_rdonly", "open_creat", "mkdir", "rmdir", "unlink",
       "rename_from", "rename_to"]


def build(top):
    """A tree of the mirror's shape in TOP."""
    for d in DIRS:
        os.makedirs(os.path.join(top, d))
    for f in FILES:
        with open(os.path.join(top, f), "w") as fh:
            fh.write("0\n")


def call(op, top, rel):
    """Do OP on REL under TOP; 0 or the errno."""
    path = os.fsencode(os.path.join(top, rel).replace("\xff", "\udcff"))
    try:
        if op == "stat":
            os.stat(path)
        elif op == "open_rdonly":
            os.close(os.open(path, os.O_RDONLY))
        elif op == "open_creat":
            os.close(os.open(path, os.O_RDONLY | os.O_CREAT, 0o644))
        elif op == "mkdir":
            os.mkdir(path, 0o755)
        elif op == "rmdir":
            os.rmdir(path)
        elif op == "unlink":
            os.unlink(path)
        elif op == "rename_from":
            os.rename(path, os.path.join(top, "events", "kfe_renamed"))
        elif op == "rename_to":
            os.rename(os.path.join(top, "events", "enable"), path)
        else:
            raise ValueError(op)
    except OSError as e:
        return e.errno
    return 0


def snapshot(top):
    """The names in the tree under TOP."""
    return sorted(os.path.relpath(os.path.join(d, n), top)
                  for d, dirs, files in os.walk(top) for n in dirs + files)


def expected(op, rel, top, theirs, changed):
    """What our mount must answer, given tmpfs's answer THEIRS."""
    if theirs == 0:
        return REFUSED[op] if changed else 0
    last = rel.rstrip("/").rsplit("/", 1)[-1]
    # simple_rmdir() found the directory not empty: that is the
    # operation's verdict on a real directory, not the lookup's.
    if op == "rmdir" and theirs == errno.ENOTEMPTY and \
            last not in (".", "..") and \
            os.path.isdir(os.path.join(top, rel)):
        return REFUSED[op]
    return theirs


def name(err):
    return errno.errorcode.get(err, str(err)) if err else "success"


def main():
    s = Suite("kfe_lookup_errnos")
    # The worker builds the mirror after load; walking in once also
    # populates the lazy directories the shapes pass through.
    s.check("mirror_has_the_paths",
            settle(lambda: all(os.path.exists(os.path.join(MNT, p))
                               for p in DIRS + FILES)))
    ref = tempfile.mkdtemp(prefix="kfe-lookup-")
    subprocess.run(["mount", "-t", "tmpfs", "kfe-lookup", ref], check=True)
    try:
        for shape, rel in SHAPES:
            for op in OPS:
                top = tempfile.mkdtemp(dir=ref)
                build(top)
                before = snapshot(top)
                theirs = call(op, top, rel)
                changed = snapshot(top) != before
                want = expected(op, rel, top, theirs, changed)
                shutil.rmtree(top)
                ours = call(op, MNT, rel)
                print(f"{shape:28} {op:12} tmpfs {name(theirs):13} "
                      f"ours {name(ours)}", file=sys.stderr)
                s.check(f"{op}_{shape}", ours == want,
                        f"ours {name(ours)}, tmpfs {name(theirs)}, "
                        f"want {name(want)}")
    finally:
        subprocess.run(["umount", ref], check=False)
        os.rmdir(ref)
    s.finish()


main()
