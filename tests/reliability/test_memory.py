"""Memory limits, measured as the peak RSS of a child process."""
from __future__ import annotations

import pytest

from optbb.common.result import Status

from .support import (CORELS_LOAD, CORELS_OPT_0005, OSDT_DP_LOAD, OSDT_FICO_LOAD, _code, _needs_dp_case, _needs_fico,
                      _run_child, _tic_tac_toe, jit_only)


MEMORY_CHILD = """
    import gc
    gc.collect()
    reset_peak()
    base = rss_now()
    def n_compiled():
        from numba.core.registry import CPUDispatcher
        return sum(len(v.overloads) for m in list(sys.modules.values()) if m and m.__name__.startswith("optbb")
                   for v in vars(m).values() if isinstance(v, CPUDispatcher))
    c0 = n_compiled()
    r = solve(data, {args}, time_limit={time_limit}, memory_limit={cap})
    report(r, base_rss=base, peak_rss=peak_rss(), growth=peak_rss() - base, compiled_during=n_compiled() - c0,
           rss_after=rss_now())
"""

MB = 1 << 20
# warm-ups that take every code path of the measured search (growth, garbage collection, the memory stop), so no
# Numba compilation (or cache loading) happens inside the measurement
CORELS_WARM = "solve(data, 0.005, ablation=('equivalent_points',), memory_limit=4 << 20, time_limit=60)"
OSDT_WARM = "solve(data, 0.0005, memory_limit=4 << 20, time_limit=60)"


@jit_only
def test_corels_memory_limit_peak_rss():
    cap = 64 * MB
    capped = _run_child(_code(CORELS_LOAD, CORELS_WARM, MEMORY_CHILD.format(
        args="0.005, ablation=('equivalent_points',)", time_limit=120, cap=cap)))
    assert capped["status"] == "MEMORY_LIMIT"
    assert capped["counters"]["memory_bytes"] <= cap
    detail = {k: capped[k] for k in ("growth", "base_rss", "rss_after", "total_time", "compiled_during")}
    detail["memory_bytes"] = capped["counters"]["memory_bytes"]
    assert capped["growth"] <= cap + 16 * MB, detail  # interpreter slack on top of the accounted structures
    assert capped["lower_bound"] <= CORELS_OPT_0005 + 1e-9 <= capped["objective"] + 2e-9
    assert capped["gap"] == pytest.approx(capped["objective"] - capped["lower_bound"]) and capped["gap"] > 0
    # the same search under a four times larger cap grows well past the tight cap: the tight cap is what held it
    loose = _run_child(_code(CORELS_LOAD, CORELS_WARM, MEMORY_CHILD.format(
        args="0.005, ablation=('equivalent_points',)", time_limit=120, cap=4 * cap)))
    assert loose["status"] == "MEMORY_LIMIT"
    assert loose["growth"] > 2 * cap, loose
    assert loose["growth"] <= 4 * cap + 16 * MB, loose
    print("CORELS: " + "; ".join(
        f"cap {c / MB:.0f} MB: accounted {r['counters']['memory_bytes'] / MB:.1f} MB, "
        f"RSS growth {r['growth'] / MB:.1f} MB"
        for c, r in ((cap, capped), (4 * cap, loose))))


@pytest.mark.slow  # a full-size run in a child process (17-18 s): -m slow
@jit_only
def test_osdt_memory_limit_peak_rss_fico():
    _needs_fico()
    cap = 64 * MB
    capped = _run_child(_code(OSDT_FICO_LOAD, OSDT_WARM,
                                  MEMORY_CHILD.format(args="0.0005", time_limit=120, cap=cap)))
    assert capped["status"] == "MEMORY_LIMIT"
    assert capped["counters"]["memory_bytes"] <= cap
    assert capped["growth"] <= cap + 16 * MB, capped
    assert 0 <= capped["lower_bound"] <= capped["objective"]
    assert capped["gap"] == pytest.approx(capped["objective"] - capped["lower_bound"])
    loose = _run_child(_code(OSDT_FICO_LOAD, OSDT_WARM,
                                MEMORY_CHILD.format(args="0.0005", time_limit=120, cap=4 * cap)))
    assert loose["status"] == "MEMORY_LIMIT"
    assert loose["growth"] > 2 * cap, loose
    assert loose["growth"] <= 4 * cap + 16 * MB, loose
    print("OSDT: " + "; ".join(
        f"cap {c / MB:.0f} MB: accounted {r['counters']['memory_bytes'] / MB:.1f} MB, "
        f"RSS growth {r['growth'] / MB:.1f} MB"
        for c, r in ((cap, capped), (4 * cap, loose))))


@jit_only
@pytest.mark.parametrize("case", sorted(OSDT_DP_LOAD))
def test_osdt_dp_memory_limit_peak_rss(case):
    """The dynamic-programming search (memo table) under a 16 MB cap at lambda 1e-6: MEMORY_LIMIT with a reported
    gap, accounted bytes within the cap, RSS growth within the cap plus interpreter slack; a 64 MB cap lets the same
    search grow past 32 MB, so the small cap is what held it."""
    _needs_dp_case(case)
    cap = 16 * MB
    warm = "solve(data, 1e-6, memory_limit=2 << 20, time_limit=60, **KW)"
    runs = {}
    for c in (cap, 4 * cap):
        runs[c] = _run_child(_code(OSDT_DP_LOAD[case], warm,
                                   MEMORY_CHILD.replace("{args}", "{args}, **KW").format(args="1e-6", time_limit=120,
                                                                                         cap=c)))
    capped, loose = runs[cap], runs[4 * cap]
    assert capped["status"] == "MEMORY_LIMIT", capped
    assert capped["counters"]["memory_bytes"] <= cap
    assert capped["growth"] <= cap + 16 * MB, capped
    assert 0 <= capped["lower_bound"] <= capped["objective"]
    assert capped["gap"] == pytest.approx(capped["objective"] - capped["lower_bound"]) and capped["gap"] > 0
    assert loose["status"] == "MEMORY_LIMIT", loose
    print(f"OSDT dp {case}: " + "; ".join(
        f"cap {c / MB:.0f} MB: accounted {r['counters']['memory_bytes'] / MB:.1f} MB, "
        f"RSS growth {r['growth'] / MB:.1f} MB, {r['total_time']:.1f} s, gap {r['gap']:.4f}"
        for c, r in runs.items()))
    assert loose["growth"] > 2 * cap, loose
    assert loose["growth"] <= 4 * cap + 16 * MB, loose


@pytest.mark.slow  # a full-size run in a child process (17-18 s): -m slow
@jit_only
def test_frl_memory_does_not_grow_with_search_time():
    """FRL has no memory limit to set: what it keeps per iteration is bounded (``max_recorded_iterations``), so a
    search three times as long peaks at the same RSS (unbounded, it grew by about 20 MB a second here).  The lengths
    are iteration counts, not time limits, so a loaded machine cannot shorten the long search."""
    r = _run_child(_code("""
        import gc
        from optbb.frl import FRLClassifier
        rng = np.random.default_rng(1)
        X = (rng.random((3000, 16)) < 0.35).astype(np.uint8)
        y = (rng.random(3000) < 0.3).astype(np.uint8)
        FRLClassifier(n_iter=20, random_state=0, min_class_support=0.05).fit(X, y)
        growth, iters = [], []
        for n_iter in (120_000, 360_000):
            gc.collect()
            reset_peak()
            base = rss_now()
            est = FRLClassifier(n_iter=n_iter, random_state=0, min_class_support=0.05).fit(X, y)
            growth.append(peak_rss() - base)
            iters.append(est.result_.counters["iterations"])
            del est
        print("RESULT " + json.dumps({"growth": growth, "iterations": iters}), flush=True)
    """))
    short, long_ = r["growth"]
    print(f"FRL: {r['iterations']} iterations, peak RSS growth {short / MB:.1f} MB and {long_ / MB:.1f} MB")
    assert r["iterations"] == [120_000, 360_000]
    assert long_ <= short + 16 * MB, r


@jit_only
def test_osdt_memory_limit_tic_tac_toe():
    from optbb.osdt import solve

    cap = 8 * MB
    r = solve(_tic_tac_toe(), 0.0005, memory_limit=cap, time_limit=60)
    assert r.status is Status.MEMORY_LIMIT
    assert r.counters["memory_bytes"] <= cap
    assert 0 <= r.lower_bound <= r.objective and r.model is not None
