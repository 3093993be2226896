#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/plot/plot_seeds.py - one chart per seed experiment.

Owns turning the files `upcache-bench seeds` writes (DIR/seed-NNN.json)
into PNG charts: for each experiment, a group of bars per row with the
seed's "before" (the path it replaced), "after" (upcache's path) and,
where the experiment has one, the kernel doing the same work on this
machine; each "after" bar is labelled with its change as the seed reports
it (+7.3% IOPS, -10.3% ms).  An experiment whose layer has not landed
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


def plot_seed(data, out_path, plt):
    """Draw one experiment's chart into OUT_PATH."""
    rows = [r for r in data["rows"] if number(r.get("after")) is not None]
    figure = rows[0].get("figure", "") if rows else ""
    higher = rows and rows[0].get("direction") == "higher_is_better"
    width = 0.27
    fig, ax = plt.subplots(figsize=(min(12.0, max(6.0, 0.6 * len(rows) + 2)),
                                    5.0))
    for k, (key, label, colour) in enumerate(SIDES):
        xs, ys = [], []
        for i, row in enumerate(rows):
            value = number(row.get(key))
            if value is not None:
                xs.append(i + (k - 1) * width)
                ys.append(value)
        if not xs:
            continue
        bars = ax.bar(xs, ys, width, label=label, color=colour)
        if key == "after":
            for bar, row in zip(bars, [r for r in rows
                                       if number(r.get("after")) is not None]):
                change = number(row.get("change_pct"))
                if change is not None:
                    ax.annotate(f"{change:+.1f}%",
                                (bar.get_x() + bar.get_width() / 2,
                                 bar.get_height()),
                                ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["name"] for r in rows], rotation=35, ha="right",
                       fontsize=7)
    better = "higher is better" if higher else "lower is better"
    ax.set_ylabel(f"{figure} ({better})")
    ax.set_title(textwrap.fill(f"seed {data['seed']}: "
                               f"{data.get('title', '')}", 90), fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
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
