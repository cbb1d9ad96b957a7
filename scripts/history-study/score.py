"""Scores change point detection on the study's measured history.

    python3 score.py DATA [--tickbook BIN] [--json OUT]

DATA holds truth.json and one folder of per-commit files per tool
(hyperfine/, pyperf/, tickbook/, each commit-NNN.json). For each tool's
files it takes each commit's per-series samples (wall times), gives the
peers (peers.py: asv, otava, edivisive) each commit's median, and runs
`tickbook history --json --order given FILES` on the files themselves;
then scores every method against the truth with one rule for all:

- a true step is hit by a detection whose index (the first commit after
  the change) is within 2 commits of the step's;
- the drift (commits START..END) is hit by the first detection whose span
  (index..end; a step's end is its index) overlaps START-2..END+2; further
  detections there are false alarms ("in drift"): a drift reported as many
  small steps costs what it costs;
- every other detection is a false alarm, counted apart when it lies on the
  A/A series ("aa") or at a disturbed commit d (index d or d + 1: the
  excursion's start or its return);
- a true change with no hit is a miss.
Each detection hits at most one change and each change takes one hit.

The peers run under their own interpreters (their pins conflict):
STUDY_PYTHON_ASV, STUDY_PYTHON_OTAVA, STUDY_PYTHON_EDIVISIVE, by default
target/history-study/venv/{asv,otava,edivisive}/bin/python when present
(`scripts/history-study/run setup` makes them), else python3.
Uses only the standard library itself.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = ["hyperfine", "pyperf", "tickbook"]
PEERS = ["asv", "otava", "edivisive"]
SLACK = 2


# -- reading the files ------------------------------------------------------

def read_hyperfine(path):
    with open(path) as f:
        d = json.load(f)
    return {r["command"]: [float(t) for t in r["times"]] for r in d["results"]}


def read_pyperf(path):
    with open(path) as f:
        d = json.load(f)
    out = {}
    for b in d["benchmarks"]:
        name = b.get("metadata", {}).get("name") or d.get("metadata", {}).get("name")
        out[name] = [float(v) for r in b["runs"] for v in r.get("values", [])]
    return out


def read_tickbook(path):
    with open(path) as f:
        d = json.load(f)
    suite = next(s for s in d["suites"] if s["suite"] == "commands")
    names = [c["name"] for c in suite["data"]["commands"]]
    out = {n: [] for n in names}
    for r in suite["data"]["runs"]:
        out[names[r["command"]]].append(r["wall_ns"] / 1e9)
    return out


READERS = {"hyperfine": read_hyperfine, "pyperf": read_pyperf, "tickbook": read_tickbook}


def load_tool(data, tool, series):
    files = sorted(glob.glob(os.path.join(data, tool, "commit-*.json")))
    samples = {s: [] for s in series}
    for path in files:
        got = READERS[tool](path)
        for s in series:
            if s not in got or not got[s]:
                sys.exit(f"error: {path}: no samples of series {s!r}")
            samples[s].append(got[s])
    return files, samples


# -- the methods ------------------------------------------------------------

def python_for(method):
    env = os.environ.get(f"STUDY_PYTHON_{method.upper()}")
    if env:
        return env
    venv = os.path.join(ROOT, "target", "history-study", "venv", method, "bin", "python")
    return venv if os.path.exists(venv) else sys.executable


def run_peer(method, samples):
    payload = {"series": {s: {"values": [statistics.median(c) for c in cs], "samples": cs}
                          for s, cs in samples.items()}}
    try:
        done = subprocess.run([python_for(method), os.path.join(HERE, "peers.py"), method],
                              input=json.dumps(payload), capture_output=True, text=True)
    except OSError as e:
        return None, str(e)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
    got = json.loads(done.stdout)
    return {s: [{"index": i, "kind": "step", "end": i} for i in got[s]] for s in samples}, None


def find_series(report, name):
    exact = [s for s in report["series"] if s["name"] == name]
    if exact:
        return exact[0]
    near = [s for s in report["series"] if name in s["name"].split("/")[-1].split(" ")]
    return near[0] if len(near) == 1 else None


def run_tickbook(binary, files, series):
    try:
        done = subprocess.run([binary, "history", "--json", "--order", "given", *files],
                              capture_output=True, text=True)
    except OSError as e:
        return None, None, str(e)
    if done.returncode not in (0, 3):
        return None, None, (done.stderr.strip().splitlines() or ["failed"])[-1]
    report = json.loads(done.stdout)
    out, extra = {}, {}
    for s in series:
        found = find_series(report, s)
        if found is None:
            return None, None, f"no series {s!r} in the report"
        out[s] = [{"index": c["index"], "kind": c.get("kind", "step"),
                   "end": c.get("end", c["index"]),
                   "note": f"ratio {c.get('ratio', {}).get('estimate', float('nan')):.4f}, "
                           f"p {c.get('p', float('nan')):.2g}, cause {c.get('cause')}"}
                  for c in found.get("change_points", [])]
        extra[s] = {"disturbed": found.get("disturbed", []), "noise": found.get("noise")}
    return out, extra, None


# -- scoring ----------------------------------------------------------------

def score_series(truths, detections, disturbed, is_aa):
    """One series: (hits, false alarms by kind, misses, per-detection labels)."""
    hit = [False] * len(truths)
    labels = []
    fa = {"aa": 0, "disturbed": 0, "in_drift": 0, "other": 0}
    for d in sorted(detections, key=lambda d: d["index"]):
        label = None
        for k, t in enumerate(truths):
            if hit[k]:
                continue
            if t["kind"] == "step" and abs(d["index"] - t["index"]) <= SLACK:
                hit[k], label = True, f"hit step {t['index']}"
                break
            if t["kind"] == "drift" and d["index"] <= t["end"] + SLACK and d["end"] >= t["index"] - SLACK:
                hit[k], label = True, f"hit drift {t['index']}..{t['end']}"
                break
        if label is None:
            if is_aa:
                kind = "aa"
            elif any(d["index"] in (c, c + 1) for c in disturbed):
                kind = "disturbed"
            elif any(t["kind"] == "drift" and d["index"] <= t["end"] + SLACK
                     and d["end"] >= t["index"] - SLACK for t in truths):
                kind = "in_drift"
            else:
                kind = "other"
            fa[kind] += 1
            label = f"false alarm ({kind})"
        where = str(d["index"]) if d["end"] == d["index"] else f"{d['index']}..{d['end']}"
        note = f" [{d['note']}]" if d.get("note") else ""
        labels.append(f"{where} {d['kind']}: {label}{note}")
    return sum(hit), fa, len(truths) - sum(hit), labels


def totals(rows):
    h = sum(r["hits"] for r in rows)
    f = sum(r["false_alarms"] for r in rows)
    m = sum(r["misses"] for r in rows)
    p = h / (h + f) if h + f else float("nan")
    rc = h / (h + m) if h + m else float("nan")
    f1 = 2 * h / (2 * h + f + m) if h else 0.0
    return {"hits": h, "false_alarms": f, "misses": m, "precision": p, "recall": rc, "f1": f1,
            "fa_aa": sum(r["fa"]["aa"] for r in rows),
            "fa_disturbed": sum(r["fa"]["disturbed"] for r in rows),
            "fa_in_drift": sum(r["fa"]["in_drift"] for r in rows)}


def noise_summary(samples, disturbed):
    """The aa series: spread of the commits' medians (undisturbed), the
    typical spread within a commit, and how far the disturbed commits sit."""
    aa = samples["aa"]
    med = [statistics.median(c) for c in aa]
    quiet = [m for i, m in enumerate(med) if i not in disturbed]
    level = statistics.median(quiet)
    within = statistics.median(statistics.stdev(c) / statistics.mean(c) for c in aa)
    return {"level_ms": level * 1e3,
            "between_cv": statistics.stdev(quiet) / statistics.mean(quiet),
            "within_cv": within,
            "disturbed_ratio": [round(med[i] / level, 3) for i in disturbed if i < len(med)]}


def fmt(x):
    return "—" if x != x else f"{x:.2f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--tickbook", default=os.path.join(ROOT, "target", "release", "tickbook"))
    p.add_argument("--json", help="also write every detection and score here")
    args = p.parse_args()
    with open(os.path.join(args.data, "truth.json")) as f:
        truth = json.load(f)
    series = list(truth["series"].keys())
    disturbed = truth["disturbed"]

    rows, details, noise, notes = [], {}, {}, []
    for tool in TOOLS:
        if not os.path.isdir(os.path.join(args.data, tool)):
            continue
        files, samples = load_tool(args.data, tool, series)
        if len(files) != truth["commits"]:
            notes.append(f"{tool}: {len(files)} of {truth['commits']} commits measured")
        noise[tool] = noise_summary(samples, disturbed)
        results = {}
        for m in PEERS:
            results[m] = run_peer(m, samples)
        tb, tb_extra, err = run_tickbook(args.tickbook, files, series)
        results["tickbook"] = (tb, err)
        if tb_extra:
            details[f"{tool}/tickbook/extra"] = tb_extra
        for method, (found, err) in results.items():
            if found is None:
                notes.append(f"{tool} × {method}: not run ({err})")
                continue
            per = []
            for s in series:
                h, fa, m, labels = score_series(truth["series"][s], found[s], disturbed, s == "aa")
                per.append({"series": s, "hits": h, "false_alarms": sum(fa.values()), "fa": fa,
                            "misses": m, "detections": labels})
            rows.append({"tool": tool, "method": method, **totals(per), "series": per})

    print("## Noise of the A/A series (per-commit medians, disturbed commits left out)\n")
    print("| tool | level (ms) | between commits (CV) | within a commit (median CV) | disturbed commits / level |")
    print("| --- | ---: | ---: | ---: | --- |")
    for tool, n in noise.items():
        print(f"| {tool} | {n['level_ms']:.1f} | {n['between_cv'] * 100:.2f} % | {n['within_cv'] * 100:.2f} % "
              f"| {', '.join(str(r) for r in n['disturbed_ratio'])} |")
    print("\n## Scores (true changes per tool: 3 steps + 1 drift)\n")
    print("| data | method | hits | false alarms (aa / disturbed / in drift) | misses | precision | recall | F1 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    methods = PEERS + ["tickbook"]
    for tool in TOOLS:
        for r in rows:
            if r["tool"] == tool:
                print(f"| {tool} | {r['method']} | {r['hits']} | {r['false_alarms']} "
                      f"({r['fa_aa']} / {r['fa_disturbed']} / {r['fa_in_drift']}) | {r['misses']} "
                      f"| {fmt(r['precision'])} | {fmt(r['recall'])} | {fmt(r['f1'])} |")
    for method in methods:
        mine = [s for r in rows if r["method"] == method for s in r["series"]]
        if mine:
            t = totals(mine)
            print(f"| all | {method} | {t['hits']} | {t['false_alarms']} "
                  f"({t['fa_aa']} / {t['fa_disturbed']} / {t['fa_in_drift']}) | {t['misses']} "
                  f"| {fmt(t['precision'])} | {fmt(t['recall'])} | {fmt(t['f1'])} |")
    print("\n## Detections\n")
    for r in rows:
        for s in r["series"]:
            print(f"- {r['tool']} × {r['method']} × {s['series']}: "
                  + ("; ".join(s["detections"]) if s["detections"] else "none"))
    for key, extra in details.items():
        for s, e in extra.items():
            print(f"- {key} × {s}: disturbed {e['disturbed']}, noise {e['noise']}")
    for n in notes:
        print(f"\nnote: {n}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "noise": noise, "notes": notes}, f, indent=1)


if __name__ == "__main__":
    main()
