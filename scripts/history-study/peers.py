"""The peers' change point detectors on one tool's per-commit values.

Run by score.py as `PYTHON peers.py METHOD` with each method's own Python
(their pins conflict: apache-otava wants numpy 2.2.0 exactly); reads
`{"series": {NAME: {"values": [one per commit], "samples": [[...] per commit]}}}`
on stdin and prints `{NAME: [index, ...]}`, each index the first commit after
a detected change (as tickbook's `change_points[].index`). Each method runs
with the defaults its tool uses:

- asv: `asv.step_detect.detect_steps(y, w)` as `asv publish` calls it: y
  each commit's median, w asv's weight 2 / (width of the 99 % CI of the
  median, `asv_runner.statistics.compute_stats`); every boundary between
  its fitted segments is a change (its `detect_regressions` keeps only the
  upward ones, and the study scores both directions).
- otava: `otava.analysis.compute_change_points(y)` with the CLI's
  defaults (window 50, p 0.001, no minimum magnitude).
- edivisive: `signal_processing_algorithms.energy_statistics.e_divisive(y)`
  (p 0.05, 100 permutations), numpy seeded with 0 so a rerun agrees.
"""

import json
import sys


def asv(values, samples):
    from asv import step_detect
    from asv._stats import get_weight
    from asv_runner.statistics import compute_stats

    w = []
    for s in samples:
        _, stats = compute_stats(s, 1)
        w.append(get_weight(stats))
    steps = step_detect.detect_steps(values, w)
    return [left for left, _right, _v, _min, _err in steps[1:]]


def otava(values, samples):
    from otava.analysis import compute_change_points

    cps, _weak = compute_change_points(values)
    return [int(c.index) for c in cps]


def edivisive(values, samples):
    import numpy as np
    from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive

    np.random.seed(0)
    return sorted(int(i) for i in e_divisive(values))


METHODS = {"asv": asv, "otava": otava, "edivisive": edivisive}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in METHODS:
        sys.exit(f"usage: peers.py {'|'.join(METHODS)} < values.json")
    method = METHODS[sys.argv[1]]
    data = json.load(sys.stdin)
    out = {name: method(s["values"], s["samples"]) for name, s in data["series"].items()}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
