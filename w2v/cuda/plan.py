"""The training kernel's launch plan: threads per block, segment length, shared memory.

One thread block trains one segment (at most ``seg_max`` ids) at a time and
holds the segment's ids, the rows of the context and of the output words in
static shared memory, which a block may use up to :data:`STATIC_SHARED_LIMIT`.
"""
from ..errors import ParameterError
from . import simulator_enabled
from .host import default_threads

DEFAULT_SEG_MAX = 1024
STATIC_SHARED_LIMIT = 48 * 1024   # bytes of static shared memory a block may use
SIMULATOR_THREADS = 8             # default threads per block on the CUDA simulator


def shared_bytes(dim, window, sg, shared, kmax, seg_max, threads):
    """Static shared memory of one block of the training kernel (bytes)."""
    ld = dim + 1 if dim % 2 == 0 else dim
    nx = 2 * window if (sg and shared) else 1
    return (4 * seg_max + 4 * threads + 32 * threads + 4 + 4 * nx * ld + 4 * kmax * ld
            + 4 * nx * kmax + 4 * threads + 8 * kmax)


def plan_kernel(settings, hs_width, seg_max=DEFAULT_SEG_MAX, threads=None):
    """``(kmax, seg_max, threads)`` for these settings, shrinking segments to fit shared memory."""
    s = settings
    kmax = max(s.negative + 1, hs_width if s.hs else 1)
    if not threads:
        # the simulator runs every GPU thread as a Python thread: keep its blocks small
        threads = SIMULATOR_THREADS if simulator_enabled() else default_threads(s.dim)
    threads = int(threads)
    if not 4 <= threads <= 1024:
        raise ParameterError(f"threads per block must be in [4, 1024] (got {threads})")
    seg = int(seg_max)
    while seg > 128 and shared_bytes(s.dim, s.window, s.sg, not s.exact, kmax, seg, threads) > STATIC_SHARED_LIMIT:
        seg //= 2
    need = shared_bytes(s.dim, s.window, s.sg, not s.exact, kmax, seg, threads)
    if need > STATIC_SHARED_LIMIT:
        # name what the block holds: dim-wide rows of the context (2 * window of them only in
        # skip-gram's shared-negatives mode) and of the output words (negatives + 1, or the
        # longest Huffman code); suggest --exact only where it would fit
        shared_rows = s.sg and not s.exact
        by_hs = s.hs and kmax == hs_width
        lower = ["dim"] + (["window"] if shared_rows else []) + ([] if by_hs else ["negative"])
        held = ", ".join(f"{name}={getattr(s, name)}" for name in lower)
        if by_hs:
            held += f", hs (Huffman codes up to {hs_width} long)"
        exact = shared_rows and shared_bytes(s.dim, s.window, s.sg, False, kmax, 128, threads) <= STATIC_SHARED_LIMIT
        raise ParameterError(
            f"{held} need {need // 1024} KiB of GPU shared memory per block "
            f"(limit {STATIC_SHARED_LIMIT // 1024} KiB): lower {' or '.join(lower)}"
            f"{', use --exact' if exact else ''}, or use --device cpu")
    return kmax, seg, threads
