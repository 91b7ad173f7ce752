"""The CPU runner: jobs, Hogwild threads, replicas, the kernel's arguments.

The loop only orchestrates: it cuts the encoded corpus into jobs of whole
sentences and hands each job to :func:`w2v.kernels.cpu.train_tokens`, which
runs without the GIL.  With ``threads=1`` jobs run in order in the calling
thread, so a seeded run is bit-for-bit reproducible; with more, the workers
after the first train a :class:`Replica` of the most frequent words' rows.
:func:`run_epochs` runs (or continues) a model's run on the CPU through the
lifecycle of :mod:`w2v.run`.
"""
import queue
import threading
import time

import numpy as np

from .encoded import SENTINEL
from .errors import ParameterError
from .kernels.cpu import merge_hot_rows, train_tokens
from .progress import COMPILING, KernelWatch
from .run import RunResult, begin_run, continued_states, run_totals, seed_states, show_remaining, train_spans
from .sampling import Tables

BLOCK_TOKENS = 1 << 20  # ids read at a time from an on-disk encoded corpus (4 MiB)


MIN_JOB_TOKENS = 1 << 13
# With several threads, every worker but the first trains its own replica of
# the input and output rows of the most frequent words (as many as fit in
# REPLICA_BYTES, copies and snapshots together) and adds its changes to the
# shared matrices: the first FREQUENT_ROWS rows after every FREQUENT_MERGE_WORDS
# trained words, the others after every REPLICA_MERGE_WORDS (see Replica).
REPLICA_BYTES = 16 << 20
REPLICA_TOTAL_BYTES = 1 << 30   # all replicas together: more threads than cores must not exhaust memory
FREQUENT_ROWS = 1024
FREQUENT_MERGE_WORDS = 8192
REPLICA_MERGE_WORDS = 1 << 17
MIN_MERGE_WORDS = 64
# A replica's changes are computed from rows up to one merge interval old, and
# the workers' changes add up at the merges: when a row takes many updates
# between merges (a small vocabulary: every row is a frequent one), or an
# interval is a large part of an epoch (a small corpus), the workers fit their
# copies each on its own and the sum of their changes overshoots (on a
# 50-word corpus with 4 threads the objective ended above its starting value).
# So the intervals shrink with the corpus and with the most frequent row's
# share of the kept words: the frequent rows are merged before that row has
# taken about MERGE_ROW_UPDATES / threads updates (on the 17M-token wiki slice,
# 2 threads, every 8,040 words instead of 8,192).
EPOCH_MERGES = 128
MERGE_ROW_UPDATES = 200
# Replicas are used up to this many threads. Beyond it the workers' stale changes to the
# frequent rows add up faster than the merge intervals shrink: on the 17M-token wiki slice
# (skip-gram, 1 epoch) 16 threads with replicas blew the frequent rows up (norms 30-90
# against about 2; WS-353 0.01 on a 16-core machine), 8 threads lost 0.1 of WS-353, while
# 3 and 4 threads scored as 2 do (0.53 / 0.55) and 16 threads of plain Hogwild 0.50.
MAX_REPLICA_THREADS = 4


def merge_intervals(encoded, keep_threshold, threads, job_tokens):
    """The replicas' merge intervals ``(frequent_words, merge_words)`` for this corpus.

    ``frequent_words`` is :data:`FREQUENT_MERGE_WORDS` on a large corpus with
    a large vocabulary; on a small one it falls to ``length / (EPOCH_MERGES x
    threads)`` and to ``MERGE_ROW_UPDATES / (threads x share)``, ``share``
    being the largest share of one word among the kept words (estimated on
    the first block of the encoded corpus), never below
    :data:`MIN_MERGE_WORDS`.  ``merge_words`` (the other rows) is half a job
    (between :data:`FREQUENT_MERGE_WORDS` and :data:`REPLICA_MERGE_WORDS`),
    but at most ``length / (16 x threads)`` and never below ``frequent_words``.
    Returns ``None`` (no replicas: plain Hogwild, as gensim and word2vec.c)
    when the corpus is too short for ``EPOCH_MERGES`` merges of
    ``MIN_MERGE_WORDS`` per worker and epoch: a replica would keep its changes
    from the others for epochs, and the replicas' speed does not matter there.
    """
    length = encoded.length
    if length < EPOCH_MERGES * MIN_MERGE_WORDS * threads:
        return None
    first = next(iter(encoded.blocks(BLOCK_TOKENS)), (0, np.zeros(0, np.int32)))[1]
    first = first[first >= 0]
    share = 0.0
    if first.size:
        kept = np.bincount(first, minlength=keep_threshold.size)[:keep_threshold.size] \
            * np.minimum(keep_threshold, 1 << 32) / float(1 << 32)
        if kept.sum() > 0:
            share = float(kept.max() / kept.sum())
    frequent = min(FREQUENT_MERGE_WORDS, length // (EPOCH_MERGES * threads))
    if share > 0:
        frequent = min(frequent, int(MERGE_ROW_UPDATES / (threads * share)))
    frequent = max(MIN_MERGE_WORDS, frequent)
    rest = max(FREQUENT_MERGE_WORDS, min(REPLICA_MERGE_WORDS, job_tokens // 2))
    rest = max(frequent, min(rest, length // (16 * threads)))
    return frequent, rest


def iter_jobs(encoded, epochs, job_tokens, max_sentence_length, threads=None):
    """Yield ``(epoch, position, ids)`` jobs covering the corpus ``epochs`` times.

    Jobs end after a sentence boundary when one lies within the last
    ``max_sentence_length`` ids of the job, so sentences are rarely cut.
    With ``threads``, jobs shrink near the end of the run (guided
    scheduling: at most ``remaining / (4 * threads)`` ids, at least
    ``MIN_JOB_TOKENS``), so the threads finish together instead of one of
    them waiting on the other's last big job.  Without it (one thread) the
    jobs do not depend on the position, which keeps a run split into
    per-epoch calls bit-for-bit equal to one call.
    """
    length = encoded.length
    total = epochs * length
    for epoch in range(epochs):
        for start, ids in encoded.blocks(BLOCK_TOKENS):
            i = 0
            n = ids.size
            while i < n:
                remaining = total - (epoch * length + start + i)
                size = job_tokens if threads is None else \
                    max(MIN_JOB_TOKENS, min(job_tokens, remaining // (4 * threads)))
                e = min(i + size, n)
                if e < n:
                    lo = max(i, e - max_sentence_length)
                    where = np.flatnonzero(ids[lo:e] == SENTINEL)
                    if where.size:
                        e = lo + int(where[-1]) + 1
                yield epoch, start + i, ids[i:e]
                i = e


def choose_job_tokens(stream_length, threads):
    """Job size: big enough that Python overhead vanishes, small enough to balance threads."""
    per = stream_length // max(1, 16 * threads)
    return int(min(1 << 18, max(MIN_JOB_TOKENS, per)))


def replica_budget(threads):
    """Bytes of each worker's replica: :data:`REPLICA_BYTES`, less where ``threads - 1`` of them
    would pass :data:`REPLICA_TOTAL_BYTES` (many more threads than cores)."""
    return min(REPLICA_BYTES, REPLICA_TOTAL_BYTES // max(1, threads - 1))


class Replica:
    """A worker's own copy of the first rows of the weights, merged into them as it trains.

    The kernel reads and writes rows ``[0, rows)`` of ``syn0`` and
    ``syn1neg`` (the most frequent words: ids follow descending counts) in
    ``hot0`` and ``hot1`` instead, and adds ``copy - snapshot`` (the
    worker's changes since the last merge) to the shared rows in place,
    restarting copy and snapshot from the result, which holds the other
    workers' changes too (:func:`w2v.kernels.cpu.merge_hot_rows`): rows
    ``[0, frequent_rows)`` after every ``frequent_words`` trained words,
    the others after every ``merge_words``, and :meth:`merge` all of them at
    the end.  So the worker training the shared rows directly and this one
    see each other's changes to these rows at the merges, instead of
    fighting over their cache lines at every update (see the README, "How
    it works").  The rows of the most frequent words are merged often: they
    take hundreds of updates between merges, and two workers' updates
    computed from the same stale rows add up to an overshoot (with every
    row merged after 262k words, the analogy score fell from 14.3% to
    12.2%, CBOW, 17M-token wiki slice).  The other rows stay shared (Hogwild).
    """

    def __init__(self, syn0, syn1neg, rows, frequent_rows=FREQUENT_ROWS,
                 frequent_words=FREQUENT_MERGE_WORDS, merge_words=REPLICA_MERGE_WORDS):
        self.shared = (syn0, syn1neg)
        self.hot0, self.hot1 = (a[:rows].copy() for a in self.shared)
        self.snap0, self.snap1 = self.hot0.copy(), self.hot1.copy()
        self.rows = rows
        self.plan = np.array([min(frequent_rows, rows), frequent_words, rows, merge_words], np.int64)
        self.pending = np.zeros(2, np.int64)

    @staticmethod
    def rows_for(syn0, budget=None):
        """Rows a replica covers: as many as ``budget`` bytes hold (default :data:`REPLICA_BYTES`)."""
        budget = REPLICA_BYTES if budget is None else budget
        per_row = 4 * syn0.shape[1] * syn0.itemsize    # two matrices, copy and snapshot of each
        return int(min(syn0.shape[0], budget // per_row))

    def kernel_args(self):
        """The replica's arguments of :func:`train_tokens`."""
        return self.hot0, self.hot1, self.snap0, self.snap1, self.plan, self.pending

    @staticmethod
    def no_kernel_args(syn0, syn1neg):
        """:func:`train_tokens`' replica arguments for a worker without one."""
        return syn0[:0], syn1neg[:0], syn0[:0], syn1neg[:0], np.zeros(4, np.int64), np.zeros(2, np.int64)

    def merge(self):
        """Add every replica row's pending changes to the shared rows."""
        for rows, copy, snap in zip(self.shared, (self.hot0, self.hot1), (self.snap0, self.snap1)):
            merge_hot_rows(rows, copy, snap, 0, self.rows)
        self.pending[:] = 0


def check_kernel_inputs(syn0, syn1neg, syn1, tables, settings, vocab_size):
    """Check that the weights and tables fit the settings and a vocabulary of ``vocab_size`` words.

    The kernels run without bounds checks and index these arrays with
    vocabulary ids (validated against ``vocab_size`` as they are read, see
    :meth:`w2v.encoded.EncodedCorpus.blocks`), noise words and Huffman
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


def kernel_args(settings, syn0, syn1neg, syn1, tables, lr_scale=1.0, replica=None):
    """The arguments of :func:`train_tokens` that stay fixed over a run.

    Their Python types pick the compiled kernel, so every caller (the
    threads, the kernel preload, the Dask workers) builds them here.
    ``settings`` is a :class:`w2v.settings.Settings` or a
    :func:`kernel_params` dict; ``lr_scale`` multiplies both learning rates;
    ``replica`` (a :class:`Replica`) gives the worker's copies of the first rows.
    """
    p = settings if isinstance(settings, dict) else kernel_params(settings)
    return (syn0, syn1neg, syn1, tables.keep_threshold, tables.noise_table,
            tables.hs_codes, tables.hs_points, tables.hs_lengths, bool(p["sg"]), bool(p["cbow_mean"]),
            int(p["window"]), int(p["negative"]), bool(p["hs"]), bool(p["shared"]),
            float(p["alpha"] * lr_scale), float(p["min_alpha"] * lr_scale), int(p["max_sentence_length"]),
            *(Replica.no_kernel_args(syn0, syn1neg) if replica is None else replica.kernel_args()))


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


def make_replicas(encoded, syn0, syn1neg, tables, settings, job_tokens):
    """The :class:`Replica` of each worker after the first, by worker id (none: plain Hogwild).

    The per-pair mode stays word2vec.c's Hogwild, and so do more than
    :data:`MAX_REPLICA_THREADS` threads and a corpus too short for the
    merges (:func:`merge_intervals`).
    """
    threads = settings.threads
    if not (1 < threads <= MAX_REPLICA_THREADS) or settings.exact:
        return {}
    rows = Replica.rows_for(syn0, replica_budget(threads))
    # on a small corpus or vocabulary the rows are merged more often (see merge_intervals)
    intervals = merge_intervals(encoded, tables.keep_threshold, threads, job_tokens)
    if intervals is None:
        return {}
    frequent_words, merge_words = intervals
    return {w: Replica(syn0, syn1neg, rows, frequent_words=frequent_words, merge_words=merge_words)
            for w in range(1, threads)}


def train_epochs(encoded, syn0, syn1neg, syn1, tables, settings, progress=None, stop_event=None,
                 rng_states=None, job_tokens=None, position_offset=0, total_positions=None):
    """Train ``settings.epochs`` epochs over an encoded corpus, updating the weights in place.

    Parameters
    ----------
    encoded : w2v.encoded.EncodedCorpus
    syn0, syn1neg, syn1 : numpy.ndarray of float32
        Weights, updated in place (Hogwild across threads).
    tables : w2v.sampling.Tables
    settings : w2v.settings.Settings
    progress : w2v.progress.Progress, optional
    stop_event : threading.Event, optional
        Set it to stop after the jobs in flight (used on Ctrl-C).
    rng_states : numpy.ndarray of uint64, shape (threads, 1), optional
        Per-worker random states (default: derived from ``settings.seed``).
    job_tokens : int, optional
    position_offset : int
        Position of this call's first id in the whole run (when a run is split
        into several calls, e.g. one epoch at a time for checkpoints).
    total_positions : int, optional
        Length of the whole run (default: this call's epochs x stream length);
        with ``position_offset`` it keeps the learning-rate schedule of one run.

    Returns
    -------
    w2v.run.RunResult
        ``epoch_loss`` (mean loss per trained example, per epoch),
        ``examples``, ``words`` (tokens seen) and ``kept`` (after
        subsampling), ``seconds``, ``kernel_load_seconds``.
    """
    s = settings
    check_kernel_inputs(syn0, syn1neg, syn1, tables, s, encoded.vocab_size)
    if rng_states is None:
        rng_states = seed_states(s.seed, s.threads)
    if job_tokens is None:
        job_tokens = choose_job_tokens(encoded.length, s.threads)
    replicas = make_replicas(encoded, syn0, syn1neg, tables, s, job_tokens)
    runner = _JobRunner(encoded, (syn0, syn1neg, syn1), tables, s, replicas, rng_states, progress,
                        position_offset, total_positions)
    with KernelWatch(on_compile=None if progress is None else lambda: progress.message(COMPILING)):
        load_seconds = load_kernel(runner.args)   # outside the training time (see load_kernel)
    stop_event = stop_event or threading.Event()
    t0 = time.perf_counter()
    if s.threads == 1:
        runner.run_in_order(job_tokens, stop_event)
    else:
        runner.run_threads(job_tokens, stop_event)
    seconds = time.perf_counter() - t0
    runner.report(final=True)   # the epochs that ended since the last report
    return RunResult(**run_totals(runner.stats.sum(axis=0), seconds), kernel_load_seconds=load_seconds)


class _JobRunner:
    """The jobs of one :func:`train_epochs` call: run in order or by a pool of threads, with progress."""

    def __init__(self, encoded, weights, tables, settings, replicas, rng_states, progress, position_offset,
                 total_positions):
        s = settings
        syn0, syn1neg, syn1 = weights
        self.encoded = encoded
        self.settings = s
        self.epochs = s.epochs
        self.length = encoded.length
        self.total = total_positions or max(1, s.epochs * encoded.length)
        self.position_offset = position_offset
        self.rng_states = rng_states
        self.progress = progress
        self.replicas = replicas
        self.args = kernel_args(s, syn0, syn1neg, syn1, tables)
        self.worker_args = {w: kernel_args(s, syn0, syn1neg, syn1, tables, replica=r) for w, r in replicas.items()}
        # per worker, per epoch: [loss, examples, kept, seen]; rows padded to 64 bytes
        self.stats = np.zeros((s.threads, s.epochs, 8), np.float64)
        self.done = 0
        self.epoch_ids = np.zeros(s.epochs, np.int64)    # ids trained in each epoch (complete at `length`)
        self.reported = 0                                # epochs whose end has been reported
        self.lock = threading.Lock()

    def run_job(self, wid, job):
        epoch, pos, ids = job
        train_tokens(ids, self.position_offset + epoch * self.length + pos, self.total,
                     *self.worker_args.get(wid, self.args), self.rng_states[wid], self.stats[wid, epoch])
        with self.lock:
            self.done += ids.size
            self.epoch_ids[epoch] += ids.size

    def report(self, final=False):
        """A progress line (every ``progress.interval``); each epoch's mean loss as soon as it ends.

        With threads, the next epoch's first jobs run while the last ones of
        an epoch finish; its mean loss is reported once every one has.
        """
        progress = self.progress
        if progress is None:
            return
        stats = self.stats
        with self.lock:
            first = self.reported
            ended = first
            while ended < self.epochs and self.epoch_ids[ended] >= self.length:
                ended += 1
            now = self.done
        if ended > first:   # the epoch's last progress line, then its summary
            st = stats[:, ended - 1, :].sum(axis=0)
            progress.maybe_report(now, st[0], st[1], ended - 1, force=True)
            for e in range(first, ended):
                st = stats[:, e, :].sum(axis=0)
                progress.epoch_done(e, st[0], st[1])
            self.reported = ended
        elif not final:
            e = min(first, self.epochs - 1)
            st = stats[:, e, :].sum(axis=0)
            progress.maybe_report(now, st[0], st[1], e)

    def run_in_order(self, job_tokens, stop_event):
        """One thread: the jobs in order in the calling thread (bit-for-bit reproducible)."""
        for job in iter_jobs(self.encoded, self.epochs, job_tokens, self.settings.max_sentence_length):
            if stop_event.is_set():
                raise KeyboardInterrupt
            self.run_job(0, job)
            self.report()

    def run_threads(self, job_tokens, stop_event):
        """Several threads: a pool of workers takes the jobs from a bounded queue."""
        threads = self.settings.threads
        jobs = queue.Queue(maxsize=2 * threads)
        errors = []
        pool = [threading.Thread(target=self._work, args=(w, jobs, stop_event, errors), daemon=True,
                                 name=f"w2v-worker-{w}")
                for w in range(threads)]
        for t in pool:
            t.start()
        try:
            for job in iter_jobs(self.encoded, self.epochs, job_tokens, self.settings.max_sentence_length,
                                 threads):
                while True:
                    if stop_event.is_set():
                        raise KeyboardInterrupt
                    try:
                        jobs.put(job, timeout=0.2)
                        break
                    except queue.Full:
                        self.report()
                self.report()
        except BaseException:
            stop_event.set()
            raise
        finally:
            self._stop_pool(pool, jobs, stop_event)
        if errors:
            raise errors[0]

    def _work(self, wid, jobs, stop_event, errors):
        try:
            while True:
                job = jobs.get()
                if job is None:
                    return
                if not stop_event.is_set():
                    self.run_job(wid, job)
        except BaseException as exc:  # pragma: no cover - surfaced by run_threads
            errors.append(exc)
            stop_event.set()
        finally:
            if wid in self.replicas:   # what it trained reaches the shared weights, even when stopped
                self.replicas[wid].merge()

    def _stop_pool(self, pool, jobs, stop_event):
        for _ in pool:
            while True:
                try:
                    jobs.put(None, timeout=0.2)
                    break
                except queue.Full:
                    if stop_event.is_set():
                        _drain(jobs)
        for t in pool:
            while t.is_alive():
                t.join(0.2)
                if not stop_event.is_set():
                    self.report()


def _drain(q):
    try:
        while True:
            q.get_nowait()
    except queue.Empty:
        pass


def run_epochs(model, progress=None, stop_event=None, on_epoch_end=None):
    """Run (or continue) a training run over the model's encoded corpus on the CPU.

    A new run trains ``settings.epochs`` epochs with the learning rate
    decaying from ``alpha`` to ``min_alpha`` over them.  If the model holds
    an unfinished run (``model.run_state``, e.g. from a checkpoint) over a
    corpus of the same encoded length, the remaining epochs run with the
    original schedule and random states instead (see :func:`w2v.run.begin_run`).

    Without ``on_epoch_end`` the epochs run in one job stream
    (:func:`train_epochs`).  With it, each epoch is one call of
    ``train_epochs`` with the run's global position offset, so that every
    job of epoch ``e`` has finished when ``on_epoch_end(e)`` is called
    (``model.run_state["epochs_done"]`` is then ``e + 1``), and the
    learning rate of every sentence is exactly the one of the single stream
    (with ``threads=1`` the vectors are bit-for-bit the same).

    Returns
    -------
    w2v.run.RunResult
    """
    s = model.settings
    enc = model.encoded_corpus
    first = begin_run(model, enc.length, enc.n_words)
    rng = continued_states(model.rng_states, s.threads, s.seed)
    model.set_rng_states(rng)
    show_remaining(progress, first, s.epochs, enc.length)

    def train_span(sub, shown, offset, total):
        return train_epochs(enc, model.syn0, model.syn1neg, model.syn1, model.tables, sub,
                            progress=shown, stop_event=stop_event, rng_states=rng,
                            position_offset=offset, total_positions=total)

    return train_spans(model, first, train_span, progress, on_epoch_end)
