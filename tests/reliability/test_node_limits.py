"""Node limits: CORELS and OSDT stop after exactly the number of nodes (trees) asked for."""
from __future__ import annotations

import pytest

from conftest import corels_fold
from optbb.common.data import from_arrays
from optbb.common.result import Status
from optbb.corels import POLICIES as CORELS_POLICIES
from optbb.corels import solve as corels_solve

from .support import CORELS_OPT_0005, HARD_CORELS, _good, _tic_tac_toe, jit_only


@jit_only
@pytest.mark.parametrize("policy", CORELS_POLICIES)
@pytest.mark.parametrize("nodes", [1, 37, 1000])
def test_corels_node_limit_is_exact(policy, nodes):
    r = corels_solve(corels_fold(0), **HARD_CORELS, policy=policy, node_limit=nodes, time_limit=60,
                     memory_limit="1G")
    assert r.status is Status.NODE_LIMIT
    assert r.counters["nodes_evaluated"] == nodes
    assert r.lower_bound <= CORELS_OPT_0005 + 1e-9 <= r.objective + 2e-9


@jit_only
@pytest.mark.parametrize("policy", ["curiosity", "fifo", "lower_bound"])
@pytest.mark.parametrize("nodes", [1, 100, 5000])
def test_osdt_node_limit_is_exact(nodes, policy):
    """OSDT counts trees evaluated (queue insertions) and stops between two insertions, also inside an expansion."""
    from optbb.osdt import solve

    r = solve(_tic_tac_toe(), 0.001, search="leaf_set", policy=policy, node_limit=nodes, time_limit=60,
              memory_limit="1G")
    assert r.status is Status.NODE_LIMIT
    assert r.counters["trees_evaluated"] == nodes
    assert 0 <= r.lower_bound <= r.objective


@pytest.mark.parametrize("solver", ["corels", "dp", "leaf_set"])
def test_a_node_limit_the_whole_search_fits_in_certifies_its_optimum(solver):
    """A node limit equal to the nodes the unlimited search uses is no limit: the search ends OPTIMAL with the same
    objective (the leaf-set search stopped before popping more entries, and CORELS reported NODE_LIMIT with its
    bound equal to its objective)."""
    from optbb.osdt import solve as osdt_solve

    data = from_arrays(*_good())
    if solver == "corels":
        run = lambda **kw: corels_solve(data, 0.02, **kw)  # noqa: E731
    else:
        run = lambda **kw: osdt_solve(data, 0.02, search=solver, **kw)  # noqa: E731
    full = run()
    assert full.status is Status.OPTIMAL
    n = full.counters["nodes"]
    limited = run(node_limit=n)
    assert limited.status is Status.OPTIMAL and limited.objective == full.objective
    assert limited.lower_bound == limited.objective
