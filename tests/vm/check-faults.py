#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Allocation failures injected with failslab's fail-nth into each
operation that makes kernfs_events allocate: module load (with the
replay of every instance and event), module load again with only its
kernfs nodes failing (failslab's cache-filter), mount, the population
of a lazy event directory (where an event's nodes are made), and the
two tracing operations that call into the module: trace instance
creation and kprobe event creation.

Every failed attempt must return an errno and leave nothing behind,
and the next attempt must succeed with the complete tree; where tracing
carries on (its callbacks into the module cannot fail), the mirror must
have everything tracing has: after the load the module's records cannot
fail, and the kernel log must not say it could not record something;
kmemleak, run by vm-run after the checks, must find nothing.

make stress (KFE_STRESS=full) sweeps: for N = 1, 2, ... the Nth slab
allocation of the operation fails, every N up to 400 (200 for instance
creation, where an attempt takes seconds; every one for event creation
and for the kernfs nodes of module load, which are few), then steps
that grow by a sixteenth, until the operation completes without
reaching N. From the stack each injected failure logs, it names the
allocation that failed (failslab.failed_site()), and writes the first
N that reached each site to $KFE_OUT/fault-sites.json.
KFE_FAULT_SWEEP="DENSE,STEP" sweeps every N up to DENSE, then in steps
that grow by 1/STEP, and writes the table the same way. KFE_FAULTS,
a list of this suite's case names, runs only those (and a full sweep
then writes their sites into the table as it was).

make check injects only at the numbers of tests/vm/fault-sites.json,
that table as a full sweep wrote it, and then once more with no failure
reached: each operation's every site, at one number each. A number can
move by a few allocations between boots (an xarray grows, a cache is
warm): a site not reached at its number is looked for at the numbers
next to it, and the check fails if it is not found there, unless the
table lists it as state-dependent, with the reason: a site of the
kernel's own that is reached only in some states (vmalloc allocates a
vmap_area only when its per-node pool has none of the size, which moves
the allocations after it), which the check names when it is not
reached. For module load, every site of the kernel's module loader is
such a site: only the sites in kernfs_events's own code (whose names
say kfe_) must be reached. And the allocations inside the module's
functions move too (an idr or a per-CPU pool allocates only when it
is low): a site of the module counts as reached when another
allocation of the same module function failed, since the failure runs
the same error path of the module.
"""
import ctypes
import errno
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from failslab import failed_site, inject, only, report_sites  # noqa: E402
from kmsg import Kmsg  # noqa: E402
from kprobes import kprobe  # noqa: E402
from ktap import Suite  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
MNT = os.environ["KFE_MNT"]
TOP = os.environ["KFE_TOP"]
FULL = os.environ.get("KFE_STRESS") == "full"
# Sweep every N up to a number, then in steps that grow by a fraction:
# make stress sweeps (400, 1/16); KFE_FAULT_SWEEP="DENSE,STEP" sweeps
# the same way with other numbers, for a quicker table.
SWEEP = ((400, 16) if FULL else
         tuple(int(n) for n in os.environ["KFE_FAULT_SWEEP"].split(","))
         if "KFE_FAULT_SWEEP" in os.environ else None)
LIMIT = 20000

s = Suite("kfe_faults")
libc = ctypes.CDLL(None, use_errno=True)


SITES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "fault-sites.json")
with open(SITES) as f:
    TABLE = json.load(f)
# Sites that an operation reaches only in some states of the kernel,
# each with the reason: not reaching one is reported, not failed.
VARIES = TABLE.get("state-dependent", {})
# The key in VARIES that stands for every site of an operation outside
# kernfs_events's own code (module_function() None).
KERNEL = "(the kernel's module loader)"
FOUND = dict(TABLE)  # the table a full sweep writes
ONLY = os.environ.get("KFE_FAULTS", "").split()
NEAR = 8    # how far from its number a site is looked for


def nths(dense, step):
    """1, 2, ... DENSE, then steps that grow by 1/STEP."""
    n = 1
    while n <= LIMIT:
        yield n
        n += 1 if n < dense else n // step


def sweep(name, attempt, check, teardown, setup=lambda: None, dense=400):
    """SETUP(), ATTEMPT() with its Nth allocation failing, CHECK(errno,
    kernel log records) the state it left, TEARDOWN(): for every N of a
    full sweep, or for the numbers of NAME's sites in the table. CHECK
    returns how many things the module said it could not record.
    Returns the number of failures and the sum of those."""
    failures = unrecorded = 0
    sites = {}  # site: the first N that reached it

    def at(n):
        nonlocal failures, unrecorded
        setup()
        log = Kmsg()
        err, reached = inject(n, attempt)
        records = log.records()
        try:
            if not reached:
                need(err == 0, f"errno {err} without a fault")
            unrecorded += check(err, records) or 0
        except AssertionError as e:
            raise AssertionError(f"N={n}: {e}")
        finally:
            teardown()
        failures += bool(err)
        if reached:
            sites.setdefault(failed_site(records) or "(not logged)", n)
        return reached

    if SWEEP:
        for n in nths(dense if dense == LIMIT else min(dense, SWEEP[0]),
                      SWEEP[1]):
            if not at(n):
                break
        else:
            raise AssertionError(f"{name}: still allocating after {LIMIT}")
        FOUND[name] = sites
        with open(os.path.join(os.environ["KFE_OUT"], "fault-sites.json"),
                  "w") as f:
            json.dump(FOUND, f, indent=1, sort_keys=True)
    else:
        want = TABLE[name]
        for n in sorted(set(want.values())):
            at(n)
        need(not at(LIMIT), f"{name}: still allocating after {LIMIT}")
        for site, n in sorted(want.items(), key=lambda i: i[1]):
            for m in (n + d for i in range(1, NEAR + 1) for d in (i, -i)):
                if site in sites or m < 1:
                    continue
                at(m)
    for site, n in sorted(sites.items(), key=lambda i: i[1]):
        print(f"# {name}: N={n} fails {site}", file=sys.stderr)
    if not SWEEP:
        varies = VARIES.get(name, {})

        def why(site):
            if site in varies:
                return varies[site]
            if KERNEL in varies and module_function(site) is None:
                return varies[KERNEL]
            return None
        failed_in = {module_function(x) for x in sites} - {None}
        missing = []
        for site in sorted(set(want) - set(sites)):
            fn = module_function(site)
            if why(site):
                print(f"# {name}: not reached: {site}: {why(site)}",
                      file=sys.stderr)
            elif fn in failed_in:
                print(f"# {name}: not reached: {site}, but another "
                      f"allocation of {fn} failed", file=sys.stderr)
            else:
                missing.append(site)
        need(not missing, f"{name}: sites not reached within {NEAR} of "
             f"their numbers: {missing}")
    named = (f", {unrecorded} times the mirror left out what the "
             f"module's warning named" if unrecorded else "")
    print(f"# {name}: {failures} injected failures returned an errno"
          f"{named}; {len(sites)} sites reached", file=sys.stderr)
    return failures, unrecorded


def module_function(site):
    """The function of kernfs_events whose allocation SITE is, whose
    error path a failure there runs; None for a site of the kernel's."""
    if " in " in site:
        return site.split(" in ", 1)[1]
    caller = site.split(">")[0]
    return caller if caller.startswith("kfe_") else None


def need(cond, what):
    if not cond:
        raise AssertionError(what)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def loaded():
    with open("/proc/modules") as f:
        return any(line.startswith("kernfs_events ") for line in f)


with open(os.path.join(TOP, "kernfs_events.ko"), "rb") as f:
    IMAGE = f.read()


def init_module():
    """init_module(2) of kernfs_events from memory: a failure injected
    into a read of the file from the guest's 9p root could break the
    9p client for every later exec."""
    if libc.syscall(175, IMAGE, len(IMAGE), b"") != 0:
        raise OSError(ctypes.get_errno(), "init_module")


def mount():
    if libc.mount(b"kernfs_events", MNT.encode(), b"kernfs_events", 0, None):
        raise OSError(ctypes.get_errno(), "mount")


def tree_complete():
    """Our events tree has every system tracefs has, with its events."""
    ours = set(os.listdir(os.path.join(MNT, "events")))
    theirs = set(os.listdir(os.path.join(TRACEFS, "events")))
    return theirs <= ours


def wait(cond, timeout=60):
    end = time.time() + timeout
    while not cond() and time.time() < end:
        time.sleep(0.05)
    return cond()


class MountRacer:
    """Mounts kernfs_events in a loop on another thread, unmounting each
    mount at once, from start() to stop(), which returns the number of
    tries and of mounts made."""
    MNT = os.path.join(os.environ.get("TMPDIR", "/tmp"), "kfe_race")

    def start(self):
        os.makedirs(self.MNT, exist_ok=True)
        self.tries = self.mounts = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.loop)
        self.thread.start()

    def loop(self):
        while not self.stopping.is_set():
            self.tries += 1
            if libc.mount(b"kernfs_events", self.MNT.encode(),
                          b"kernfs_events", 0, None) == 0:
                self.mounts += 1
                need(libc.umount2(self.MNT.encode(), 0) == 0, "umount")

    def stop(self):
        self.stopping.set()
        self.thread.join()
        return self.tries, self.mounts


def no_module_autoload():
    """Mounting an unregistered type asks modprobe for it: not here."""
    with open("/proc/sys/kernel/modprobe") as f:
        saved = f.read()
    with open("/proc/sys/kernel/modprobe", "w") as f:
        f.write("\n")
    return saved


def module_load(name="module_load", dense=400, expect=None):
    """Sweep init_module() while another thread mounts in a loop: a
    failed load returns EXPECT, if given, and no mount got through
    before it failed. The racer starts before and stops after each
    attempt, so that its thread's allocations are not the injected."""
    need(run("umount", MNT).returncode == 0, "umount")
    need(run("rmmod", "kernfs_events").returncode == 0, "rmmod")
    racer, raced = MountRacer(), [0]
    modprobe = no_module_autoload()

    def check(err, records):
        tries, mounts = racer.stop()
        if err:
            raced[0] += tries
            need(not mounts, f"{mounts} mounts made during a load that failed")
            need(not loaded(), "insmod failed but the module is loaded")
            need(expect in (None, err),
                 f"insmod failed with {errno.errorcode[err]}, "
                 f"not {errno.errorcode.get(expect)}")
            return
        mount()
        need(wait(tree_complete), "the module mirrors an incomplete tree")
        need(run("umount", MNT).returncode == 0, "umount")

    def teardown():
        if loaded():
            need(run("rmmod", "kernfs_events").returncode == 0, "rmmod")
    try:
        failures, _ = sweep(name, init_module, check, teardown,
                            racer.start, dense)
        need(failures > 0, "no failure injected")
        print(f"# {name}: {raced[0]} mounts tried during the {failures} "
              f"failed loads, none made", file=sys.stderr)
        need(raced[0] > failures, "the mounts did not race the loads")
    finally:
        with open("/proc/sys/kernel/modprobe", "w") as f:
            f.write(modprobe)
        if not loaded():
            init_module()
        mount()


def module_load_kernfs_nodes():
    """Module load with only kernfs nodes failing, every one of them:
    the sysfs directories and files of the module and of its slab
    cache, and those the module makes itself."""
    with only("kernfs_node_cache"):
        module_load("module_load_kernfs_nodes", dense=LIMIT)


def module_load_cache_nodes():
    """Module load with only the per-node structures of slab caches
    failing: the module's slab cache cannot be made, and the load
    reports it as a shortage of memory."""
    with only("kmem_cache_node"):
        module_load("module_load_cache_nodes", dense=LIMIT,
                    expect=errno.ENOMEM)


def mount_sweep():
    def check(err, records):
        mounted = run("mountpoint", "-q", MNT).returncode == 0
        need(mounted == (err == 0), f"errno {err}, mounted {mounted}")

    def teardown():
        if run("mountpoint", "-q", MNT).returncode == 0:
            need(run("umount", MNT).returncode == 0, "umount")
    need(run("umount", MNT).returncode == 0, "umount")
    try:
        failures, _ = sweep("mount", mount, check, teardown)
        need(failures > 0, "no failure injected")
    finally:
        mount()


def remount(options):
    if libc.mount(b"none", MNT.encode(), None, 32, options.encode()):
        raise OSError(ctypes.get_errno(), f"remount {options}")


def owners(top):
    """The set of (uid, gid) of TOP and every node below it."""
    found = {(os.lstat(top).st_uid, os.lstat(top).st_gid)}
    for d, dirs, files in os.walk(top):
        for name in dirs + files:
            st = os.lstat(os.path.join(d, name))
            found.add((st.st_uid, st.st_gid))
    return found


def shown_options():
    with open("/proc/mounts") as f:
        for line in f:
            dev, mnt, fstype, opts = line.split()[:4]
            if mnt == MNT:
                return opts
    return None


def remount_sweep():
    """remount uid=5,gid=6,mode=0750 applies whole or not at all: a
    failed one leaves every node's owner, the root's mode and
    /proc/mounts as they were. The module allocates nothing for it:
    kernfs_root_set_owner() needs nothing per node, and the root's
    iattr, which mode= needs, exists since the first mount; what fails
    is the VFS's side of the remount."""
    synth = os.path.join(MNT, "synth")
    before = shown_options()

    def state():
        st = os.lstat(MNT)
        return owners(synth) | {(st.st_uid, st.st_gid)}, st.st_mode & 0o777

    def check(err, records):
        if err:
            need(err == errno.ENOMEM, f"errno {errno.errorcode[err]}")
            need(shown_options() == before, "/proc/mounts changed")
            need(state() == ({(0, 0)}, 0o700),
                 "a failed remount changed owners or the mode")
        else:
            need(state() == ({(5, 6)}, 0o750), "owners not all 5:6")

    need(run("insmod", os.path.join(TOP, "kfe_synth.ko"), "nr_systems=1",
             "nr_events=2").returncode == 0, "insmod")
    try:
        failures, _ = sweep("remount",
                            lambda: remount("uid=5,gid=6,mode=0750"), check,
                            lambda: remount("uid=0,gid=0,mode=0700"))
        need(failures > 0, "no failure injected")
    finally:
        remount("uid=0,gid=0,mode=0700")
        need(run("rmmod", "kfe_synth").returncode == 0, "rmmod")


INST = os.path.join(TRACEFS, "instances", "kfe_faults")
OURS = os.path.join(MNT, "instances", "kfe_faults")


def instance_gone():
    if os.path.exists(INST):
        os.rmdir(INST)
    need(wait(lambda: not os.path.exists(OURS)),
         "the mirror of a removed instance stayed")


def same_as_tracefs(rel):
    theirs = os.path.join(INST, "events", rel)
    ours = os.path.join(OURS, "events", rel)
    return sorted(os.listdir(ours)) == sorted(os.listdir(theirs))


def populate_sweep():
    """The population of a lazy system and event directory: where the
    mirror makes an event's nodes."""
    def setup():
        os.mkdir(INST)
        need(wait(lambda: os.path.exists(os.path.join(OURS, "events"))),
             "instance not mirrored")
        os.listdir(os.path.join(OURS, "events"))

    def attempt():
        os.listdir(os.path.join(OURS, "events", "sched"))
        os.listdir(os.path.join(OURS, "events", "sched", "sched_switch"))

    def check(err, records):
        # Failed or not, the next look finds the whole directories.
        need(same_as_tracefs("sched"), "system differs from tracefs")
        need(same_as_tracefs("sched/sched_switch"), "event differs")
    failures, _ = sweep("populate", attempt, check, instance_gone, setup)
    need(failures > 0, "no failure injected")


def unrecorded(records):
    """What kernfs_events said, in kernel log RECORDS, it had no memory
    to mirror: a set of instance names ("(top)" for the top level), and
    one of (instance, system, event)."""
    instances, events = set(), set()
    for msg in records:
        what = msg.partition("kernfs_events: no memory to mirror ")[2]
        if what.startswith("instance "):
            instances.add(what.split()[1])
        elif what.startswith("event "):
            _, path, _, _, inst = what.split()
            events.add((inst, *path.split("/", 1)))
    return instances, events


def events_of(top, systems):
    """The (system, event) directories under TOP/events."""
    found = set()
    for sys_ in systems or os.listdir(os.path.join(top, "events")):
        d = os.path.join(top, "events", sys_)
        if os.path.isdir(d):
            found |= {(sys_, e) for e in os.listdir(d)
                      if os.path.isdir(os.path.join(d, e))}
    return found


def mirrors(theirs_top, ours_top, unrecorded, systems=None):
    """Our tree gets the event directories of tracefs's, less those the
    module said it could not record, and never more. UNRECORDED is a
    unrecorded() set of events."""
    inst = "(top)" if theirs_top == TRACEFS else os.path.basename(theirs_top)
    theirs = events_of(theirs_top, systems)
    theirs -= {(sy, ev) for i, sy, ev in unrecorded if i == inst}
    got = set()

    def same():
        nonlocal got
        got = events_of(ours_top, systems) if os.path.isdir(ours_top) else set()
        return got == theirs
    need(wait(same), f"{ours_top}: {len(theirs - got)} events missing, "
         f"{len(got - theirs)} extra, e.g. {sorted(theirs ^ got)[:3]}")


def instance_sweep():
    """Trace instance creation: tracing makes the instance and its
    events, and calls the module for each in the same task."""
    def attempt():
        os.mkdir(INST)

    def check(err, records):
        instances, events = unrecorded(records)
        exists = os.path.exists(INST)
        need(exists == (err == 0), f"errno {err}, instance exists {exists}")
        need(not instances and not events,
             f"the module could not record {sorted(instances | events)[:3]}")
        if not exists:
            need(wait(lambda: not os.path.exists(OURS)),
                 "an instance tracefs does not have is mirrored")
            return 0
        mirrors(INST, OURS, set())
        return 0
    failures, _ = sweep("instance", attempt, check, instance_gone,
                        dense=200)
    need(failures > 0, "no failure injected")


KPROBE = os.path.basename(INST)


def listed():
    with open(os.path.join(TRACEFS, "kprobe_events")) as f:
        return any(f":kprobes/{KPROBE} " in line for line in f)


def event_sweep():
    """kprobe event creation: tracing makes the event in every
    instance, and calls the module for each in the same task."""
    os.mkdir(INST)

    def attempt():
        err = kprobe(f"p:{KPROBE} ksys_sync")
        if err:
            raise OSError(err, "kprobe_events")

    def check(err, records):
        _, events = unrecorded(records)
        is_listed = listed()
        need(is_listed == (err == 0), f"errno {err}, listed {is_listed}")
        need(not events, f"the module could not record {sorted(events)}")
        for top, ours in ((TRACEFS, MNT), (INST, OURS)):
            mirrors(top, ours, set(), ["kprobes"])
        return 0

    def teardown():
        if listed():
            need(kprobe(f"-:{KPROBE}") == 0, "cannot delete the kprobe")
        need(wait(lambda: not any(
            os.path.exists(os.path.join(top, "events", "kprobes", KPROBE))
            for top in (MNT, OURS))), "the mirror of a deleted event stayed")
    try:
        failures, _ = sweep("event", attempt, check, teardown,
                            dense=LIMIT)
        need(failures > 0, "no failure injected")
    finally:
        instance_gone()


report_sites()
for case, fn in (("fault_module_load", module_load),
                 ("fault_module_load_kernfs_nodes", module_load_kernfs_nodes),
                 ("fault_module_load_cache_nodes", module_load_cache_nodes),
                 ("fault_mount", mount_sweep),
                 ("fault_remount", remount_sweep),
                 ("fault_lazy_population", populate_sweep),
                 ("fault_instance_creation", instance_sweep),
                 ("fault_event_creation", event_sweep)):
    if not ONLY or case in ONLY:
        s.run(case, fn)
s.finish()
