"""The prefix bounds of Chen & Rudin (AISTATS 2018) and the curiosity functions, as scalar ``@njit`` helpers.

Notation (spec Section 1): a prefix ``e`` leaves ``rp`` positives and ``rn`` negatives uncaptured
(``tilde n+``, ``tilde n-``); its last rule captured ``lp`` positives and ``ln`` negatives, so
``alpha_{|e|-1} = lp / (lp + ln)``.  The empty prefix uses ``alpha_{-1} = 1`` (``lp = 1, ln = 0``).  Counts are
integers (passed as int64 or float64), ``n`` is the number of samples, ``w`` the positive-class weight, ``C`` the
cost per rule and ``C1`` the monotonicity penalty.  Every function has a brute-force check in the tests.
"""
from __future__ import annotations

import math

from ..common.jit import njit


@njit(cache=True, inline="always")
def prefix_feasible(lp, ln, rp, rn):
    """Proposition 4.2 (2): a compatible falling prefix is feasible iff ``tilde alpha_e <= alpha_{|e|-1}``,
    i.e. ``rp (lp + ln) <= lp (rp + rn)`` on exact counts."""
    return rp * (lp + ln) <= lp * (rp + rn)


# The reference code's weaker test (spec NOTE-1): the same inequality with the counts of the rule *before* the new
# one, i.e. the remainder after the new rule is no higher than that rule's proportion (``alpha_remain <= alpha_last``).
reference_feasible = prefix_feasible


@njit(cache=True, inline="always")
def _inverse_alpha_term(lp, ln, rp):
    """``(1/alpha_{|e|-1} - 1) * rp`` with ``1/alpha - 1 = ln / lp``; 0 when ``rp = 0``, ``+inf`` when ``alpha = 0``."""
    if rp == 0:
        return 0.0
    if lp == 0:
        return math.inf
    return (ln / lp) * rp


@njit(cache=True, inline="always")
def frl_completion_bound(lp, ln, rp, rn, n, w, C):
    """Theorem 4.6, Eq. (8), the part added to ``L(e)``:
    ``min((1/alpha_{|e|-1} - 1) rp / n + C, w rp / n, rn / n)``; ``L*(e) = L(e) + this``."""
    return min(_inverse_alpha_term(lp, ln, rp) / n + C, min(w * rp / n, rn / n))


@njit(cache=True, inline="always")
def frl_prefix_bound(L_e, lp, ln, rp, rn, n, w, C):
    """``L*(e, D, w, C)`` of Theorem 4.6: no compatible falling list beginning with feasible ``e`` does better."""
    return L_e + frl_completion_bound(lp, ln, rp, rn, n, w, C)


@njit(cache=True, inline="always")
def frl_should_stop(lp, ln, rp, rn, n, w, C):
    """Theorem 4.6, Inequality (9): ``C >= min(w rp / n, rn / n) - (1/alpha_{|e|-1} - 1) rp / n``.  When it holds,
    ``{e, tilde alpha_e}`` (the else clause right now) is the best completion of ``e``."""
    return C >= min(w * rp / n, rn / n) - _inverse_alpha_term(lp, ln, rp) / n


@njit(cache=True, inline="always")
def soft_g(beta, rp, amin, n, C, C1):
    """``g(beta) = (1/beta - 1) rp / n + C + C1 (beta - alpha_min)`` of Theorem 5.2."""
    return (1.0 / beta - 1.0) * rp / n + C + C1 * (beta - amin)


@njit(cache=True)
def soft_inf_g(rp, rn, amin, n, w, C, C1):
    """Closed-form ``inf_{zeta < beta <= 1} g(beta)`` with ``zeta = max(alpha_min, tilde alpha, 1/(1+w))``.

    ``g`` is convex with its minimum at ``beta* = sqrt(rp / (C1 n))``; if ``zeta < beta* <= 1`` the infimum is
    ``g(beta*)``, otherwise ``min(g(zeta), g(1))`` (``g(zeta)`` being the limit at the open end).  An empty
    interval (``zeta >= 1``) gives ``+inf``.
    """
    at = rp / (rp + rn)
    zeta = max(amin, max(at, 1.0 / (1.0 + w)))
    if zeta >= 1.0:
        return math.inf
    if C1 > 0.0:
        bstar = math.sqrt(rp / (C1 * n))
        if zeta < bstar <= 1.0:
            return soft_g(bstar, rp, amin, n, C, C1)
    return min(soft_g(zeta, rp, amin, n, C, C1), soft_g(1.0, rp, amin, n, C, C1))


@njit(cache=True)
def soft_continue_bound(rp, rn, amin, n, w, C, C1):
    """Theorem 5.2, Eq. (10), the terms for completions with at least one more rule (``T_1`` and ``inf g``).

    ``amin`` is ``alpha_min`` of the prefix.  With no positives or no negatives left, no further rule can help
    and the term is ``+inf`` (stopping is never worse).
    """
    if rp == 0 or rn == 0:
        return math.inf
    if amin <= 0.0:
        t1 = math.inf
    else:
        t1 = (1.0 / amin - 1.0) * rp / n + C
        at = rp / (rp + rn)
        if at >= amin:
            t1 += w * rp / n + C1 * (at - amin)
    return min(t1, soft_inf_g(rp, rn, amin, n, w, C, C1))


@njit(cache=True, inline="always")
def soft_stop_cost(rp, rn, amin, n, w, C1):
    """Theorem 5.2, Eq. (10), the stopping terms: ``L~({e, tilde alpha}) - L~(e)`` = else risk + else penalty."""
    wp = w * rp
    risk = rn if wp > rn else wp
    at = rp / (rp + rn) if rp + rn > 0 else 0.0
    pen = at - amin if at > amin else 0.0
    return risk / n + C1 * pen


@njit(cache=True)
def soft_prefix_bound(Lt_e, rp, rn, amin, n, w, C, C1):
    """``L~*(e)`` of Theorem 5.2: no compatible list beginning with ``e`` has a smaller softFRL objective."""
    return Lt_e + min(soft_continue_bound(rp, rn, amin, n, w, C, C1), soft_stop_cost(rp, rn, amin, n, w, C1))


@njit(cache=True, inline="always")
def curiosity_frl(alpha, cp, rem_pos, lam):
    """Eq. (11): ``lam * alpha + (1 - lam) * n+(A) / tilde n+_e`` (coverage term 0 when no positive is left)."""
    cov = cp / rem_pos if rem_pos > 0 else 0.0
    return lam * alpha + (1.0 - lam) * cov


@njit(cache=True, inline="always")
def curiosity_soft(alpha, amin, cp, rem_pos, lam):
    """Eq. (12): ``lam * max(0, min(alpha, 101 alpha_min - 100 alpha)) + (1 - lam) * n+(A) / tilde n+_e``: favours
    high proportions that exceed the running minimum by at most 1 %."""
    first = min(alpha, (1.01 / 0.01) * amin - (1.0 / 0.01) * alpha)
    if first < 0.0:
        first = 0.0
    return curiosity_frl(first, cp, rem_pos, lam)  # Eq. (11)'s mix, with this first term for alpha
