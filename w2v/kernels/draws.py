"""Random draws of the CPU kernels: splitmix64 and the noise distribution's alias table.

Every worker owns a splitmix64 state (a ``uint64``); a draw advances it and
returns 64 random bits.  The GPU kernels make the same draws from a counter
(:mod:`w2v.cuda.kernels`).
"""
import numpy as np
from numba import njit

from .options import INNER_OPTIONS, KERNEL_OPTIONS

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
HIGH32 = np.uint64(32)   # shift to the high half of a 64-bit draw
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(**INNER_OPTIONS)
def splitmix64(state):
    """Advance a splitmix64 state; return (random uint64, new state)."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31), state


@njit(**INNER_OPTIONS)
def uniform_index(r, n):
    """Map the high 32 bits of ``r`` to ``[0, n)`` without division (multiply-shift)."""
    return np.int64(((r >> HIGH32) * np.uint64(n)) >> HIGH32)


@njit(**INNER_OPTIONS)
def draw_noise(r, noise_table):
    """One draw from the noise distribution (alias method) with one random number.

    ``noise_table`` is :func:`w2v.training.sampling.pack_alias_table`'s: column ``i``
    (high 32 random bits) is kept when the low 32 bits are below its
    threshold (low half of the entry), else its alias (high half) is drawn.
    """
    i = uniform_index(r, noise_table.size)
    e = noise_table[i]
    if (r & _LOW32) < (e & _LOW32):
        return i
    return np.int64(e >> HIGH32)


@njit(inline="always", **INNER_OPTIONS)   # inlined: called per word, a call cost ~2% of CBOW
def draw_noise_words(noise_table, s, out, first, count):
    """Draw ``count`` noise words into ``out[first:first + count]``; return the new RNG state."""
    for k in range(first, first + count):
        r, s = splitmix64(s)
        out[k] = draw_noise(r, noise_table)
    return s


@njit(**KERNEL_OPTIONS)
def sample_noise(n, noise_table, rng_state):
    """Draw ``n`` noise words (for tests and statistics)."""
    out = np.empty(n, np.int64)
    s = draw_noise_words(noise_table, rng_state[0], out, 0, n)
    rng_state[0] = s
    return out


__all__ = ["HIGH32", "draw_noise", "draw_noise_words", "sample_noise", "splitmix64", "uniform_index"]
