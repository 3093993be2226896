#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/plot/plot_bench.py - bar charts of upcache-bench JSON results.

Owns turning one or more result files of `upcache-bench SUITE --json FILE`
into one PNG: a panel per unit (ns/op, ns/entry, ns/split, B/entry,
Mops/thread, ns/folio, ns/page), in each a group of bars per row: one bar
per result file (its median, with the min..max of its rounds as an error
bar) and, where the row has one, a hatched bar for the kernel's reference
figure.  The kernel figures are published references, not measurements on
the same machine; the chart says so.

Suites that time pairs (filemap: a new path and its baseline) give their
new rows a "speedup" (baseline ns / new ns, median and min..max over
rounds) and maybe a "speedup_target"; those get one more panel, "speedup
(x)", with the targets marked and a line at 1 (no change).

    tools/plot/plot_bench.py results/xarray.json -o results/xarray.png
    tools/plot/plot_bench.py results/filemap.json -o results/filemap.png
    tools/plot/plot_bench.py before.json after.json -o cmp.png --linear

The benchmark itself never needs Python; only this script does, with
matplotlib (Debian: python3-matplotlib; or pip install matplotlib).
Errors (a missing or malformed file, no matplotlib) print one line and
exit with status 2, as upcache-bench does.
"""

import argparse
import json
import math
import os
import sys

EXIT_ERROR = 2

# Lower is better for every unit but throughput.
HIGHER_IS_BETTER = {"Mops/thread"}

KERNEL_NOTE = ("kernel ref: the Linux kernel's own XArray measured on "
               "typical hardware (a reference, not this machine)")

SPEEDUP_PANEL = "speedup (x)"
SPEEDUP_NOTE = ("speedup: baseline ns / new ns of the same round "
                "(above 1: the new path is faster)")


def die(msg):
    """Print "plot_bench: MSG" and exit with status 2."""
    print(f"plot_bench: {msg}", file=sys.stderr)
    sys.exit(EXIT_ERROR)


def number(value):
    """A JSON figure as a float; None, NaN and non-numbers become None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return None if math.isnan(value) or math.isinf(value) else float(value)


def load_result(path):
    """Read and check one result file: {"benchmark": ..., "rows": [...]}."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        die(f"cannot read '{path}': {e.strerror}")
    except json.JSONDecodeError as e:
        die(f"'{path}' is not JSON: {e}")
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        die(f"'{path}' is not an upcache-bench result "
            "(no \"rows\" array)")
    for i, row in enumerate(data["rows"]):
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            die(f"'{path}': row {i} has no name")
        if not isinstance(row.get("unit"), str):
            die(f"'{path}': row '{row['name']}' has no unit")
    return data


def label_of(path, data):
    """The legend label of one result: its file name and mode."""
    name = os.path.splitext(os.path.basename(path))[0]
    mode = data.get("mode")
    return f"{name} ({mode})" if isinstance(mode, str) else name


def group_by_unit(results):
    """Rows by unit, in first-seen order: {unit: [row name, ...]}."""
    units = {}
    for _, data in results:
        for row in data["rows"]:
            names = units.setdefault(row["unit"], [])
            if row["name"] not in names:
                names.append(row["name"])
    return units


def find_row(data, name):
    """The row called NAME in one result, or None."""
    for row in data["rows"]:
        if row["name"] == name:
            return row
    return None


def kernel_ref(results, name):
    """The kernel reference of row NAME, from the first result having one."""
    for _, data in results:
        row = find_row(data, name)
        ref = number(row.get("kernel_ref")) if row else None
        if ref is not None:
            return ref
    return None


def speedup_names(results):
    """Rows with a speedup figure in any result, in first-seen order."""
    names = []
    for _, data in results:
        for row in data["rows"]:
            if number(row.get("speedup")) is not None and \
                    row["name"] not in names:
                names.append(row["name"])
    return names


def has_kernel_refs(results):
    """Does any row of any result carry a kernel reference?"""
    return any(number(row.get("kernel_ref")) is not None
               for _, data in results for row in data["rows"])


def draw_result_bars(ax, names, results, labels, key, series):
    """One bar per row and result: KEY, with KEY_min..KEY_max as error bar.

    SERIES is how many bars share a group (the results, and maybe more
    drawn by the caller after them)."""
    width = 0.8 / series
    for s, ((_, data), label) in enumerate(zip(results, labels)):
        xs, ys, lo, hi = [], [], [], []
        for i, name in enumerate(names):
            row = find_row(data, name)
            value = number(row.get(key)) if row else None
            if value is None:
                continue
            vmin = number(row.get(f"{key}_min"))
            vmax = number(row.get(f"{key}_max"))
            xs.append(i + (s - (series - 1) / 2) * width)
            ys.append(value)
            lo.append(value - vmin if vmin is not None else 0)
            hi.append(vmax - value if vmax is not None else 0)
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2,
               label=f"upcache: {label}")


def draw_speedup_panel(ax, names, results, labels, legend):
    """Each pair's speedup per result, its target, and a line at 1."""
    draw_result_bars(ax, names, results, labels, "speedup", len(results))
    targets = []
    for i, name in enumerate(names):
        for _, data in results:
            row = find_row(data, name)
            target = number(row.get("speedup_target")) if row else None
            if target is not None:
                targets.append((i, target))
                break
    for n, (i, target) in enumerate(targets):
        ax.hlines(target, i - 0.45, i + 0.45, colors="black",
                  linewidth=2, label="target" if n == 0 else None)
    ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"{SPEEDUP_PANEL} (higher is better)")
    ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    if legend:
        ax.legend(fontsize=7)


def draw_panel(ax, unit, names, results, labels, log_scale, legend):
    """One unit's grouped bars: each result, then the kernel reference."""
    series = len(results) + 1
    width = 0.8 / series
    draw_result_bars(ax, names, results, labels, "value", series)
    refs = [(i, kernel_ref(results, n)) for i, n in enumerate(names)]
    refs = [(i, r) for i, r in refs if r is not None]
    if refs:
        ax.bar([i + (series - 1 - (series - 1) / 2) * width
                for i, _ in refs],
               [r for _, r in refs], width, color="white",
               edgecolor="black", hatch="//", label="kernel ref")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    better = "higher" if unit in HIGHER_IS_BETTER else "lower"
    ax.set_ylabel(f"{unit} ({better} is better)")
    if log_scale and unit not in HIGHER_IS_BETTER:
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    if legend:
        ax.legend(fontsize=7)


def render(results, out, title, log_scale):
    """Lay out one panel per unit and write the PNG to OUT."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        die("matplotlib is needed (Debian: apt-get install "
            "python3-matplotlib; or: pip install matplotlib)")
    units = group_by_unit(results)
    speedups = speedup_names(results)
    labels = [label_of(path, data) for path, data in results]
    panels = list(units.items())
    if speedups:
        panels.append((SPEEDUP_PANEL, speedups))
    widths = [max(2, len(names)) for _, names in panels]
    fig, axes = plt.subplots(1, len(panels), squeeze=False,
                             gridspec_kw={"width_ratios": widths},
                             figsize=(2 + 0.9 * sum(widths), 5.5))
    # One legend, in the first panel (the same series run through all),
    # and the speedup panel's own (it adds the targets).
    for n, (ax, (unit, names)) in enumerate(zip(axes[0], panels)):
        if unit == SPEEDUP_PANEL:
            draw_speedup_panel(ax, names, results, labels, True)
        else:
            draw_panel(ax, unit, names, results, labels, log_scale, n == 0)
    fig.suptitle(title)
    notes = [KERNEL_NOTE] if has_kernel_refs(results) else []
    if speedups:
        notes.append(SPEEDUP_NOTE)
    notes.append("bars: median, whiskers: min..max over rounds")
    fig.text(0.01, 0.01, "; ".join(notes), fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    try:
        fig.savefig(out, dpi=120)
    except OSError as e:
        die(f"cannot write '{out}': {e.strerror}")
    plt.close(fig)


def main(argv=None):
    """Parse the command line, read the results, draw them."""
    parser = argparse.ArgumentParser(
        description="Bar chart of upcache-bench JSON results "
                    "(upcache vs kernel reference, per row; speedups "
                    "of paired rows).")
    parser.add_argument("results", nargs="+", metavar="RESULT.json",
                        help="output of upcache-bench SUITE --json FILE")
    parser.add_argument("-o", "--output", required=True, metavar="PNG",
                        help="the PNG file to write")
    parser.add_argument("--title", help="chart title (default: from the "
                        "results' benchmark name)")
    parser.add_argument("--linear", action="store_true",
                        help="linear time axes (default: logarithmic, "
                        "as figures span 1 ns to several us)")
    args = parser.parse_args(argv)
    results = [(path, load_result(path)) for path in args.results]
    if not any(number(row.get("value")) is not None
               for _, data in results for row in data["rows"]):
        die("no row has a figure (\"value\") to plot; the seed "
            "experiments' files are for tools/plot/plot_seeds.py")
    benchmarks = sorted({str(d.get("benchmark")) for _, d in results})
    title = args.title or f"upcache-bench {', '.join(benchmarks)}"
    render(results, args.output, title, not args.linear)
    print(f"plot_bench: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
