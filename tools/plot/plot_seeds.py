#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/plot/plot_seeds.py - one chart per seed experiment.

Owns turning the files `upcache-bench seeds` writes (DIR/seed-NNN.json)
into PNG charts: for each experiment, a group of bars per row with the
seed's "before" (the path it replaced), "after" (upcache's path) and,
where the experiment has one, the kernel doing the same work on this
machine; each "after" bar is labelled with its change as the seed reports
it (+7.3% IOPS, -10.3% ms).  Rows in different units (seed 003: ms and
KiB) get a panel each.  An experiment whose layer has not landed
has no chart; the script says so.

    tools/plot/plot_seeds.py results/seed-*.json --out-dir results

Needs matplotlib (Debian: python3-matplotlib); the benchmark does not.
Errors print one line and exit with status 2, as upcache-bench does.
"""

import argparse
import os
import sys
import textwrap

from plot_bench import die, load_result, number

SIDES = (("before", "before (path the seed replaced)", "#b0b0b0"),
         ("after", "after (upcache)", "#1f77b4"),
         ("kernel", "Linux kernel, this machine", "#ff7f0e"))


def load_seed(path):
    """Read one seed-NNN.json: a result in the suites' shape, plus "seed"."""
    data = load_result(path)
    if not isinstance(data.get("seed"), str):
        die(f"'{path}' is not a result of upcache-bench seeds")
    return data


def plot_panel(ax, rows, figure):
    """Draw the bars of ROWS, whose figures are all in unit FIGURE."""
    higher = rows[0].get("direction") == "higher_is_better"
    width = 0.27
    for k, (key, label, colour) in enumerate(SIDES):
        xs, ys, shown = [], [], []
        for i, row in enumerate(rows):
            value = number(row.get(key))
            if value is not None:
                xs.append(i + (k - 1) * width)
                ys.append(value)
                shown.append(row)
        if not xs:
            continue
        bars = ax.bar(xs, ys, width, label=label, color=colour)
        if key == "after":
            for bar, row in zip(bars, shown):
                change = number(row.get("change_pct"))
                if change is not None:
                    ax.annotate(f"{change:+.1f}%",
                                (bar.get_x() + bar.get_width() / 2,
                                 bar.get_height()),
                                ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["name"] for r in rows], rotation=35, ha="right",
                       fontsize=7)
    # A lone row would otherwise stretch its bars across the panel.
    ax.set_xlim(-0.6, len(rows) - 0.4)
    better = "higher is better" if higher else "lower is better"
    ax.set_ylabel(f"{figure} ({better})")


def plot_seed(data, out_path, plt):
    """Draw one experiment's chart into OUT_PATH: a panel per unit.

    Most experiments measure one unit; seed 003 has memhog's time (ms)
    and the swap cache's node memory (KiB), which share no axis.
    """
    rows = [r for r in data["rows"] if number(r.get("after")) is not None]
    figures = []
    for row in rows:
        if row.get("figure", "") not in figures:
            figures.append(row.get("figure", ""))
    panels = [[r for r in rows if r.get("figure", "") == f] for f in figures]
    fig, axes = plt.subplots(
        1, max(1, len(panels)), squeeze=False,
        figsize=(min(12.0, max(6.0, 0.6 * len(rows) + 2 * len(panels))), 5.0),
        gridspec_kw={"width_ratios": [len(p) + 1 for p in panels] or [1]})
    for ax, figure, panel in zip(axes[0], figures, panels):
        plot_panel(ax, panel, figure)
    title = textwrap.fill(f"seed {data['seed']}: {data.get('title', '')}",
                          90)
    fig.suptitle(title, fontsize=9)
    # One legend for all panels, under the title, clear of the bars.
    below = 0.93 - 0.035 * title.count("\n")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels) or 1,
               fontsize=7, bbox_to_anchor=(0.5, below))
    fig.tight_layout(rect=(0, 0, 1, below - 0.05))
    fig.savefig(out_path, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+", help="seed-NNN.json files")
    parser.add_argument("--out-dir", default="results",
                        help="where seed-NNN.png go (default: results)")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        die("matplotlib is missing (Debian: python3-matplotlib)")
    for path in args.results:
        data = load_seed(path)
        if data.get("needs"):
            print(f"plot_seeds: seed {data['seed']}: no chart (not yet "
                  f"implemented: needs {data['needs']})")
            continue
        out = os.path.join(args.out_dir, f"seed-{data['seed']}.png")
        plot_seed(data, out, plt)
        print(f"plot_seeds: seed {data['seed']}: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
