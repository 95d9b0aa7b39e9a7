#!/usr/bin/env python3
"""Turns sysound-bench's JSON (one file per sound server) into docs/benchmarks.md.

    Tests/bench/report.py [--commit REV]... [--output FILE] RESULT.json...

`make bench` calls it after Tests/bench/run.sh with the files of both servers,
so the published figures are always one run's, with its machine, date and
commit. The JSON does not carry the commit: `make bench` takes it from git
before the run (--print-commit), marked "+ local changes" when the tree differs
from it, and passes it as --commit; without --commit it is taken from git now;
--commit overrides that: once for every file, or once per file in their order
(a later run of some figures, `--figures`, may have been made at another commit). The method is not repeated here: docs/bench-method.md.

A run of some figures only (`--figures`) never goes into the whole run's file:
given --output FILE.md it writes FILE-figures-N-M.md of its own, whose heading
says which figures it holds, and FILE.md stays as the last whole run left it.
Python 3 standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys

TITLES = {
    "1": "CLI whole process",
    "2": "Launch → first sample at the sink",
    "3": "play() cost",
    "4": "Haptic request → EV_FF play",
    "5": "Throughput through the socket",
    "6": "Silent toggle applied",
    "7": "Start-up and memory",
    "8": "Idle CPU",
    "9": "D-Bus face against feedbackd",
    "10": "LockedHint → daemon state",
    "11": "Latency levers, idle and under load",
    "12": "Sound–haptic skew",
    "13": "A desktop setting flipped → policy applied",
    "14": "A tap during a big reload",
    "15": "Cost at rest: wake-ups, the sound server beside an idle sysound, memory",
    "16": "Identity lookup: what proving a caller adds (beside figure 9)",
    "17": "A media role: its first sound, and what its close gives back",
    "18": "No daemon: `sysound play tap` on the embedded engine beside paplay and pactl",
}

LOAD_NOTE = re.compile(r"^load average \(1, 5, 15 min\) at the start: (.*); at the end: (.*?) —")


def fmt(v):
    """Three significant digits, as the bench's own table (Stats.swift, fmt)."""
    if v is None:
        return "—"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return f"{v:.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    if a >= 1:
        return f"{v:.3f}"
    return f"{v:.4f}"


def cell(text):
    """Markdown table cell: no bare pipes, no line breaks."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def figure_of(row):
    return str(row.get("figure", "?"))


def figure_key(number):
    return (0, int(number)) if number.isdigit() else (1, number)


def git_commit(root):
    """Short commit of the tree, with a mark if it has local changes; None outside git."""
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return rev + (" + local changes" if dirty else "")


def figures_run(report):
    """The figures a run measured, in order."""
    return sorted({figure_of(row) for row in report.get("rows", [])}, key=figure_key)


def is_partial(report):
    """Whether the run measured some figures only (--figures)."""
    return len(figures_run(report)) < len(TITLES)


def heading(report):
    """The server, and for a run of some figures only, which."""
    figures = figures_run(report)
    some = f" — figure{'s' if len(figures) > 1 else ''} {', '.join(figures)} only" if is_partial(report) else ""
    return (report.get("server") or "unknown server") + some


def server_section(report, commit, source):
    out = []
    out.append("## " + heading(report))
    out.append("")
    notes = list(report.get("notes", []))
    load = None
    for note in notes:
        m = LOAD_NOTE.match(note)
        if m:
            load = f"{m.group(1)} at the start, {m.group(2)} at the end"
            notes.remove(note)
            break
    header = [
        ("machine", report.get("machine", "unknown")),
        ("date", report.get("date", "unknown")),
        ("commit", commit or "unknown"),
        ("mode", report.get("mode", "unknown") + (" (no target judged)" if report.get("mode") == "smoke" else "")),
        ("load average (1, 5, 15 min)", load or "not recorded"),
        ("duration", f"{report.get('seconds', 0) / 60:.1f} min"),
        ("JSON", f"`{os.path.basename(source)}`"),
    ]
    out.append("| run | |")
    out.append("|---|---|")
    for key, value in header:
        out.append(f"| {key} | {cell(value)} |")
    out.append("")

    targets = report.get("targets", [])
    if is_partial(report):  # the targets of the figures not run are not news
        targets = [t for t in targets if t.get("met") is not None]
    if targets:
        out.append("### Targets")
        out.append("")
        out.append("| target | measured | |")
        out.append("|---|---|---|")
        for t in targets:
            met = t.get("met")
            verdict = "n/a" if met is None else ("met" if met else "**missed**")
            out.append(f"| {cell(t.get('target', ''))} | {cell(t.get('measured', ''))} | {verdict} |")
        out.append("")

    by_figure = {}
    for row in report.get("rows", []):
        by_figure.setdefault(figure_of(row), []).append(row)
    for number in sorted(by_figure, key=figure_key):
        title = TITLES.get(number, "")
        out.append(f"### Figure {number}{': ' + title if title else ''}")
        out.append("")
        out.append("| measurement | unit | median | 95 % CI | p90 | p99 | min | max | n |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        row_notes = []
        for row in by_figure[number]:
            ci = row.get("ci95")
            ci_text = f"{fmt(ci[0])}–{fmt(ci[1])}" if ci and len(ci) == 2 else ""
            s = row.get("summary")
            if s:
                cells = [fmt(s.get("median")), ci_text, fmt(s.get("p90")), fmt(s.get("p99")),
                         fmt(s.get("min")), fmt(s.get("max")), str(s.get("n", ""))]
            else:
                cells = [fmt(row.get("value")), ci_text, "", "", "", "", ""]
            out.append(f"| {cell(row.get('name', ''))} | {cell(row.get('unit', ''))} | " + " | ".join(cells) + " |")
            if row.get("note"):
                row_notes.append(f"- {cell(row.get('name', ''))}: {row['note']}")
        figure_notes = [n for n in notes if re.match(rf"^figure {number}\b", n)]
        if row_notes or figure_notes:
            out.append("")
            out.extend(row_notes)
            out.extend(f"- {n}" for n in figure_notes)
        out.append("")

    other = [n for n in notes if not re.match(r"^figure \d+\b", n)]
    problems = report.get("problems", [])
    if other:
        out.append("### Notes")
        out.append("")
        out.extend(f"- {n}" for n in other)
        out.append("")
    if problems:
        out.append("### Problems reported by the run")
        out.append("")
        out.extend(f"- {p}" for p in problems)
        out.append("")
    return out


def partial_figures(reports):
    """The figures of the partial runs among `reports`, in order; empty for whole runs."""
    return sorted({f for _, r in reports if is_partial(r) for f in figures_run(r)}, key=figure_key)


def partial_path(output, figures):
    """Where a run of `figures` only is written, beside the whole run's `output`."""
    stem, ext = os.path.splitext(output)
    return f"{stem}-figures-{'-'.join(figures)}{ext or '.md'}"


def render(reports, commits):
    some = partial_figures(reports)
    if some:
        out = [
            f"# Benchmarks: figure{'s' if len(some) > 1 else ''} {', '.join(some)} only",
            "",
            "<!-- Generated by Tests/bench/report.py from a run of some figures (`--figures`).",
            "     The whole run is benchmarks.md, which `make bench` regenerates. -->",
            "",
            "A run of these figures only, one section per sound server, with the machine,",
            "date and commit it was measured at; the whole run, with every figure and",
            "target: [benchmarks.md](benchmarks.md). How each figure is measured:",
            "[bench-method.md](bench-method.md).",
            "",
        ]
    else:
        out = [
            "# Benchmarks",
            "",
            "<!-- Generated by Tests/bench/report.py from sysound-bench's JSON: `make bench`",
            "     regenerates this file whole. Edit the generator, not this file. -->",
            "",
            "The figures of one `make bench` run, one section per sound server, each with",
            "the machine, date and commit it was measured at. How each figure is measured:",
            "[bench-method.md](bench-method.md); why the audio path is built as it is, what",
            "the targets are and the levers tried: [latency.md](latency.md); where the",
            "memory goes: [memory.md](memory.md).",
            "",
        ]
    smoke = [src for src, r in reports if r.get("mode") == "smoke"]
    if smoke:
        out += ["**These are smoke-run figures** (a few iterations, no target judged):",
                "they show the bench works, not what sysound achieves.", ""]
    for (source, report), commit in zip(reports, commits):
        out += server_section(report, commit, source)
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", nargs="*", help="sysound-bench --json output, one per sound server")
    parser.add_argument("--print-commit", action="store_true",
                        help="print the tree's commit as --commit's default would take it, and exit (`make bench` takes it before the run)")
    parser.add_argument("--output", "-o", help="where to write the Markdown (default: standard output)")
    parser.add_argument("--commit", action="append", default=[],
                        help="the commit the run measured (default: git's HEAD of this tree); once per file, or once for all")
    args = parser.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if args.print_commit:
        print(git_commit(root) or "unknown")
        return 0
    if not args.json:
        parser.error("give at least one sysound-bench --json file")

    reports = []
    for path in args.json:
        try:
            with open(path, encoding="utf-8") as f:
                reports.append((path, json.load(f)))
        except (OSError, ValueError) as e:
            print(f"report.py: cannot read {path}: {e}", file=sys.stderr)
            return 1
    if len(args.commit) not in (0, 1, len(reports)):
        print(f"report.py: {len(args.commit)} --commit for {len(reports)} files: give one, or one per file", file=sys.stderr)
        return 2
    kinds = {is_partial(r) for _, r in reports}
    if len(kinds) > 1:
        print("report.py: give the whole runs (make bench) or the runs of some figures, not both: a partial run writes a file of its own", file=sys.stderr)
        return 2
    commits = args.commit * len(reports) if len(args.commit) == 1 else args.commit or [git_commit(root)] * len(reports)
    text = render(reports, commits)
    some = partial_figures(reports)
    if args.output and some:
        args.output = partial_path(args.output, some)
    if args.output:
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.output)
        print(f"report.py: wrote {args.output} from {len(reports)} run(s)")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
