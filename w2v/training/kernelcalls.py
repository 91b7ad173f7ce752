"""The training kernel's arguments: checked, built and loaded the same way by every caller.

:func:`kernel_args` builds the arguments of :func:`w2v.kernels.cpu.train_tokens`
that stay fixed over a run (their Python types pick the compiled kernel, so the
CPU's threads, the deterministic lanes, the kernel preload and the Dask workers
all build them here); :func:`check_kernel_inputs` checks the arrays first
(the kernels have no bounds checks); :func:`load_kernel` and
:func:`start_kernel_load` load the compiled kernel before training starts.
"""
import threading
import time

import numpy as np

from ..errors import ParameterError
from ..kernels.cpu import train_tokens
from .sampling import Tables

__all__ = ["check_kernel_inputs", "kernel_params", "kernel_args", "no_replica_args", "load_kernel",
           "start_kernel_load"]


def check_kernel_inputs(syn0, syn1neg, syn1, tables, settings, vocab_size):
    """Check that the weights and tables fit the settings and a vocabulary of ``vocab_size`` words.

    The kernels run without bounds checks and index these arrays with
    vocabulary ids (validated against ``vocab_size`` as they are read, see
    :meth:`w2v.text.encoded.EncodedCorpus.blocks`), noise words and Huffman
    nodes; so every array a kernel indexes must be as large as those ids
    say, of the dtype the kernel was compiled for, and C-contiguous.  A
    mismatch (weights or settings replaced by hand, say ``negative`` turned
    on in a model trained without it) raises instead of reaching a kernel.

    Raises
    ------
    ParameterError
        The first mismatch found.
    """
    s = settings

    def need(cond, msg):
        if not cond:
            raise ParameterError(f"cannot train: {msg}")

    def matrix(name, a, rows):
        need(isinstance(a, np.ndarray) and a.dtype == np.float32 and a.ndim == 2,
             f"{name} must be a 2-D float32 array (got {getattr(a, 'dtype', type(a).__name__)}, "
             f"{getattr(a, 'ndim', '?')}-D)")
        need(a.flags.c_contiguous and a.flags.writeable, f"{name} must be C-contiguous and writable")
        need(a.shape[1] == s.dim, f"{name} has rows of {a.shape[1]} floats, but dim is {s.dim}")
        need(rows is None or a.shape[0] == rows, f"{name} has {a.shape[0]} rows; with these settings "
                                                 f"(negative={s.negative}, hs={s.hs}) and {vocab_size} words "
                                                 f"it needs {rows}")

    def table(name, a, dtype, size):
        need(isinstance(a, np.ndarray) and a.dtype == dtype and a.flags.c_contiguous,
             f"table {name} must be a C-contiguous {np.dtype(dtype).name} array")
        need(size is None or a.shape[0] == size,
             f"table {name} has {a.shape[0]} entries, {size} expected (tables not rebuilt for these settings?)")

    need(vocab_size >= 1, "empty vocabulary")
    matrix("syn0", syn0, vocab_size)
    # an unused output matrix may have any number of rows (one, when it was never needed)
    matrix("syn1neg", syn1neg, vocab_size if s.negative > 0 else None)
    matrix("syn1", syn1, max(1, vocab_size - 1) if s.hs else None)
    t = tables
    table("keep_threshold", t.keep_threshold, np.int64, vocab_size)
    table("noise_table", t.noise_table, np.uint64, vocab_size if s.negative > 0 else None)
    if s.negative > 0:
        # alias entries: the high 32 bits of every packed entry is a word id
        need(int((t.noise_table >> np.uint64(32)).max()) < vocab_size,
             "noise table names a word outside the vocabulary")
    table("hs_codes", t.hs_codes, np.int8, vocab_size if s.hs else None)
    table("hs_points", t.hs_points, np.int32, None)
    need(t.hs_points.shape == t.hs_codes.shape, "Huffman points and codes differ in shape")
    table("hs_lengths", t.hs_lengths, np.int32, t.hs_codes.shape[0])
    if s.hs:
        need(0 <= int(t.hs_lengths.min()) and int(t.hs_lengths.max()) <= t.hs_codes.shape[1],
             "Huffman code lengths outside the code table")
        need(0 <= int(t.hs_points.min()) and int(t.hs_points.max()) < syn1.shape[0],
             "Huffman tree names an inner node outside syn1")


def kernel_params(settings):
    """The hyper-parameters :func:`train_tokens` takes, from a :class:`w2v.settings.Settings`."""
    s = settings
    return dict(sg=s.sg, cbow_mean=s.cbow_mean, window=s.window, negative=s.negative, hs=s.hs,
                shared=not s.exact, alpha=s.alpha, min_alpha=s.min_alpha,
                max_sentence_length=s.max_sentence_length)


def no_replica_args(syn0, syn1neg):
    """:func:`train_tokens`' replica arguments for a worker without one."""
    return syn0[:0], syn1neg[:0], syn0[:0], syn1neg[:0], np.zeros(4, np.int64), np.zeros(2, np.int64)


def kernel_args(settings, syn0, syn1neg, syn1, tables, lr_scale=1.0, replica=None):
    """The arguments of :func:`train_tokens` that stay fixed over a run.

    Their Python types pick the compiled kernel, so every caller (the
    threads, the kernel preload, the Dask workers) builds them here.
    ``settings`` is a :class:`w2v.settings.Settings` or a
    :func:`kernel_params` dict; ``lr_scale`` multiplies both learning rates;
    ``replica`` (a :class:`w2v.training.hogwild.Replica`) gives the worker's copies of the first rows.
    """
    p = settings if isinstance(settings, dict) else kernel_params(settings)
    return (syn0, syn1neg, syn1, tables.keep_threshold, tables.noise_table,
            tables.hs_codes, tables.hs_points, tables.hs_lengths, bool(p["sg"]), bool(p["cbow_mean"]),
            int(p["window"]), int(p["negative"]), bool(p["hs"]), bool(p["shared"]),
            float(p["alpha"] * lr_scale), float(p["min_alpha"] * lr_scale), int(p["max_sentence_length"]),
            *(no_replica_args(syn0, syn1neg) if replica is None else replica.kernel_args()))


def load_kernel(args, rng_state=None, stats=None):
    """Call :func:`train_tokens` on no ids, so Numba loads (or compiles) it now; return seconds.

    Loading the cached machine code takes about a second; doing it here keeps
    it out of the training time, and :func:`start_kernel_load` does it while
    the vocabulary is built.  Nothing is trained and the random state is
    left as it is.
    """
    t0 = time.perf_counter()
    state = np.zeros(1, np.uint64) if rng_state is None else rng_state
    st = np.zeros(8, np.float64) if stats is None else stats
    train_tokens(np.zeros(0, np.int32), 0, 1, *args, state, st)
    return time.perf_counter() - t0


def start_kernel_load(settings, then=None):
    """Load the training kernel in a background thread (overlapping the vocabulary pass).

    Uses one-row stand-ins of the run's arrays with the same types, so the
    real call finds the kernel loaded; ``then()``, if given, runs next in the
    same thread (other kernels to load).  Returns the thread (join it).
    """
    f = np.zeros((1, settings.dim), np.float32)
    tables = Tables(np.zeros(1, np.int64), np.full(1, 1 << 32, np.int64), np.zeros(1, np.int32),
                    np.zeros((1, 1), np.int8), np.zeros((1, 1), np.int32), np.zeros(1, np.int32))

    def run():
        try:
            load_kernel(kernel_args(settings, f, f.copy(), f.copy(), tables))
            if then is not None:
                then()
        except Exception:   # pragma: no cover - the real calls report it
            pass

    t = threading.Thread(target=run, daemon=True, name="w2v-kernel-load")
    t.start()
    return t
