"""The study's truth table: how much work each series does at each commit.

One place for it, read by the driver (measure.py, which sets the workload's
iteration counts from it and writes truth.json beside the data) and by the
scorer (score.py, which reads truth.json). Steps are relative to the level
before them; the drift multiplies the work by 1.004 at each of its 20
commits and then stays at the level it reached.
"""

COMMITS = 80
# Iterations of work.c at level 1.0: about 20 ms of CPU on the development
# machine (about 2.1 ns an iteration).
BASE_ITERATIONS = 10_000_000

# Series `steps`: (index of the first commit at the new level, relative change).
STEPS = [(20, 0.05), (45, -0.03), (65, 0.02)]
# Series `drift`: +0.4 % a commit at commits START..END (inclusive), flat
# before and after.
DRIFT_START, DRIFT_END, DRIFT_RATE = 30, 49, 0.004
# Commits measured while a background CPU load burst (stress-ng --cpu 3)
# ran, for every series and every tool; none within 5 commits of a change.
DISTURBED = [10, 55, 74]

SERIES = ["steps", "aa", "drift"]


def factor(series, i):
    """The work at commit i relative to commit 0."""
    if series == "aa":
        return 1.0
    if series == "steps":
        f = 1.0
        for at, change in STEPS:
            if i >= at:
                f *= 1.0 + change
        return f
    if series == "drift":
        k = min(max(i - DRIFT_START + 1, 0), DRIFT_END - DRIFT_START + 1)
        return (1.0 + DRIFT_RATE) ** k
    raise ValueError(f"unknown series {series!r}")


def iterations(series, i):
    return round(BASE_ITERATIONS * factor(series, i))


def truth():
    """The truth as written to truth.json: per series, its true changes."""
    return {
        "commits": COMMITS,
        "base_iterations": BASE_ITERATIONS,
        "series": {
            "steps": [
                {"kind": "step", "index": at, "end": at, "change": change}
                for at, change in STEPS
            ],
            "aa": [],
            "drift": [
                {
                    "kind": "drift",
                    "index": DRIFT_START,
                    "end": DRIFT_END,
                    "change_per_commit": DRIFT_RATE,
                    "total": (1.0 + DRIFT_RATE) ** (DRIFT_END - DRIFT_START + 1) - 1.0,
                }
            ],
        },
        "disturbed": DISTURBED,
        "iterations": {s: [iterations(s, i) for i in range(COMMITS)] for s in SERIES},
    }
