#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Print the benchmark's table, check its JSON, and draw its plots.

    report.py [--check] [--plots DIR] [--rst FILE] BENCH.json

--check only validates the JSON (tests/vm/check-bench) and exits 1 naming
what is missing or wrong. --plots writes bench-memory.svg, bench-time.svg
and bench-scale.svg into DIR. --rst writes the results as the
reStructuredText that the guide's performance chapter includes.
"""
import json
import math
import sys

DESIGNS = ("kernfs_events", "eventfs", "dentry_per_file")
STATES = ("idle", "remounted", "walked", "tarred", "pressed", "dropped")
OPS = ("find", "ls_lR", "stat_all", "read_all", "tar")
# Filter write pairs, timed on the designs that have tracing's files.
FILTER_DESIGNS = ("kernfs_events", "eventfs")
FILTERS = ("event", "system")
SIZE_POLICIES = ("exact", "zero", "eventfs")


def problems(r):
    """Everything wrong with the result R; empty if it is well formed."""
    bad = []

    def num(where, v, positive=True):
        if not isinstance(v, (int, float)) or isinstance(v, bool) or \
                math.isnan(v) or (positive and v <= 0):
            bad.append(f"{where} = {v!r}")

    num("events", r.get("events"))
    for d in DESIGNS:
        dr = r.get("designs", {}).get(d)
        if dr is None:
            bad.append(f"design {d} missing")
            continue
        for s in STATES:
            num(f"{d}.bytes_per_event_{s}", dr.get(f"bytes_per_event_{s}"),
                positive=False)
        num(f"{d}.bytes_per_event_walked", dr.get("bytes_per_event_walked"),
            positive=r.get("allocation_profiling", True))
        for op in OPS:
            for kind in ("cold", "warm"):
                t = dr.get("timings", {}).get(op, {}).get(kind, {})
                for k in ("median", "min", "max", "ratio_to_eventfs"):
                    num(f"{d}.{op}.{kind}.{k}", t.get(k))
                if t and not t["min"] <= t["median"] <= t["max"]:
                    bad.append(f"{d}.{op}.{kind}: median outside min..max")
        if d not in FILTER_DESIGNS:
            continue
        for f in FILTERS:
            w = dr.get("filter_writes", {}).get(f, {})
            for k in ("median", "min", "max", "ratio_to_eventfs"):
                num(f"{d}.filter_writes.{f}.{k}", w.get(k))
            if w and not w["min"] <= w["median"] <= w["max"]:
                bad.append(f"{d}.filter_writes.{f}: median outside min..max")
    for s in r.get("scale", []) or [None]:
        if not s or not s.get("mirrored"):
            bad.append(f"scale run not mirrored: {s}")
            continue
        for d in ("kernfs_events", "eventfs"):
            for k in ("list_cold_s", "list_warm_s", "stat_cold_s",
                      "stat_warm_s"):
                num(f"scale {s['events']}: {d}_{k}", s.get(f"{d}_{k}"))
    for k in SIZE_POLICIES:
        s = r.get("size_policies", {}).get(k, {})
        for x in ("median", "min", "max", "ratio_to_eventfs"):
            num(f"size_policies.{k}.{x}", s.get(x))
    num("module_load.insmod_s", r.get("module_load", {}).get("insmod_s"))
    return bad


def table(r):
    n = r["events"]
    print(f"{n} events, {r['systems']} systems, {r['files']} files, "
          f"kernel {r['kernel']}")
    print()
    print(f"{'bytes per event':16}" + "".join(f"{s:>10}" for s in STATES))
    for d in DESIGNS:
        dr = r["designs"][d]
        print(f"{d:16}" + "".join(f"{dr[f'bytes_per_event_{s}']:10.0f}"
                                  for s in STATES))
    print()
    print(f"{'seconds (ratio)':16}" + "".join(
        f"{op + ' ' + k:>19}" for op in OPS for k in ("cold", "warm")))
    for d in DESIGNS:
        t = r["designs"][d]["timings"]
        print(f"{d:16}" + "".join(
            f"{t[op][k]['median']:10.3f} ({t[op][k]['ratio_to_eventfs']:5.2f})"
            for op in OPS for k in ("cold", "warm")))
    print()
    print(f"{'filter write ms':16}" + "".join(f"{f:>19}" for f in FILTERS))
    for d in FILTER_DESIGNS:
        w = r["designs"][d]["filter_writes"]
        print(f"{d:16}" + "".join(
            f"{w[f]['median'] * 1e3:10.3f} ({w[f]['ratio_to_eventfs']:5.2f})"
            for f in FILTERS))
    print()
    sp = r["size_policies"]
    print("stat_all warm    " + "".join(
        f"{k:>8} {sp[k]['median']:.3f} ({sp[k]['ratio_to_eventfs']:.2f})"
        for k in SIZE_POLICIES))
    print()
    print(f"{'scale':>8} {'mirror s':>9}" + "".join(
        f"{d[:8] + ' ' + k:>18}" for d in ("kernfs_events", "eventfs")
        for k in ("list", "stat")))
    for s in r["scale"]:
        print(f"{s['events']:8} {s['mirror_s']:9.2f}" + "".join(
            f"{s[f'{d}_{k}_warm_s'] * 1e3:15.3f} ms"
            for d in ("kernfs_events", "eventfs") for k in ("list", "stat")))
    m = r["module_load"]
    print(f"\nmodule load {m['insmod_s']:.2f} s, "
          f"mirror listed {m['mirrored_s']:.2f} s after insmod")


def plots(r, out):
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "kernfs_events"
    meta = {"Date": None}

    fig, ax = plt.subplots(figsize=(7, 3.5))
    width = 0.25
    for i, d in enumerate(DESIGNS):
        v = [r["designs"][d][f"bytes_per_event_{s}"] for s in STATES]
        ax.bar([x + i * width for x in range(len(STATES))], v, width,
               label=d)
    ax.set_xticks([x + width for x in range(len(STATES))], STATES)
    ax.set_yscale("log")
    ax.set_ylabel("bytes per event (log)")
    ax.set_title(f"Memory of the filesystem, {r['events']} events")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{out}/bench-memory.svg", metadata=meta)

    fig, ax = plt.subplots(figsize=(7, 3.5))
    labels = [f"{op}\n{k}" for op in OPS for k in ("cold", "warm")]
    for i, d in enumerate(DESIGNS):
        t = r["designs"][d]["timings"]
        v = [t[op][k]["ratio_to_eventfs"] for op in OPS
             for k in ("cold", "warm")]
        ax.bar([x + i * width for x in range(len(labels))], v, width,
               label=d)
    ax.axhline(1, color="grey", linewidth=0.8)
    ax.set_xticks([x + width for x in range(len(labels))], labels)
    ax.set_ylabel("time / eventfs time (median)")
    ax.set_title("Tree walks, relative to eventfs")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{out}/bench-time.svg", metadata=meta)

    fig, ax = plt.subplots(figsize=(7, 3.5))
    ns = [s["events"] for s in r["scale"]]
    for d in ("kernfs_events", "eventfs"):
        for k, style in (("list", "-"), ("stat", "--")):
            ax.plot(ns, [s[f"{d}_{k}_warm_s"] * 1e3 for s in r["scale"]],
                    style, marker="o", label=f"{d} {k} (warm)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("events in one directory")
    ax.set_ylabel("ms (log)")
    ax.set_title("One large directory")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{out}/bench-scale.svg", metadata=meta)


def rst(r, path):
    n = r["events"]
    d = r["designs"]
    ev = d["eventfs"]
    out = [f"Measured by ``make bench`` on Linux {r['kernel']}: "
           f"{n} events in {r['systems']} systems, {r['files']} files.", "",
           "Bytes per event", "---------------", "",
           ".. list-table::", "   :header-rows: 1", "",
           "   * - design", *[f"     - {s}" for s in STATES],
           "     - at rest, relative to eventfs"]
    for name in DESIGNS:
        b = d[name]
        out.append(f"   * - ``{name}``")
        out += [f"     - {b[f'bytes_per_event_{s}']:.0f}" for s in STATES]
        out.append(f"     - {b['bytes_per_event_idle'] / ev['bytes_per_event_idle']:.2f}")
    out += ["", ".. figure:: images/bench-memory.svg", "   :width: 100%", "",
            "   Bytes per event in each state (log scale).", "",
            "Time", "----", "",
            f"Median seconds of {d['eventfs']['timings'][OPS[0]]['warm']['runs']} "
            "runs, the designs taking turns, run from each design's events "
            "directory, and in brackets the ratio to eventfs's median; the "
            "range of the runs is in the JSON file.", "",
            ".. list-table::", "   :header-rows: 1", "",
            "   * - design", *[f"     - {op} {k}" for op in OPS
                               for k in ("cold", "warm")]]
    for name in DESIGNS:
        t = d[name]["timings"]
        out.append(f"   * - ``{name}``")
        out += [f"     - {t[op][k]['median']:.3f} "
                f"({t[op][k]['ratio_to_eventfs']:.2f})"
                for op in OPS for k in ("cold", "warm")]
    out += ["", ".. figure:: images/bench-time.svg", "   :width: 100%", "",
            "   Time relative to eventfs (1 = as fast).", "",
            "Filter writes", "-------------", "",
            "Median milliseconds of "
            f"{d['eventfs']['filter_writes']['event']['runs']} pairs of "
            "writes, ``common_pid != 1`` then ``0``, each opened with "
            "``O_TRUNC``, written once and closed, after every node had "
            "been walked; in brackets the ratio to eventfs's median. "
            "*event* is ``sched/sched_switch/filter``, *system* "
            "``sched/filter``.", "",
            ".. list-table::", "   :header-rows: 1", "",
            "   * - design", *[f"     - {f} filter (ms)" for f in FILTERS]]
    for name in FILTER_DESIGNS:
        w = d[name]["filter_writes"]
        out.append(f"   * - ``{name}``")
        out += [f"     - {w[f]['median'] * 1e3:.3f} "
                f"({w[f]['ratio_to_eventfs']:.2f})" for f in FILTERS]
    sp = r["size_policies"]
    out += ["",
            "Size policies", "-------------", "",
            f"Median seconds of {sp['eventfs']['runs']} warm ``stat`` walks "
            "of every node of the mirror under each ``size=`` policy and of "
            "eventfs's tree, taking turns; in brackets the ratio to "
            "eventfs's median. ``size=zero`` reports what eventfs reports "
            "and renders nothing: what is left is kernfs's own ``stat()``.",
            "",
            ".. list-table::", "   :header-rows: 1", "",
            "   * - ``size=exact``", "     - ``size=zero``", "     - eventfs",
            "   * - " + "\n     - ".join(
                f"{sp[k]['median']:.3f} ({sp[k]['ratio_to_eventfs']:.2f})"
                for k in SIZE_POLICIES)]
    out += ["",
            "Scale", "-----", "",
            "One directory of N events; times in ms, and in seconds the "
            "time until the mirror showed all N.", "",
            ".. list-table::", "   :header-rows: 1", "",
            "   * - N",
            *[f"     - {s['events']} {x}" for s in r["scale"]
              for x in ("ours", "eventfs")]]
    for k in ("list", "stat"):
        for w in ("cold", "warm"):
            out.append(f"   * - {k}, {w}")
            out += [f"     - {s[f'{x}_{k}_{w}_s'] * 1e3:.2f}"
                    for s in r["scale"] for x in ("kernfs_events", "eventfs")]
    out.append("   * - mirrored (s)")
    for s in r["scale"]:
        out += [f"     - {s['mirror_s']:.2f}", "     - —"]
    m = r["module_load"]
    out += ["", ".. figure:: images/bench-scale.svg", "   :width: 100%", "",
            "   One large directory: warm listing and stat.", "",
            f"Loading the module took {m['insmod_s']:.2f} s, and every "
            f"system was listed in the mirror {m['mirrored_s']:.2f} s after "
            "the load began.", ""]
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    args = sys.argv[1:]
    check = "--check" in args
    out = args[args.index("--plots") + 1] if "--plots" in args else None
    with open(args[-1]) as f:
        r = json.load(f)
    bad = problems(r)
    for b in bad:
        print(f"bad: {b}")
    if check or bad:
        sys.exit(1 if bad else 0)
    table(r)
    if out:
        plots(r, out)
    if "--rst" in args:
        rst(r, args[args.index("--rst") + 1])


if __name__ == "__main__":
    main()
