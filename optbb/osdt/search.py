"""``solve``: the OSDT search driver (chunked Numba kernel, limits, Ctrl-C, trace, warm starts).

Returns the common :class:`~optbb.common.result.SearchResult`; its ``model`` is an :class:`optbb.osdt.model.Tree`.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..common.bitset import n_words, not_into
from ..common.bounds import objective_value
from ..common.data import BinaryDataset
from ..common.growth import GrowthStopped
from ..common.limits import Budget, InterruptGuard, Limits
from ..common.progress import Progress
from ..common.queue import CURIOSITY, ENTROPY, FIFO, GINI, LOWER_BOUND, OBJECTIVE
from ..common.result import SearchResult, Status
from ..common.trace import TraceRecorder
from ..common.validation import check_number
from . import kernel as K
from .bounds import a_priori_leaf_bound
from .caches import NEED_ENTRIES, NEED_LEAVES, NEED_SCRATCH, NEED_TREES, Arena
from .model import Tree, leaves_from_sklearn

POLICIES = {"curiosity": CURIOSITY, "lower_bound": LOWER_BOUND, "objective": OBJECTIVE, "entropy": ENTROPY,
            "gini": GINI, "fifo": FIFO}
ABLATIONS = ("support", "incremental_accuracy", "accurate_support", "lookahead", "equivalent_points", "leaf_bound")
_BIG = (1 << 62)


def check_regularization(regularization) -> float:
    """Lambda of the OSDT objective, a number in (0, 1] (a leaf costs lambda), or a ValueError naming the problem."""
    return check_number("regularization", regularization, lo=0, hi=1, lo_open=True)


def check_options(policy, ablation, warm_start, max_depth, max_leaves, upper_bound):
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {sorted(POLICIES)}")
    if isinstance(ablation, str):
        ablation = (ablation,)
    try:
        ablation = tuple(ablation)
    except TypeError:
        raise ValueError(f"ablation must be a list of bound names, got {ablation!r}") from None
    bad = [a for a in ablation if a not in ABLATIONS]
    if bad:
        raise ValueError(f"unknown ablation name(s) {bad}; choose among {list(ABLATIONS)}")
    if warm_start not in ("cart", None, "none"):
        raise ValueError(f"warm_start must be 'cart' or None, got {warm_start!r}")
    for name, v, lo in (("max_depth", max_depth, 0), ("max_leaves", max_leaves, 1)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo):
            raise ValueError(f"{name} must be an integer >= {lo} or None, got {v!r}")
    if upper_bound is not None:
        try:
            ub = float(upper_bound)
        except (TypeError, ValueError):
            raise ValueError(f"upper_bound must be a number or None, got {upper_bound!r}") from None
        if not math.isfinite(ub) or ub <= 0:
            raise ValueError(f"upper_bound must be a positive finite number, got {upper_bound!r}")
    return ablation


def cart_warm_start(X: np.ndarray, y: np.ndarray, lam: float, max_depth, max_leaves):
    """CART tree with the hyper-parameters the OSDT reference ties to lambda; returns its leaves or None."""
    from sklearn.tree import DecisionTreeClassifier

    n = X.shape[0]
    max_leaf_nodes = int(math.floor(1.0 / (2.0 * lam)))
    if max_leaves is not None:
        max_leaf_nodes = min(max_leaf_nodes, int(max_leaves))
    if max_leaf_nodes < 2 or (max_depth is not None and max_depth < 1) or len(np.unique(y)) < 2:
        return None
    clf = DecisionTreeClassifier(max_depth=max_depth, min_samples_split=max(int(math.ceil(2 * lam * n)), 2),
                                 min_samples_leaf=max(int(math.ceil(lam * n)), 1), max_leaf_nodes=max_leaf_nodes,
                                 min_impurity_decrease=lam, random_state=0)
    clf.fit(X, y)
    return leaves_from_sklearn(clf, X.shape[1])


def _leaf_counts(X, y, leaf):
    hit = np.ones(X.shape[0], dtype=bool)
    for f, v in leaf:
        hit &= X[:, f] == v
    n = int(hit.sum())
    pos = int(y[hit].sum())
    label = 1 if pos >= n - pos else 0
    return n, (n - pos if label == 1 else pos), label


def _tree_from_literals(X, y, leaves, names) -> tuple[Tree, int]:
    counts = [_leaf_counts(X, y, leaf) for leaf in leaves]
    errors = sum(c[1] for c in counts)
    return Tree(leaves, [c[2] for c in counts], list(names), [c[0] for c in counts], [c[1] for c in counts]), errors


def _decode_leaf(key_row: np.ndarray, kw: int, n_features: int):
    lits = []
    for f in range(n_features):
        w, b = f >> 6, np.uint64(f & 63)
        if (key_row[w] >> b) & np.uint64(1):
            lits.append((f, 1))
        elif (key_row[kw + w] >> b) & np.uint64(1):
            lits.append((f, 0))
    return tuple(lits)


def solve(data: BinaryDataset, regularization: float, *, policy: str = "curiosity", ablation=(),
          warm_start: str | None = "cart", upper_bound: float | None = None, max_depth: int | None = None,
          max_leaves: int | None = None, time_limit: float | None = None, node_limit: int | None = None,
          memory_limit=None, verbose: int = 0) -> SearchResult:
    """Certifiably optimal sparse decision tree (OSDT) minimising ``errors / N + regularization * leaves``.

    Parameters
    ----------
    data : BinaryDataset with 0/1 features and labels (no sample weights).
    regularization : lambda, the penalty per leaf, in (0, 1].
    policy : "curiosity" (default), "lower_bound", "objective", "entropy", "gini" or "fifo".
    ablation : names of bounds to switch off: "support", "incremental_accuracy", "accurate_support",
        "lookahead", "equivalent_points", "leaf_bound".  The hierarchical lower bound and the leaf permutation
        symmetry (Tree cache) are always on.
    warm_start : "cart" (initial incumbent from a CART tree with lambda-tied hyper-parameters) or None.
    upper_bound : an objective value known to be achievable, used as the initial pruning threshold.  If no tree
        below it exists, the search is repeated without it.
    max_depth, max_leaves : constraints on the tree (depth = number of splits on a path).
    time_limit (s), node_limit (queue insertions, "trees evaluated"), memory_limit (bytes or "512M") stop the
        search early; the result then reports its status, a valid lower bound and the gap.
    """
    if not isinstance(data, BinaryDataset):
        raise ValueError(f"data must be a BinaryDataset, got {type(data).__name__}")
    if data.sample_weight is not None:
        raise ValueError("OSDT does not support sample weights (data.sample_weight is set)")
    lam = check_regularization(regularization)
    ablation = check_options(policy, ablation, warm_start, max_depth, max_leaves, upper_bound)
    limits = Limits(time_limit, node_limit, memory_limit)
    result = _solve(data, lam, policy, set(ablation), warm_start, upper_bound, max_depth, max_leaves, limits,
                    verbose)
    if (upper_bound is not None and result.status is Status.OPTIMAL
            and result.objective > float(upper_bound) and result.lower_bound < result.objective):
        warnings.warn(f"no tree has an objective below upper_bound={upper_bound}; solving again without it",
                      RuntimeWarning, stacklevel=2)
        result = _solve(data, lam, policy, set(ablation), warm_start, None, max_depth, max_leaves, limits, verbose)
    return result


def _solve(data, lam, policy, ablation, warm_start, upper_bound, max_depth, max_leaves, limits, verbose):
    budget = Budget(limits)
    X, y = data.X, data.y
    n, m = data.n_samples, data.n_features
    lam_n = lam * n
    W, KW = n_words(n), n_words(max(m, 1))
    xbits = np.ascontiguousarray(data.bits)
    xnot = np.zeros_like(xbits)
    for f in range(m):
        not_into(xnot[f], xbits[f], n)
    ybits = np.ascontiguousarray(data.y_bits)
    zbits = np.ascontiguousarray(data.minority_bits())
    data_t = (xbits, xnot, ybits, zbits)

    # incumbent candidates outside the search: CART and a user bound
    n_pos = int(y.sum())
    root_obj = objective_value(min(n_pos, n - n_pos), 1, n, lam)
    rc = math.inf
    cart_tree, cart_obj = None, math.inf
    if warm_start == "cart":
        leaves = cart_warm_start(X, y, lam, max_depth, max_leaves)
        if leaves is not None:
            cart_tree, cart_err = _tree_from_literals(X, y, leaves, data.feature_names)
            cart_obj = objective_value(cart_err, cart_tree.n_leaves, n, lam)
            rc = cart_obj
    if upper_bound is not None:
        rc = min(rc, float(upper_bound))
    r0 = min(rc, root_obj)
    lmax = a_priori_leaf_bound(r0, lam)
    if max_leaves is not None:
        lmax = min(lmax, int(max_leaves) + 1)
    lmax = max(lmax, 2)
    MW = n_words(lmax + 1)

    ip = np.zeros(K.N_IPARAMS, dtype=np.int64)
    ip[K.P_N], ip[K.P_M] = n, m
    ip[K.P_MAXDEPTH] = _BIG if max_depth is None else int(max_depth)
    ip[K.P_MAXLEAVES] = _BIG if max_leaves is None else int(max_leaves)
    ip[K.P_POLICY] = POLICIES[policy]
    ip[K.P_SUPPORT] = "support" not in ablation
    ip[K.P_INCR] = "incremental_accuracy" not in ablation
    ip[K.P_ACCU] = "accurate_support" not in ablation
    ip[K.P_LOOKAHEAD] = "lookahead" not in ablation
    ip[K.P_EQUIV] = "equivalent_points" not in ablation
    ip[K.P_LEAFBOUND] = "leaf_bound" not in ablation
    ip[K.P_COUNTLIMIT] = _BIG if limits.node_limit is None else limits.node_limit
    ip[K.P_LMAX] = lmax
    fp = np.array([lam, lam_n, rc], dtype=np.float64)
    st = np.zeros(K.N_STATE, dtype=np.int64)
    st[K.S_RESUME] = -1
    st[K.S_INC] = -1
    digits = np.zeros(2 * lmax + 4, dtype=np.int64)

    arena = Arena(W, KW, MW)
    cap_bytes = limits.memory_limit
    trace = TraceRecorder()
    status = None
    if cap_bytes is not None and arena.nbytes() > cap_bytes:
        status = Status.MEMORY_LIMIT
    else:
        K.init_search(data_t, arena.leaves, arena.ltable, arena.trees, arena.ttable, arena.entries, arena.heap,
                      st, ip, fp)
    progress = Progress(verbose, "osdt")
    max_work = 64
    t_opt = 0.0 if st[K.S_INC] >= 0 else None
    count_opt_seen = st[K.S_COUNT_OPT]
    try:
        with InterruptGuard() as guard:
            while status is None:
                t0 = budget.elapsed()
                c0 = int(st[K.S_COUNT])
                inc_before = int(st[K.S_INC])
                opt_before = int(st[K.S_COUNT_OPT])
                code = K.run_chunk(data_t, arena.leaves, arena.ltable, arena.trees, arena.ttable, arena.entries,
                                   arena.heap, arena.scratch, st, ip, fp, digits, max_work)
                t1 = budget.elapsed()
                if int(st[K.S_INC]) != inc_before or int(st[K.S_COUNT_OPT]) != opt_before:
                    c1 = int(st[K.S_COUNT])
                    frac = (int(st[K.S_COUNT_OPT]) - c0) / (c1 - c0) if c1 > c0 else 1.0
                    t_opt = t0 + min(max(frac, 0.0), 1.0) * (t1 - t0)
                    count_opt_seen = int(st[K.S_COUNT_OPT])
                if code == K.DONE:
                    status = Status.OPTIMAL
                    break
                if code == K.COUNT_LIMIT:
                    status = Status.NODE_LIMIT
                    break
                if code in (NEED_LEAVES, NEED_TREES, NEED_ENTRIES, NEED_SCRATCH):
                    need = (int(st[K.S_NEED]), int(st[K.S_NEED2])) if code == NEED_TREES else int(st[K.S_NEED])
                    try:
                        if not arena.grow(code, need, cap_bytes, lambda: budget.must_stop(guard)):
                            status = Status.MEMORY_LIMIT
                            break
                    except GrowthStopped:
                        pass  # the time limit or Ctrl-C arrived: reported by the checks below
                else:  # end of a chunk: adapt its size to ~0.05 s
                    dt = t1 - t0
                    if dt < 0.02:
                        max_work = min(max_work * 2, 1 << 24)
                    elif dt > 0.1 and max_work > 1:
                        max_work //= 2
                    if trace.due(t1):
                        lb = trace.sample(t1, _incumbent_objective(st, fp, cart_obj, root_obj, n, lam, arena),
                                          lambda: _global_lower_bound(arena, st, fp), int(st[K.S_HEAP]),
                                          int(st[K.S_COUNT]))
                        progress.update(int(st[K.S_COUNT]), float(fp[K.F_RC]), lb, int(st[K.S_HEAP]),
                                        arena.nbytes())
                if guard.interrupted:
                    status = Status.INTERRUPTED
                    break
                if budget.exceeded(int(st[K.S_COUNT]), arena.nbytes()) is Status.TIME_LIMIT:
                    status = Status.TIME_LIMIT
                    break
    finally:  # a second Ctrl-C (KeyboardInterrupt from InterruptGuard) aborts, as documented
        progress.close()
    total_time = budget.elapsed()

    # the model: the best tree the search found, else the CART warm start, else the root
    if st[K.S_INC] >= 0:
        model, errors = _search_tree(arena, int(st[K.S_INC]), X, y, data.feature_names, KW, m)
        objective = objective_value(errors, model.n_leaves, n, lam)
    elif cart_tree is not None and cart_obj <= root_obj:
        model, objective = cart_tree, cart_obj
        t_opt, count_opt_seen = 0.0, 0
    else:
        model, _ = _tree_from_literals(X, y, [()], data.feature_names)
        objective = root_obj
        t_opt, count_opt_seen = 0.0, 0
    if status is Status.OPTIMAL:
        lower_bound = min(float(fp[K.F_RC]), objective)
    else:
        lower_bound = min(_global_lower_bound(arena, st, fp), objective)
    trace.record(total_time, objective, lower_bound, int(st[K.S_HEAP]), int(st[K.S_COUNT]))
    counters = {
        "trees_evaluated": int(st[K.S_COUNT]),
        "trees_to_optimum": int(count_opt_seen),
        "nodes_expanded": int(st[K.S_POPS]),
        "total_time": total_time,
        "time_to_optimum": float(t_opt) if t_opt is not None else 0.0,
        "max_queue_size": int(st[K.S_MAXHEAP]),
        "queue_size": int(st[K.S_HEAP]),
        "leaf_cache_size": int(st[K.S_NLEAVES]),
        "tree_cache_size": int(st[K.S_NTREES]),
        "memory_bytes": arena.nbytes(),
        "cart_objective": cart_obj if cart_tree is not None else None,
        "best_is_cart": bool(st[K.S_INC] < 0 and cart_tree is not None and cart_obj <= root_obj),
    }
    return SearchResult(model=model, objective=float(objective), lower_bound=float(lower_bound), status=status,
                        counters=counters, trace=trace.frame())


def _global_lower_bound(arena: Arena, st, fp) -> float:
    """min(R^c, smallest proven bound in the queue): every tree not yet dominated descends from a queue entry."""
    return float(min(fp[K.F_RC], K.frontier_bound(arena.entries, arena.heap, st)))


def _incumbent_objective(st, fp, cart_obj, root_obj, n, lam, arena) -> float:
    if st[K.S_INC] >= 0:
        t = int(st[K.S_INC])
        return float(objective_value(int(arena.trees[2][t]), int(arena.trees[1][t]), n, lam))
    return float(min(cart_obj, root_obj))


def _search_tree(arena: Arena, tid: int, X, y, names, kw: int, m: int) -> tuple[Tree, int]:
    off, ln = int(arena.trees[0][tid]), int(arena.trees[1][tid])
    ids = arena.trees[3][off:off + ln]
    leaves = [_decode_leaf(arena.leaves[1][i], kw, m) for i in ids]
    tree, errors = _tree_from_literals(X, y, leaves, names)
    if errors != int(arena.trees[2][tid]):  # cheap consistency check of the kernel's counts
        raise RuntimeError(f"internal error: tree errors {errors} != cached {int(arena.trees[2][tid])}")
    return tree, errors
