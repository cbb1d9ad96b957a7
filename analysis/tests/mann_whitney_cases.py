"""Reference Mann-Whitney U tests from scipy for analysis/tests/mann_whitney.rs.

    python3 analysis/tests/mann_whitney_cases.py > analysis/tests/mann_whitney_cases.json

Each case: x, y, and scipy.stats.mannwhitneyu(x, y) (two-sided, method
'auto') with the method 'auto' picks, named as scipy's _mwu_choose_method.
"""
import json

import numpy as np
import scipy
from scipy.stats import mannwhitneyu
from scipy.stats._mannwhitneyu import _mwu_choose_method

rng = np.random.default_rng(20261125)


def case(name, x, y):
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    r = mannwhitneyu(x, y)
    ties = len(set(x + y)) < len(x + y)
    return {
        "name": name,
        "x": x,
        "y": y,
        "u": float(r.statistic),
        "p_value": float(r.pvalue),
        "method": _mwu_choose_method(len(x), len(y), ties),
    }


cases = [
    case("separated 3 vs 3", [1, 2, 3], [4, 5, 6]),
    case("exact 5 vs 7", rng.normal(10, 1, 5), rng.normal(11, 1, 7)),
    case("exact 8 vs 8 overlapping", rng.normal(0, 1, 8), rng.normal(0.3, 1, 8)),
    case("exact 2 vs 40", rng.normal(0, 1, 2), rng.normal(0, 1, 40)),
    case("exact 8 vs 300", rng.normal(0.5, 1, 8), rng.normal(0, 1, 300)),
    case("asymptotic separated 10 vs 10", rng.normal(100, 1, 10), rng.normal(800, 5, 10)),
    case("asymptotic 10 vs 10 overlapping", rng.normal(100, 1, 10), rng.normal(100.5, 1, 10)),
    case("asymptotic 9 vs 30", rng.normal(5, 2, 9), rng.normal(6, 2, 30)),
    case("ties 3 vs 5", [1, 2, 2], [2, 3, 3, 4, 5]),
    case("ties rounded 30 vs 40", np.round(rng.normal(10, 1, 30)), np.round(rng.normal(10.4, 1, 40))),
    case("ties rounded 200 vs 150", np.round(rng.exponential(3, 200), 1), np.round(rng.exponential(3.3, 150), 1)),
    case("all equal", [2.0] * 6, [2.0] * 9),
    case("one vs one", [1.0], [2.0]),
]
print(json.dumps({"scipy": scipy.__version__, "cases": cases}, indent=1))
