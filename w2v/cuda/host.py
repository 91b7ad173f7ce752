"""Host-side helpers of the CUDA path: corpus segments, seeds, the counter-based RNG.

Nothing here needs ``numba.cuda``.

Segments
--------
The GPU trains one *segment* per thread block: a run of at most
``seg_max`` consecutive ids of the encoded stream, cut after a sentence end
(``-1``) where one lies in the run, so that short sentences are packed
together and sentences are rarely cut.  A sentence longer than
``max_sentence_length`` raw tokens is split (the CPU kernel splits after
``max_sentence_length`` *kept* tokens); a sentence longer than ``seg_max`` is
split too.  Segments never start on a sentinel.

Random numbers
--------------
Every draw is splitmix64 output, computed from a counter instead of a
sequential state, so thousands of threads draw in parallel and a run does
not depend on how blocks are scheduled.  Output number ``n`` (``n >= 1``) of
the splitmix64 stream that starts at state ``s`` is ``mix(s + n * GOLDEN)``
(:func:`splitmix_output`), so:

* subsampling: token at global position ``p`` (``epoch * stream_length +
  index``) is kept when ``splitmix_output(seed_keep, p + 1) >> 32 <
  keep_threshold[id]``;
* a segment starting at global position ``p0`` owns the splitmix64 stream that
  starts at state ``splitmix_output(seed_seg, p0 + 1)``; inside it, draws are
  consumed in exactly the CPU kernel's order (for each centre: the window
  shrink, then the ``negative`` noise draws), so one segment equals
  :func:`w2v.kernels.cpu.train_sentence` run on its sentences with that state,
  up to float rounding.  Threads take the ``k``-th draw of a centre directly
  (``mix(state + k * GOLDEN)``), in parallel.

``seed_keep`` and ``seed_seg`` are derived from the run's ``seed``
(:func:`derive_seeds`).
"""
import numpy as np

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z):
    """splitmix64's output function on a Python int (reference for tests)."""
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def splitmix_output(state, n):
    """Output number ``n`` (1-based) of the splitmix64 stream starting at ``state``."""
    return mix64((int(state) + int(n) * GOLDEN) & M64)


def keep_draw(seed_keep, position):
    """The random uint64 that decides whether the token at ``position`` is kept."""
    return splitmix_output(seed_keep, int(position) + 1)


def segment_state(seed_seg, position):
    """The splitmix64 state of the segment that starts at global ``position``."""
    return splitmix_output(seed_seg, int(position) + 1)


def default_threads(dim):
    """Threads per block: one per dimension, rounded up to whole warps, 32..256."""
    return int(min(256, max(32, -(-int(dim) // 32) * 32)))


def derive_seeds(seed):
    """``(seed_keep, seed_seg)``: two independent uint64 from the run's seed."""
    ss = np.random.SeedSequence(int(seed) & M64)
    a, b = ss.generate_state(2, dtype=np.uint64)
    return int(a), int(b)

