"""The random numbers of the FRL/softFRL searches: a xoshiro256** generator whose state (4 uint64 words) persists
across chunks, so a seed fixes the whole run whatever the chunking, and the curiosity-weighted draw of a candidate
(SUPP Algorithms 1 and 2, "sample an antecedent with probability proportional to its curiosity")."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..common.jit import njit


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def next_u64(s):
    """Next 64-bit output of xoshiro256** with state ``s`` (4 uint64 words, updated in place)."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True)
def uniform(s):
    """A double uniform on [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def seed_state(random_state) -> np.ndarray:
    """xoshiro256** state from a numpy ``RandomState``/``Generator`` (drawn from it) or an int (SeedSequence)."""
    if isinstance(random_state, np.random.RandomState):
        words = random_state.randint(0, 2 ** 32, size=8, dtype=np.uint64)
        state = (words[0::2] << np.uint64(32)) | words[1::2]
    elif isinstance(random_state, np.random.Generator):
        state = random_state.integers(0, 2 ** 64, size=4, dtype=np.uint64, endpoint=False)
    else:
        state = np.random.SeedSequence(int(random_state)).generate_state(4, dtype=np.uint64)
    if not state.any():
        state[0] = 1
    return state


@njit(cache=True)
def sample_index(f, m, s):
    """Index ``i < m`` drawn with probability ``f[i] / sum(f[:m])``; uniform when the weights are all 0."""
    tot = 0.0
    for i in range(m):
        tot += f[i]
    u = uniform(s)
    if not (tot > 0.0) or not math.isfinite(tot):
        k = int(u * m)
        return k if k < m else m - 1
    target = u * tot
    acc = 0.0
    for i in range(m):
        acc += f[i]
        if target < acc:
            return i
    for i in range(m - 1, -1, -1):  # rounding at the top end: the last positive weight
        if f[i] > 0.0:
            return i
    return m - 1


def check_random_state(random_state):
    """None (fresh entropy), a non-negative int, a numpy ``RandomState`` or ``Generator``."""
    if random_state is None:
        return np.random.SeedSequence().entropy
    if isinstance(random_state, (np.random.RandomState, np.random.Generator)):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)) \
            and random_state >= 0:
        return int(random_state)
    raise ValueError(f"random_state must be None, a non-negative int, a numpy RandomState or Generator; got "
                     f"{random_state!r}")
