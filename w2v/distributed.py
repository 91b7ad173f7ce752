"""Data-parallel training on a Dask distributed cluster (``pip install 'w2v[dist]'``).

Dask schedules the work, moves the data and survives worker loss; this
module supplies the training rounds.  ``import w2v`` never imports this
module, and ``dask`` is imported only by the functions that talk to a cluster.

1. **Shards** (:mod:`w2v.shards`): every file is cut into byte ranges at
   whitespace (compressed files stay whole).  The shards are grouped into
   one contiguous *lane* per worker, balanced by bytes; a lane's tasks are
   pinned (loosely: another worker may take over) to its worker, so shards
   are read where the workers are and the paths must be visible to them.
2. **Vocabulary**: each shard is tokenized once by a task, which keeps its
   provisional id stream in the worker's memory and yields ``(words,
   counts)``; these are merged pairwise by tasks (a tree reduction, in
   corpus order, so first-occurrence order and counts equal a single pass).
   The driver builds the vocabulary and the sampling tables once; every
   shard is then encoded to final ids where it lies (the vocabulary index is
   itself a task, so a lost shard is rebuilt from its lineage).
3. **Rounds**: every worker keeps a replica of the global weights.  In a
   round, each lane's task trains Hogwild (with its worker's thread count)
   on the lane's next slice of ``round_words`` tokens, from the replica, at
   the learning rate of the global schedule (position in the whole run),
   and returns only the rows it changed, as indices + deltas (int16 with a
   float32 scale per row, half the bytes of float32).  A merge task (on
   lane 0's worker) merges them (see :func:`merge_updates`) into one update
   (indices + quantized rows); the next round's tasks, submitted while this
   round runs, start from it as soon as it exists, so the driver is not on
   the path from one round to the next.  Every replica, and the driver
   (which fetches the update while the next round trains), adds it with the
   same function (:func:`apply_update`), so all stay bit-for-bit equal.  A
   lane with no tokens in a round (fewer ids than rounds) still gets a task
   that only applies the update, so its replica stays current.
4. **Faults**: a task whose worker dies is rescheduled by Dask (and
   ``retries`` covers exceptions); a shard lost with its worker is
   recomputed from lineage.  A task that lands on a worker without an
   up-to-date replica answers "stale"; the round's merge task then reports
   the round "incomplete", the driver cancels the next round (already
   submitted), resubmits the stale or failed lanes with the full weights
   (its own copy, which is exact up to the previous round) and merges
   again.  If the scheduler goes away, :class:`DistributedError` is raised
   (the checkpoints written by ``on_epoch_end`` stay as they are).

Merging (``merge``):

``"mean"`` (default)
    Every worker trains with the learning rate multiplied by the number of
    workers ``W`` in the round; the merged delta of a row is the mean over
    the ``W`` workers (a worker that did not touch the row counts as a zero
    delta), i.e. the per-row average over the workers that touched it
    (Spark MLlib's correction) weighted by the fraction of workers that
    touched it.  To first order the update of a round equals the sum of
    the workers' updates at the unscaled learning rate (what one process
    would apply to the same words); where the workers' updates saturate
    (frequent rows that every worker moves to the same place) it is their
    average, so vectors do not blow up as summed deltas do.
``"touched"``
    Spark MLlib's rule as is: the mean over the workers that touched the
    row, learning rate not scaled.  Stable, but rows that every worker
    touches learn ``W`` times more slowly (lower quality at equal epochs).
"""
import contextlib
import logging
import math
import os
import threading
import time
import uuid

import numpy as np
from numba import njit

from .errors import CorpusError, ParameterError, VocabularyError, W2VError

DEFAULT_ROUND_WORDS = 1_000_000   # tokens each worker trains between two synchronizations
MERGES = ("mean", "touched")
INSTALL_HINT = "pip install 'w2v[dist]'"
_MAX_FALLBACKS = 3                # full-state resubmissions per lane and round before giving up
_RUNNING = ("running", "newly-created")


class DistributedError(W2VError):
    """The Dask cluster cannot be used (dask missing, scheduler unreachable or lost, task failures)."""


def require_distributed():
    """Import ``distributed`` or raise :class:`DistributedError` with the install hint."""
    try:
        import distributed
    except ImportError:
        raise DistributedError(f"distributed training needs dask[distributed]: {INSTALL_HINT}") from None
    return distributed


@contextlib.contextmanager
def dask_client(scheduler=None, n_workers=None, threads_per_worker=1, connect_timeout=10):
    """A Dask client on an existing scheduler, or on a ``LocalCluster`` started and stopped here.

    Parameters
    ----------
    scheduler : str, optional
        Scheduler address, e.g. ``tcp://host:8786``.
    n_workers : int, optional
        Without ``scheduler``: worker processes of the local cluster (default 2).
    threads_per_worker : int
        Threads of each local worker process.
    connect_timeout : float
        Seconds to wait for the scheduler.

    Raises
    ------
    DistributedError
        dask is not installed, the scheduler cannot be reached, or the local
        cluster cannot start.
    """
    distributed = require_distributed()
    cluster = None
    try:
        if scheduler:
            try:
                # a malformed address fails here, before a Client exists: a Client whose
                # constructor failed still waits 20 s in its finalizer and prints a traceback
                distributed.comm.resolve_address(scheduler)
                client = distributed.Client(scheduler, timeout=connect_timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise DistributedError(f"cannot reach the Dask scheduler at {scheduler}: "
                                       f"{' '.join(str(exc).split())}") from None
        else:
            # CRITICAL: the workers would log, with a traceback, each error that the client
            # raises anyway (a corrupt corpus file: once per retry).  Dashboard ":0" (any free
            # port): with None the scheduler's HTTP server still takes 8787, and warns if it is taken
            cluster = _start_local_cluster(distributed, n_workers, threads_per_worker)
            client = distributed.Client(cluster, set_as_default=False)
    except DistributedError:
        raise
    except BaseException as exc:
        # Ctrl-C while the cluster starts, too: closed here, quietly (left to distributed's
        # atexit hook, its close fails on workers still starting and prints a traceback)
        if cluster is not None:
            _close_quietly(cluster)
        if not isinstance(exc, Exception):
            raise
        raise DistributedError(f"cannot start a local Dask cluster: {exc}") from None  # pragma: no cover
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=10)


def _start_local_cluster(distributed, n_workers, threads_per_worker):
    """A ``LocalCluster``; one interrupted (or failed) while it starts is closed before the error goes on."""
    try:
        from distributed.deploy.spec import SpecCluster
        before = set(SpecCluster._instances)
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another distributed
        SpecCluster, before = None, None
    try:
        # preload: each worker process runs dask_setup below as it starts
        return distributed.LocalCluster(n_workers=int(n_workers or 2),
                                        threads_per_worker=int(threads_per_worker or 1),
                                        processes=True, dashboard_address=":0",
                                        silence_logs=logging.CRITICAL, preload=[__name__])
    except BaseException:
        if before is not None:
            for half in set(SpecCluster._instances) - before:
                _close_quietly(half)
        raise


def dask_setup(worker):
    """Preload hook of the local cluster's worker processes (:func:`_start_local_cluster`): ignore SIGINT.

    A terminal's Ctrl-C signals its whole foreground process group: the
    local cluster's worker processes got it too, and each printed a
    ``KeyboardInterrupt`` traceback under the CLI's "interrupted", while the
    driver (which gets it as well) stops and closes the cluster anyway.  The
    driver alone decides; the workers end when it closes the cluster.
    """
    import signal

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _close_quietly(cluster):
    # a cluster whose workers are still starting fails its own close (an assertion on their
    # status): closed here as far as it goes, and taken off distributed's atexit list.  A
    # worker being spawned at that moment fails its start ("Nanny failed to start"), a task
    # nobody awaits any more, which asyncio reported as a 40-line "Task exception was never
    # retrieved" when it was collected (about 1 run in 25 under load): the abandoned
    # cluster's loop drops such reports
    with contextlib.suppress(Exception):
        cluster.loop.asyncio_loop.set_exception_handler(lambda loop, context: None)
    with contextlib.suppress(BaseException):
        cluster.close(timeout=5)
    with contextlib.suppress(Exception):
        cluster.shutdown_on_close = False
        type(cluster)._instances.discard(cluster)


# =========================================================================== array kernels
# Rows travel as block floating point: one float32 scale per row and the row's
# entries as int16 multiples of it (``row ~= q * scale``, scale = max|row| / 32767),
# half the bytes of float32 with a relative error below 2e-5 of the row's
# largest entry.  Workers send their deltas so; the round's merge task merges
# them and quantizes the merged delta once more, and the driver and every
# replica add *those* quantized rows with the same function (no fastmath: the
# float32 operations are identical), so the replicas stay bit-for-bit equal to
# the driver's weights without the new values being sent.
Q_MAX = np.float32(32767.0)


@njit(cache=True, nogil=True)
def quantize_rows(rows):
    """``rows`` (float32, n x dim) as ``(q int16, scale float32)`` with ``rows ~= q * scale[:, None]``."""
    n, dim = rows.shape
    q = np.empty((n, dim), np.int16)
    scale = np.empty(n, np.float32)
    for k in range(n):
        m = np.float32(0.0)
        for d in range(dim):
            m = max(m, abs(rows[k, d]))
        s = m / Q_MAX
        scale[k] = s
        inv = np.float32(1.0) / s if s > 0 else np.float32(0.0)
        for d in range(dim):
            q[k, d] = np.int16(round(rows[k, d] * inv))
    return q, scale


@njit(cache=True, nogil=True)
def add_quantized_rows(w, idx, q, scale):
    """``w[idx[k]] += q[k] * scale[k]`` (indices distinct); the one way replicas and driver apply updates."""
    dim = w.shape[1]
    for k in range(idx.size):
        i = idx[k]
        s = scale[k]
        for d in range(dim):
            w[i, d] += np.float32(q[k, d]) * s


@njit(cache=True, nogil=True)
def changed_rows(work, base):
    """Rows where ``work`` differs from ``base``: ``(indices int32, q, scale)`` of ``work - base`` on them."""
    v, dim = work.shape
    idx = np.empty(v, np.int32)
    n = 0
    for i in range(v):
        for d in range(dim):
            if work[i, d] != base[i, d]:
                idx[n] = i
                n += 1
                break
    deltas = np.empty((n, dim), np.float32)
    for k in range(n):
        i = idx[k]
        for d in range(dim):
            deltas[k, d] = work[i, d] - base[i, d]
    q, scale = quantize_rows(deltas)
    return idx[:n].copy(), q, scale


@njit(cache=True, nogil=True)
def _merge_matrix(v, dim, idx, q, scale, n_parts, by_touched):
    # idx/q/scale: every part's rows one after the other (a row at most once per part);
    # v x dim: the matrix's shape.  Returns the merged rows, quantized as they are applied.
    count = np.zeros(v, np.int32)
    for k in range(idx.size):
        count[idx[k]] += 1
    slot = np.full(v, -1, np.int64)
    nu = 0
    for i in range(v):
        if count[i] > 0:
            slot[i] = nu
            nu += 1
    union = np.empty(nu, np.int32)
    for i in range(v):
        if slot[i] >= 0:
            union[slot[i]] = i
    acc = np.zeros((nu, dim), np.float32)
    for k in range(idx.size):
        u = slot[idx[k]]
        s = scale[k]
        for d in range(dim):
            acc[u, d] += np.float32(q[k, d]) * s
    for u in range(nu):
        inv = np.float32(1.0) / np.float32(count[union[u]] if by_touched else n_parts)
        for d in range(dim):
            acc[u, d] *= inv
    mq, ms = quantize_rows(acc)
    return union, mq, ms


def apply_update(weights, update):
    """Add a merged update (:func:`merge_updates`) to ``weights`` in place.

    The driver and every replica apply updates with this one function, so
    they stay bit-for-bit equal.
    """
    for w, (idx, q, scale) in zip(weights, update):
        if idx.size:
            # the kernel has no bounds checks: indices, rows and scales must fit the weights
            ok = (isinstance(w, np.ndarray) and w.ndim == 2 and w.dtype == np.float32 and w.flags.c_contiguous
                  and idx.ndim == 1 and idx.dtype == np.int32 and q.dtype == np.int16
                  and q.shape == (idx.size, w.shape[1]) and scale.dtype == np.float32
                  and scale.shape == (idx.size,) and int(idx.min()) >= 0 and int(idx.max()) < w.shape[0])
            if not ok:
                raise DistributedError("an update does not fit the weights (indices, rows or scales)")
            add_quantized_rows(w, idx, q, scale)


def merge_round(weights, parts, merge="mean"):
    """Merge the changed rows of one round into ``weights`` (in place).

    :func:`merge_updates` then :func:`apply_update`.

    Returns
    -------
    update : list of (indices, q, scales)
        Per matrix, the merged delta as it was added to ``weights``.
    """
    update = merge_updates([w.shape for w in weights], parts, merge)
    apply_update(weights, update)
    return update


def merge_updates(shapes, parts, merge="mean"):
    """Merge the changed rows that the workers returned for one round.

    Parameters
    ----------
    shapes : list of (int, int)
        Shapes of the global matrices (``syn0``, ``syn1neg``, ``syn1``).
    parts : list of (list of indices, list of q, list of scales)
        Per worker, per matrix: the rows it changed and the quantized deltas
        (as :func:`changed_rows` returns them).
    merge : {"mean", "touched"}
        ``mean``: divide every delta by the number of workers (they trained
        at ``W`` times the learning rate); ``touched``: divide by the number
        of workers that changed the row.

    Returns
    -------
    update : list of (indices, q, scales)
        Per matrix, the merged delta, quantized (what :func:`apply_update` adds).
    """
    if merge not in MERGES:
        raise ParameterError(f"merge must be one of {', '.join(MERGES)} (got {merge!r})")
    update = []
    for m, (v, dim) in enumerate(shapes):
        # every worker's rows of matrix m one after the other: indices, int16 rows, scales
        idx, q, scale = (np.concatenate([np.empty((0,) + shape, dtype)]
                                        + [np.asarray(p[k][m], dtype).reshape((-1,) + shape) for p in parts])
                         for k, dtype, shape in ((0, np.int32, ()), (1, np.int16, (dim,)),
                                                 (2, np.float32, ())))
        if idx.size and (idx.min() < 0 or idx.max() >= v):
            raise DistributedError("a worker returned a row index outside the weights")
        if q.shape[0] != idx.size or scale.size != idx.size:
            raise DistributedError(f"a worker returned {idx.size} row indices with {q.shape[0]} rows "
                                   f"and {scale.size} scales")
        update.append(_merge_matrix(v, dim, idx, q, scale, max(1, len(parts)), merge == "touched"))
    return update


# =========================================================================== worker side
_RUNS = {}                      # run id -> _Replica, in each worker process
_RUNS_LOCK = threading.Lock()


class _Replica:
    """A worker's copy of the global weights at ``version`` and the run's read-only setup."""

    def __init__(self, setup, weights, version):
        # writable copies: arrays deserialized by Dask can be read-only, which
        # Numba types (and compiles) differently from the driver's arrays
        t = setup["tables"]
        tables = type(t)(*(np.array(a, copy=True) for a in (
            t.keep_threshold, t.noise_threshold, t.noise_alias, t.hs_codes, t.hs_points, t.hs_lengths)))
        self.setup = {**setup, "tables": tables}
        self.weights = [np.array(w, dtype=np.float32, copy=True) for w in weights]
        self.version = version
        self.lock = threading.Lock()
        self.scratch = {}

    def work_copy(self):
        """The calling thread's scratch matrices, reset to the replica."""
        key = threading.get_ident()
        with self.lock:
            bufs = self.scratch.get(key)
            if bufs is None:
                bufs = [np.empty_like(w) for w in self.weights]
                self.scratch[key] = bufs
        for b, w in zip(bufs, self.weights):
            np.copyto(b, w)
        return bufs


def _replica_for(run_id, version, base):
    """This worker's replica of ``run_id`` brought to ``version``, or None if it cannot be."""
    kind, payload = base
    with _RUNS_LOCK:
        rep = _RUNS.get(run_id)
        if kind == "full":
            if rep is None or rep.version != version:
                rep = _Replica(payload["setup"], payload["weights"], payload["version"])
                _RUNS[run_id] = rep
            return rep
        if rep is None:
            return None
        # kind "update": the previous round's merge task (a round that failed somewhere
        # is "incomplete" and brings no replica forward)
        if rep.version == version - 1 and payload["status"] == "ok" and payload["version"] == version:
            apply_update(rep.weights, payload["rows"])
            rep.version = version
        return rep if rep.version == version else None


def _forget_run(run_id):
    with _RUNS_LOCK:
        _RUNS.pop(run_id, None)
    return True


def _worker_threads():
    try:
        from distributed import get_worker
        w = get_worker()
        return max(1, int(getattr(getattr(w, "state", w), "nthreads", 1)))
    except Exception:
        return 1


def _train_slice(tokens, work, setup, sched, threads):
    """Hogwild over ``tokens`` with ``threads`` threads; returns ``[loss, examples, kept, seen]``."""
    from .kernels.cpu import train_tokens
    from .run import seed_states
    from .train import kernel_args

    t = setup["tables"]
    p = setup["params"]
    threads = max(1, min(threads, tokens.size // 10000 or 1))
    cuts = [tokens.size * i // threads for i in range(threads + 1)]
    rng = seed_states(hash((p["seed"],) + tuple(sched["round"]) + (sched["lane"],)) & 0x7FFFFFFFFFFFFFFF,
                      threads)
    stats = np.zeros((threads, 8), np.float64)
    syn0, syn1neg, syn1 = work
    lr = sched["lr_scale"]

    def run(i):
        sub = tokens[cuts[i]:cuts[i + 1]]
        if sub.size == 0:
            return
        # the cluster advances round_total tokens while this thread trains sub.size of them:
        # scaled positions make the learning rate follow the run's global schedule
        m = sched["round_total"] / sub.size
        pos0 = int(round(sched["position"] / m))
        total = max(1, int(round(sched["total"] / m)))
        # kernel_args: the same argument types as the kernel loaded by _start_kernel_load
        train_tokens(sub, pos0, total, *kernel_args(p, syn0, syn1neg, syn1, t, lr_scale=lr), rng[i], stats[i])

    if threads == 1:
        run(0)
    else:
        errors = []

        def guarded(i):
            try:
                run(i)
            except BaseException as exc:  # pragma: no cover - surfaced below
                errors.append(exc)

        pool = [threading.Thread(target=guarded, args=(i,), daemon=True) for i in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
        if errors:
            raise errors[0]
    return stats.sum(axis=0)[:4]


def _round_task(run_id, version, base, shards, pieces, sched):
    """Train one lane's slice of one round; return the changed rows and statistics.

    ``shards`` are the encoded shards the slice reads (resolved by Dask),
    ``pieces`` its ``(index in shards, start, stop)`` ranges.
    """
    t0, wall0 = time.perf_counter(), time.time()
    rep = _replica_for(run_id, version, base)
    if rep is None:
        return {"status": "stale", "lane": sched["lane"]}
    tokens = np.concatenate([shards[k][a:b] for k, a, b in pieces])   # a writable copy
    threads = _worker_threads()
    work = rep.work_copy()
    t1 = time.perf_counter()
    stats = _train_slice(tokens, work, rep.setup, sched, threads)
    t2 = time.perf_counter()
    idx, q, scale = [], [], []
    for w, b in zip(work, rep.weights):
        i, dq, ds = changed_rows(w, b)
        idx.append(i)
        q.append(dq)
        scale.append(ds)
    nbytes = sum(a.nbytes for part in (idx, q, scale) for a in part)
    return {"status": "ok", "lane": sched["lane"], "idx": idx, "q": q, "scale": scale, "stats": stats,
            "tokens": int(tokens.size), "threads": threads, "nbytes": nbytes,
            "train_seconds": t2 - t1, "seconds": time.perf_counter() - t0,
            "wall": (wall0, time.time())}


def _sync_task(run_id, version, base, lane):
    """Bring this worker's replica to ``version`` for a lane with no tokens in the round.

    A lane whose slice of a round is empty (a lane with fewer ids than rounds)
    trains nothing, but its worker still applies the previous round's update,
    so that its next training task finds the replica current instead of
    answering "stale" and being resent the full weights.
    """
    t0, wall0 = time.perf_counter(), time.time()
    if _replica_for(run_id, version, base) is None:
        return {"status": "stale", "lane": lane}
    return {"status": "ok", "lane": lane, "sync": True, "stats": np.zeros(4), "tokens": 0, "threads": 0,
            "nbytes": 0, "train_seconds": 0.0, "seconds": time.perf_counter() - t0, "wall": (wall0, time.time())}


def _merge_round_task(parts, shapes, merge, version):
    """Merge one round's lane results (in lane order) into the update that brings replicas to ``version``.

    Runs on a worker, so that the next round's tasks start from its result
    without a trip through the driver.  A round where a lane answered
    "stale" is "incomplete": the driver resubmits those lanes.  The lanes'
    statistics travel with the result (the driver fetches nothing else).
    The results of :func:`_sync_task` (lanes that trained nothing) are
    waited for, so that every replica moves on together, and not merged.
    """
    t0 = time.perf_counter()
    lanes = [{k: v for k, v in p.items() if k not in ("idx", "q", "scale")} for p in parts]
    if any(p["status"] != "ok" for p in parts):
        return {"status": "incomplete", "version": version, "lanes": lanes}
    update = merge_updates(shapes, [(p["idx"], p["q"], p["scale"]) for p in parts if not p.get("sync")],
                           merge)
    return {"status": "ok", "version": version, "rows": update, "lanes": lanes,
            "seconds": time.perf_counter() - t0, "wall_end": time.time()}


def _load_round_kernels(dim, merge=True):
    # the first call of a cached Numba function loads its machine code (0.1-1 s each);
    # done on stand-ins with the real types, so the first round does not wait for it.
    # Workers train, merge and apply; the driver only applies (merge=False).
    w = np.zeros((2, dim), np.float32)
    idx, q, scale = changed_rows(w, w.copy())
    add_quantized_rows(w, idx, q, scale)
    if merge:
        _merge_matrix(2, dim, idx, q, scale, 1, False)


def _start_kernel_load(settings):
    # run by client.run on every worker: load the training and round kernels in a thread
    # of the worker process while the shards are scanned (as the single-process trainer
    # loads its kernel while it reads the corpus)
    from .train import start_kernel_load
    start_kernel_load(settings, then=lambda: _load_round_kernels(settings.dim))
    return True


def _scan_task(shard, tokenizer, lowercase):
    from .shards import scan_shard
    return scan_shard(shard, tokenizer, lowercase)


def _counts_task(scan):
    return scan.words, scan.counts


def _replaced_bytes(scan):
    """A shard's words that hold U+FFFD, their counts, and its replaced byte sequences."""
    bad = [i for i, w in enumerate(scan.words) if "\ufffd" in w]
    return [scan.words[i] for i in bad], [int(scan.counts[i]) for i in bad], int(scan.replaced)


def _merge_replaced(parts):
    """:func:`_replaced_bytes` of every shard as ``(words, counts, sequences)`` for
    :func:`w2v.corpus.warn_replaced_bytes` (words in first-occurrence order)."""
    total = {}
    for words, counts, _ in parts:
        for w, c in zip(words, counts):
            total[w] = total.get(w, 0) + c
    return list(total), list(total.values()), sum(p[2] for p in parts)


def _merge_task(a, b):
    from .shards import merge_counts
    return merge_counts(a, b)


def _vocab_index_task(merged, min_count, max_vocab_size):
    from .vocab import build_vocab
    vocab, _ = build_vocab(merged[0], merged[1], min_count, max_vocab_size)
    return vocab.index


def _index_task(words):
    return {w: i for i, w in enumerate(words)}


def _encode_task(scan, vocab_index):
    from .shards import encode_ids
    return encode_ids(scan.ids, scan.words, vocab_index)


def _shape_task(ids, scan):
    """An encoded shard's length, in-vocabulary words and raw tokens, and its :func:`_replaced_bytes`."""
    return int(ids.size), int(np.count_nonzero(ids >= 0)), int(scan.n_tokens), _replaced_bytes(scan)


# =========================================================================== driver side
def _tree_reduce(client, futures, func, **submit):
    """Pairwise reduction of ``futures`` in order, by tasks (``func(left, right)``)."""
    level = list(futures)
    while len(level) > 1:
        nxt = [client.submit(func, level[i], level[i + 1], pure=False, **submit)
               for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def split_lanes(sizes, n_lanes):
    """Contiguous groups of shards balanced by size: ``[(first, stop), ...]``, none empty."""
    n = len(sizes)
    n_lanes = max(1, min(n_lanes, n))
    cum = np.concatenate([[0.0], np.cumsum(np.maximum(np.asarray(sizes, np.float64), 1.0))])
    bounds = [0]
    for k in range(1, n_lanes):
        target = cum[-1] * k / n_lanes
        b = int(np.searchsorted(cum, target))
        if b > 0 and abs(cum[b - 1] - target) < abs(cum[b] - target):
            b -= 1
        b = min(max(b, bounds[-1] + 1), n - (n_lanes - k))
        bounds.append(b)
    bounds.append(n)
    return list(zip(bounds[:-1], bounds[1:]))


def slice_pieces(lengths, lo, hi):
    """``(shard index in lane, start, stop)`` ranges covering lane tokens ``[lo, hi)``."""
    pieces = []
    off = 0
    for k, n in enumerate(lengths):
        a, b = max(lo, off), min(hi, off + n)
        if a < b:
            pieces.append((k, a - off, b - off))
        off += n
    return pieces


class _Cancelled(DistributedError):
    """Dask cancelled tasks while the scheduler is there (their inputs were lost with workers)."""

    @classmethod
    def because(cls, exc):
        return cls(f"Dask cancelled the training tasks ({' '.join(str(exc).split())})")


class _Cluster:
    """The driver's view of the client: waits on futures, turns a lost scheduler into one error."""

    def __init__(self, client):
        self.client = client
        try:
            self.where = f" at {client.scheduler.address}"
        except Exception:
            self.where = ""

    def lost(self, exc=None):
        detail = " ".join(str(exc).split()) if exc is not None else ""
        return DistributedError(f"lost the connection to the Dask scheduler{self.where}"
                                + (f" ({detail})" if detail else ""))

    def alive(self):
        return self.client.status in _RUNNING

    def wait(self, futures, no_worker_timeout=120.0):
        from distributed import wait
        checked = time.monotonic()
        alone_since = None
        while True:
            if not self.alive():
                raise self.lost()
            if time.monotonic() - checked > 5.0:   # tasks cannot finish without workers
                checked = time.monotonic()
                if self.call(self.client.nthreads):
                    alone_since = None
                    self.reschedule_unrunnable()   # a worker joined after the cluster had none
                elif alone_since is None:
                    alone_since = checked
                elif checked - alone_since > no_worker_timeout:
                    raise self.no_worker(no_worker_timeout)
            try:
                with self.client.as_current():   # the client need not be the default one
                    wait(futures, timeout=0.5)
                return
            except TimeoutError:
                continue
            except Exception as exc:   # futures cancelled: the scheduler went away (or cancelled them)
                if not self.alive() or "connection" in str(exc):
                    raise self.lost() from None
                raise _Cancelled.because(exc) from None

    def no_worker(self, seconds):
        return DistributedError(f"no Dask worker left{self.where} for {seconds:.0f}s")

    def wait_for_worker(self, timeout=120.0):
        """Return once the cluster has a worker; :class:`DistributedError` after ``timeout`` s without."""
        deadline = time.monotonic() + timeout
        while not self.call(self.client.nthreads):
            if not self.alive():
                raise self.lost()
            if time.monotonic() > deadline:
                raise self.no_worker(timeout)
            time.sleep(0.5)

    def reschedule_unrunnable(self):
        """Start the tasks that waited for a worker while the cluster had none.

        A lane's tasks prefer its worker but may run elsewhere (loose
        restrictions); the scheduler leaves such a task waiting when no worker
        at all is there, and a worker that joins later takes only the tasks
        restricted to it.  The shards the lost workers held are rebuilt by
        such tasks, so they are sent to the workers there now.
        """
        pinned = _PINNED_TASKS

        def reschedule(dask_scheduler):
            # defined here, so that it travels by value: the scheduler need not have w2v installed.
            # Tasks of this run parked in "no-worker" with loose restrictions go to "processing",
            # which gives them to any running worker
            if not dask_scheduler.running:
                return 0
            recs = {ts.key: "processing" for ts in list(dask_scheduler.unrunnable)
                    if ts.loose_restrictions and str(ts.key).split("-")[0] in pinned}
            if recs:
                dask_scheduler.transitions(recs, stimulus_id="w2v-reschedule-" + uuid.uuid4().hex)
            return len(recs)

        with contextlib.suppress(Exception):   # best effort: scheduler internals
            self.call(self.client.run_on_scheduler, reschedule)

    def call(self, func, *args, **kwargs):
        """A client call; a communication failure becomes :class:`DistributedError`."""
        try:
            return func(*args, **kwargs)
        except (DistributedError, W2VError):
            raise
        except Exception as exc:
            from concurrent.futures import CancelledError
            if isinstance(exc, CancelledError) and self.alive():
                raise _Cancelled.because(exc) from None
            if _is_comm_error(exc) or not self.alive():
                raise self.lost(exc) from None
            raise

    def scatter(self, obj, broadcast=False):
        # a list: scattering a dict would scatter its values under its keys
        return self.call(self.client.scatter, [obj], broadcast=broadcast, hash=False)[0]


_PINNED_TASKS = {"_scan_task", "_counts_task", "_encode_task", "_shape_task", "_round_task", "_merge_round_task"}


def _is_comm_error(exc):
    from concurrent.futures import CancelledError
    try:
        from distributed.comm.core import CommClosedError
    except ImportError:  # pragma: no cover
        CommClosedError = OSError
    return isinstance(exc, (CommClosedError, OSError, ConnectionError, CancelledError, TimeoutError))


def _scheduler_workers(cluster):
    client = cluster.client
    cluster.call(client.wait_for_workers, 1, timeout=60)
    try:
        info = cluster.call(client.scheduler_info, n_workers=-1)
    except TypeError:  # older distributed
        info = cluster.call(client.scheduler_info)
    return sorted(info["workers"])


def count_corpus(client, corpus, tokenizer="whitespace", lowercase=False, shard_bytes=None, retries=2):
    """Words of the corpus in first-occurrence order and their counts, counted by the workers.

    The same as :func:`w2v.corpus.scan_corpus`'s ``words`` and ``counts``
    (shards counted where they lie, merged by a tree of tasks).

    Returns
    -------
    words : list of str
    counts : numpy.ndarray of int64
    """
    require_distributed()
    from .shards import DEFAULT_SHARD_BYTES, plan_shards

    cluster = _Cluster(client)
    workers = _scheduler_workers(cluster)
    if isinstance(corpus, (str, os.PathLike)):
        corpus = [corpus]
    shards = plan_shards([os.path.abspath(os.fspath(p)) for p in corpus], shard_bytes or DEFAULT_SHARD_BYTES,
                         min_shards=2 * len(workers))
    scans = [cluster.call(client.submit, _scan_task, sh, tokenizer, lowercase, pure=False, retries=retries)
             for sh in shards]
    counts = [cluster.call(client.submit, _counts_task, f, pure=False, retries=retries) for f in scans]
    merged = _tree_reduce(client, counts, _merge_task, retries=retries)
    cluster.wait([merged])
    return cluster.call(merged.result)


def train_distributed(model, corpus, client, quiet=True, progress_stream=None, on_epoch_end=None,
                      round_words=None, merge="mean", shard_bytes=None, retries=2, _round_hook=None):
    """Train ``model`` on a Dask cluster (see the module docstring).

    A model without a vocabulary gets one from the corpus (counted by the
    workers); a model that has one (loaded, or a checkpoint) keeps it and its
    weights, and an unfinished run over a corpus of the same encoded length
    continues with its remaining epochs, as :meth:`w2v.model.Word2Vec.train`.

    Parameters
    ----------
    model : w2v.model.Word2Vec
    corpus : str or list of str
        Files or directories, readable by the workers at the same paths
        (made absolute here).  Standard input cannot be used.
    client : distributed.Client
    quiet : bool
        No progress on stderr.
    on_epoch_end : callable, optional
        ``on_epoch_end(epoch)`` after each epoch, weights merged
        (``model.run_state["epochs_done"] == epoch + 1``), e.g. to save a checkpoint.
    round_words : int, optional
        Tokens each worker trains per round (default :data:`DEFAULT_ROUND_WORDS`).
    merge : {"mean", "touched"}
        How the workers' rows are merged (see the module docstring).
    shard_bytes : int, optional
        Largest shard of a plain file (default 64 MiB, finer to give every worker a lane).
    retries : int
        Dask retries of a task that raised.

    Returns
    -------
    Word2Vec
        ``model``; ``model.last_train`` holds the per-epoch loss, counts,
        timings and a ``distributed`` dict (workers, rounds, bytes per round...).

    Raises
    ------
    DistributedError
        The scheduler went away, or tasks kept failing.
    """
    require_distributed()
    from .shards import DEFAULT_SHARD_BYTES, plan_shards
    from .corpus import warn_replaced_bytes
    from .progress import Progress
    from .run import begin_run, show_remaining
    from .train import check_kernel_inputs, kernel_params
    from .vocab import build_vocab

    if corpus is None:
        raise VocabularyError("distributed training needs the corpus paths: train(corpus, client=...)")
    if merge not in MERGES:
        raise ParameterError(f"merge must be one of {', '.join(MERGES)} (got {merge!r})")
    round_words = DEFAULT_ROUND_WORDS if round_words is None else int(round_words)
    if round_words < 1:
        raise ParameterError("round_words must be >= 1")
    if isinstance(corpus, (str, os.PathLike)):
        corpus = [corpus]
    corpus = [p if p == "-" else os.path.abspath(p) for p in map(os.fspath, corpus)]
    s = model.settings
    cluster = _Cluster(client)
    reporter = Progress(1, s, stream=progress_stream, quiet=quiet)
    run_id = uuid.uuid4().hex
    t0 = time.perf_counter()
    held = []
    try:
        workers = _scheduler_workers(cluster)
        n_workers = len(workers)
        cluster.call(client.run, _start_kernel_load, s)
        apply_loader = threading.Thread(target=_load_round_kernels, args=(s.dim, False), daemon=True)
        apply_loader.start()

        # ------------------------------------------------------------ shards, vocabulary, encoding
        shards = plan_shards(corpus, shard_bytes or DEFAULT_SHARD_BYTES, min_shards=2 * n_workers)
        corpus_files = list(dict.fromkeys(sh.path for sh in shards))
        lanes = split_lanes([sh.size for sh in shards], n_workers)
        lane_of = {i: k for k, (a, b) in enumerate(lanes) for i in range(a, b)}
        pin = {k: dict(workers=[workers[k]], allow_other_workers=True) for k in range(len(lanes))}

        def submit(func, *args, lane=None, **kw):
            return cluster.call(client.submit, func, *args, pure=False, retries=retries,
                                **(pin[lane] if lane is not None else {}), **kw)

        scans = [submit(_scan_task, sh, s.tokenizer, s.lowercase, lane=lane_of[i])
                 for i, sh in enumerate(shards)]
        fresh = model.vocab is None
        if fresh:
            counts = [submit(_counts_task, f, lane=lane_of[i]) for i, f in enumerate(scans)]
            merged = _tree_reduce(client, counts, _merge_task, retries=retries)
            cluster.wait([merged])
            words, word_counts = cluster.call(merged.result)
            if int(word_counts.sum()) == 0:
                raise CorpusError("corpus is empty: no tokens in " + ", ".join(corpus))
            vocab, _ = build_vocab(words, word_counts, s.min_count, s.max_vocab_size)
            del words, word_counts, counts
            vocab_index = submit(_vocab_index_task, merged, s.min_count, s.max_vocab_size)
        else:
            vocab = model.vocab
            vocab_index = submit(_index_task, list(vocab.words))
        encoded = [submit(_encode_task, f, vocab_index, lane=lane_of[i]) for i, f in enumerate(scans)]
        held.extend(encoded)
        shapes_f = [submit(_shape_task, e, f, lane=lane_of[i]) for i, (e, f) in enumerate(zip(encoded, scans))]
        cluster.wait(shapes_f)
        shapes = [cluster.call(f.result) for f in shapes_f]
        del scans, shapes_f   # the encoded shards keep their lineage
        n_tokens = sum(x[2] for x in shapes)
        n_words = sum(x[1] for x in shapes)
        length = sum(x[0] for x in shapes)
        if n_tokens == 0:
            raise CorpusError("corpus is empty: no tokens in " + ", ".join(corpus))
        # as one process does, with a new vocabulary or the model's
        bad_words, bad_counts, sequences = _merge_replaced([x[3] for x in shapes])
        warn_replaced_bytes(bad_words, bad_counts, corpus_files, sequences, s.tokenizer, stacklevel=3)
        if n_words == 0:
            raise VocabularyError("no word of the corpus is in the model's vocabulary")
        if fresh:
            model.vocab = vocab
            model._make_tables()
            model._init_weights()
            model.run_state = None
            model._rng_states = None
        if model._encoded is not None:
            model._encoded.close()
            model._encoded = None
        model.corpus_tokens = n_tokens
        model._corpus_files = corpus_files
        model.timings["vocab_seconds"] = time.perf_counter() - t0
        if not quiet:
            reporter.message(
                f"vocabulary: {len(vocab):,} words (min_count={s.min_count}) covering {n_words:,} of "
                f"{n_tokens:,} tokens; {len(shards)} shards in {len(lanes)} lanes on {n_workers} Dask "
                f"workers ({model.timings['vocab_seconds']:.1f}s)")

        # ------------------------------------------------------------ the run (or its remaining epochs)
        epochs = s.epochs
        # the same corpus: the same number of in-vocabulary tokens (the stream length can
        # differ by a few sentence boundaries where shards were cut inside a line)
        first = begin_run(model, length, n_words, same_corpus=lambda st: st.get("corpus_words") == n_words,
                          sharded=True)
        lane_lengths = [[shapes[i][0] for i in range(a, b)] for a, b in lanes]
        lane_total = [sum(x) for x in lane_lengths]
        lane_futs = [encoded[a:b] for a, b in lanes]
        n_rounds = max(1, math.ceil(length / (len(lanes) * round_words)))
        total = max(1, epochs * length)
        check_kernel_inputs(model.syn0, model.syn1neg, model.syn1, model.tables, s, len(model.vocab))
        weights = [model.syn0, model.syn1neg, model.syn1]
        setup = {"tables": model.tables,
                 "params": dict(kernel_params(s), seed=s.seed)}

        def full_state(version, broadcast=False):
            return ("full", cluster.scatter({"setup": setup, "weights": weights, "version": version},
                                            broadcast=broadcast))

        progress = Progress(max(1, epochs * length), s, stream=progress_stream, quiet=quiet,
                            words_per_id=model.corpus_tokens / max(1, length))
        show_remaining(progress, first, epochs, length)   # % and rate of the whole run
        stats = np.zeros((epochs, 4), np.float64)
        done = 0
        version = 0
        base = full_state(0, broadcast=True)
        held.append(base[1])
        log = []
        shapes = [w.shape for w in weights]
        plan = [(epoch, r) for epoch in range(first, epochs) for r in range(n_rounds)]

        def round_spec(epoch, r):
            bounds = [(lt * r // n_rounds, lt * (r + 1) // n_rounds) for lt in lane_total]
            active = [k for k in range(len(lanes)) if bounds[k][1] > bounds[k][0]]
            # every lane gets a task: the active ones train, the others only apply the last update
            return dict(epoch=epoch, round=r, bounds=bounds, active=active,
                        lanes=active + [k for k in range(len(lanes)) if k not in active],
                        position=epoch * length + sum(a for a, _ in bounds),
                        round_total=sum(b - a for a, b in bounds),
                        lr_scale=float(len(active)) if merge == "mean" else 1.0)

        def submit_lane(spec, k, base_k, from_version, attempt=0):
            if k not in spec["active"]:
                return submit(_sync_task, run_id, from_version, base_k, k, lane=k)
            pieces = slice_pieces(lane_lengths[k], *spec["bounds"][k])
            used = sorted({p[0] for p in pieces})
            where = {j: n for n, j in enumerate(used)}
            sched = dict(lane=k, round=(spec["epoch"], spec["round"]), attempt=attempt,
                         position=spec["position"], round_total=spec["round_total"], total=total,
                         lr_scale=spec["lr_scale"])
            return submit(_round_task, run_id, from_version, base_k, [lane_futs[k][j] for j in used],
                          [(where[j], a, b) for j, a, b in pieces], sched, lane=k)

        def submit_merge(spec, lane_futures, to_version):
            return submit(_merge_round_task, [lane_futures[k] for k in spec["lanes"]], shapes, merge,
                          to_version, lane=spec["active"][0] if spec["active"] else None)

        def submit_round(i, base_i, from_version):
            # round i's lane tasks and its merge task; the next round is submitted
            # before this one ends and starts from this merge task's result
            spec = round_spec(*plan[i])
            futs = {k: submit_lane(spec, k, base_i, from_version) for k in spec["lanes"]}
            if _round_hook is not None:
                _round_hook(dict(epoch=spec["epoch"], round=spec["round"], version=from_version,
                                 futures=futs, client=client, workers=workers, run_id=run_id))
            return {"spec": spec, "lanes": futs, "merge": submit_merge(spec, futs, from_version + 1)}

        def failed_lanes(rnd, res, error):
            # lane -> why, for a round whose merge task is not "ok"
            if res is not None:
                return {k: lane["status"] for k, lane in zip(rnd["spec"]["lanes"], res["lanes"])
                        if lane["status"] != "ok"}
            bad = {k: cluster.call(f.exception) for k, f in rnd["lanes"].items() if f.status == "error"}
            if not bad:   # the lanes trained, the merge itself failed (e.g. a bad row index)
                if isinstance(error, W2VError):
                    raise error
                raise DistributedError(f"merging round {rnd['spec']['round'] + 1} of epoch "
                                       f"{rnd['spec']['epoch'] + 1} failed: "
                                       + (" ".join(str(error).split()) or type(error).__name__))
            return bad

        apply_loader.join()
        t_train = time.perf_counter()
        t_prev = t_train
        t_prev_end = time.time()
        cur = submit_round(0, base, version) if plan else None
        for i, (epoch, r) in enumerate(plan):
            spec = cur["spec"]
            nxt = submit_round(i + 1, ("update", cur["merge"]), version + 1) if i + 1 < len(plan) else None
            tw = time.perf_counter()
            fallbacks = 0
            while True:
                try:
                    cluster.wait([cur["merge"]])
                    res = cluster.call(cur["merge"].result)
                except _Cancelled:
                    # the round needed data that only lost workers held (the weights scattered to
                    # them, a merged update): Dask cancels it, as nothing can recompute that data.
                    # Every lane starts again from the driver's weights once a worker is there.
                    bad = {k: "lost with its worker" for k in spec["active"]}
                    cluster.wait_for_worker()
                    cluster.reschedule_unrunnable()
                except DistributedError:
                    raise
                except Exception as exc:
                    if not cluster.alive():
                        raise cluster.lost(exc) from None
                    bad = failed_lanes(cur, None, exc)
                else:
                    if res is not None and res["status"] == "ok":
                        break
                    bad = failed_lanes(cur, res, None)
                if nxt is not None:   # it would start from an incomplete round: submitted again below
                    cluster.call(client.cancel, list(nxt["lanes"].values()) + [nxt["merge"]])
                    nxt = None
                fallbacks += len(bad)
                if fallbacks > _MAX_FALLBACKS * len(spec["lanes"]):
                    k, why = next(iter(bad.items()))
                    raise DistributedError(
                        f"round {r + 1} of epoch {epoch + 1} failed on lane {k}: "
                        + (" ".join(str(why).split()) or type(why).__name__ if isinstance(why, BaseException)
                           else "no worker holds the current weights"))
                for k, why in bad.items():
                    reporter.message(f"epoch {epoch + 1} round {r + 1}/{n_rounds}: lane {k} "
                                     f"{why if isinstance(why, str) else 'failed'}, resubmitted with the "
                                     "full weights")
                    cur["lanes"][k] = submit_lane(spec, k, full_state(version), version, attempt=fallbacks)
                cur["merge"] = submit_merge(spec, cur["lanes"], version + 1)
            t_got, wall_got = time.perf_counter(), time.time()
            apply_update(weights, res["rows"])   # the same rows, the same way, as every replica
            version += 1
            if version == 1:
                held.clear()
                held.extend(encoded)
            if nxt is None and i + 1 < len(plan):
                nxt = submit_round(i + 1, ("update", cur["merge"]), version)
            meta = res["lanes"]
            for lane in meta:
                stats[epoch] += lane["stats"]
            done += spec["round_total"]
            log.append(dict(epoch=epoch, round=r, seconds=t_got - t_prev, wait_seconds=t_got - tw,
                            merge_seconds=res["seconds"], fallbacks=fallbacks,
                            train_seconds=max(x["train_seconds"] for x in meta),
                            task_seconds=max(x["seconds"] for x in meta),
                            tokens=spec["round_total"], bytes_up=sum(x["nbytes"] for x in meta),
                            bytes_down=sum(a.nbytes for part in res["rows"] for a in part) * len(meta),
                            # wall clock: previous merge's end -> first task start (the gap on the
                            # workers between rounds), merge end -> result here (off the critical path)
                            dispatch_seconds=min(x["wall"][0] for x in meta) - t_prev_end,
                            collect_seconds=wall_got - res["wall_end"],
                            rows=[int(u[0].size) for u in res["rows"]]))
            t_prev, t_prev_end = t_got, res["wall_end"]
            cur = nxt
            last = r == n_rounds - 1   # an epoch's end is always reported, and once
            progress.maybe_report(done, stats[epoch, 0], stats[epoch, 1], epoch, force=last)
            if not last:
                continue
            progress.epoch_done(epoch, stats[epoch, 0], stats[epoch, 1])
            model.run_state["epochs_done"] = epoch + 1
            model._wv = None
            model.last_train = _result(stats, first, epoch + 1, time.perf_counter() - t_train, log,
                                       n_workers, lanes, shards, round_words, n_rounds, length, merge,
                                       weights)
            if on_epoch_end is not None:
                on_epoch_end(epoch)
    finally:
        if cluster.alive():
            with contextlib.suppress(Exception):
                client.run(_forget_run, run_id)
        held.clear()
    model._wv = None
    model.timings["train_seconds"] = model.last_train["seconds"] if model.last_train else 0.0
    if first >= epochs:
        model.last_train = _result(stats, first, epochs, 0.0, [], n_workers, lanes, shards, round_words,
                                   n_rounds, length, merge, weights)
    return model


def _result(stats, first, stop, seconds, log, n_workers, lanes, shards, round_words, n_rounds, length,
            merge, weights):
    from .run import run_totals

    mean = (lambda key: float(np.mean([x[key] for x in log]))) if log else (lambda key: 0.0)
    return {
        **run_totals(stats[first:stop], seconds),
        "first_epoch": first,
        "distributed": {
            "workers": n_workers, "lanes": len(lanes), "shards": len(shards), "merge": merge,
            "round_words": round_words, "rounds_per_epoch": n_rounds, "rounds": len(log),
            "stream_length": int(length),
            "initial_broadcast_bytes": int(sum(w.nbytes for w in weights)) * n_workers,
            "bytes_up_per_round": mean("bytes_up"), "bytes_down_per_round": mean("bytes_down"),
            "round_seconds": mean("seconds"), "train_seconds_per_round": mean("train_seconds"),
            "merge_seconds_per_round": mean("merge_seconds"),
            "fallbacks": int(sum(x["fallbacks"] for x in log)),
            "log": log,
        },
    }
