"""Determinism in one process: the same call twice gives the same model, bound and counters, for every solver."""
from __future__ import annotations

import numpy as np

from conftest import corels_fold
from optbb.corels import solve as corels_solve
from optbb.frl import FRLClassifier

from .support import _good, jit_only

@jit_only
def test_in_process_determinism_every_solver():
    from optbb.datasets import load_osdt
    from optbb.osdt import solve as osdt_solve

    def strip(c):
        return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in c.items() if "time" not in k}

    data = corels_fold(1)
    runs = [corels_solve(data, 0.005, ablation=("equivalent_points",), node_limit=2000, memory_limit="1G")
            for _ in range(2)]
    assert runs[0].model.text() == runs[1].model.text()
    assert strip(runs[0].counters) == strip(runs[1].counters)
    assert runs[0].lower_bound == runs[1].lower_bound
    d2 = load_osdt("monk1")
    o = [osdt_solve(d2, 0.01, node_limit=3000) for _ in range(2)]
    assert str(o[0].model) == str(o[1].model) and strip(o[0].counters) == strip(o[1].counters)
    X, y = _good(300, 10, seed=4)
    f = [FRLClassifier(n_iter=300, random_state=5, min_class_support=0.05).fit(X, y) for _ in range(2)]
    assert str(f[0].rule_list_) == str(f[1].rule_list_)
    assert strip(f[0].result_.counters) == strip(f[1].result_.counters)
    f2 = [FRLClassifier(n_iter=300, random_state=np.random.default_rng(9), min_class_support=0.05).fit(X, y)
          for _ in range(2)]
    assert str(f2[0].rule_list_) == str(f2[1].rule_list_)
