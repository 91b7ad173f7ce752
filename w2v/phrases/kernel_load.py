"""Loading every phrase kernel at once, the first time a phrase model is made in a process.

Numba loads a kernel from its cache (or compiles it, the first time) on its
first call.  Left to the first call, that cost falls where nobody expects it:
the first ``phrases[sentence]`` took 1.4 s where gensim's takes none, and a
kernel first compiled inside another step was announced as that step.  So a
:class:`~w2v.phrases.model.Phrases` or
:class:`~w2v.phrases.model.FrozenPhrases` loads them all when it is made
(:func:`load_phrase_kernels`, once per process), for the argument types the
phrase code passes (:func:`kernel_signatures`), and logs what it took; every
later call finds its kernel loaded.  ``w2v train --phrases`` and ``w2v
phrases`` call it under a :class:`w2v.training.progress.KernelWatch`, which
announces a compilation.
"""
import logging
import threading
import time

__all__ = ["kernel_signatures", "load_phrase_kernels"]

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_loaded = []   # holds True once the kernels are loaded in this process


def kernel_signatures():
    """The argument types each phrase kernel is called with, by kernel name (Numba types).

    Returns
    -------
    dict of str to tuple
    """
    from numba import types   # Numba is imported with the kernels, when a phrase model is first made

    n, flag = types.int64, types.boolean
    ids, i64, u64, i8, flags, f64 = (types.int32[::1], types.int64[::1], types.uint64[::1], types.int8[::1],
                                     types.boolean[::1], types.float64[::1])
    table = types.int64[:, ::1]
    return {
        "count_pairs": (ids, n, n, n, ids, flags, flags, ids, flag, flag, n, n, n, n, table, i64, n, i64, i64, n,
                        i64),
        "fill_filter": (table, u64),
        "first_seen": (ids, i64, i64),
        "hash_runs": (i64, ids, u64),
        "insert_entries": (table, i64, i64, i64),
        "intern_run": (ids, i64, u64, i64, ids, i64),
        "intern_runs": (ids, n, n, ids, flags, flags, n, n, i64, i64, u64, i64, ids, i64, ids),
        "join_phrases": (ids, n, flag, n, ids, i8, i8, n, n, table, u64, ids, i64, u64, i64, ids, i64, ids, i64,
                         flag),
        "last_anchor_cut": (ids, n, n, flags, flags, n),
        "npmi_scores": (f64, f64, f64, n, n, f64),
        "pair_parts": (i64, i64, n),
        "rebuild_runs": (i64, u64, i64, ids, n),
        "table_entries": (table, n),
    }


def load_phrase_kernels():
    """Load (or, the first time, compile) every phrase kernel, once per process; return the seconds it took.

    Later calls return 0.0 at once.  The time, and whether anything compiled,
    are logged at INFO level.

    Returns
    -------
    float
    """
    with _lock:
        if _loaded:
            return 0.0
        from ..kernels import phrases as kernels   # Numba and LLVM: imported where the kernels are first needed

        t0 = time.perf_counter()
        misses = 0
        for name, signature in kernel_signatures().items():
            kernel = getattr(kernels, name)
            if not hasattr(kernel, "compile"):   # NUMBA_DISABLE_JIT: plain Python functions
                continue
            before = sum(kernel.stats.cache_misses.values())
            kernel.compile(signature)   # Numba's Dispatcher.compile: loads the cached code, else compiles
            misses += sum(kernel.stats.cache_misses.values()) - before
        seconds = time.perf_counter() - t0
        _loaded.append(True)
    if misses:
        logger.info("compiled the phrase kernels in %.1fs (later runs load them from the cache)", seconds)
    else:
        logger.info("loaded the phrase kernels from the cache in %.1fs", seconds)
    return seconds
