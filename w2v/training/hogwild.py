"""The CPU runner: jobs, Hogwild threads, replicas, the kernel's arguments.

The loop only orchestrates: it cuts the encoded corpus into jobs of whole
sentences and hands each job to :func:`w2v.kernels.cpu.train_tokens`, which
runs without the GIL.  With ``threads=1`` jobs run in order in the calling
thread, so a seeded run is bit-for-bit reproducible; with more, the workers
after the first train a :class:`Replica` of the most frequent words' rows.
:func:`run_epochs` runs (or continues) a model's run on the CPU through the
lifecycle of :mod:`w2v.training.lifecycle`.
"""
import queue
import threading
import time

import numpy as np

from ..text.encoded import SENTINEL
from .fingerprint import corpus_fingerprint
from .kernelcalls import (check_kernel_inputs, kernel_args, kernel_params, load_kernel, no_replica_args,  # noqa: F401
                          start_kernel_load)
from ..kernels.cpu import merge_hot_rows, train_tokens
from .progress import KernelWatch
from .lifecycle import (RunResult, begin_run, continued_states, run_position, run_totals, seed_states, show_remaining,
                        train_spans)

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


def iter_jobs(encoded, epochs, job_tokens, max_sentence_length, threads=None, start=0):
    """Yield ``(epoch, position, ids)`` jobs covering the corpus ``epochs`` times.

    ``start``: the first epoch's first ``start`` ids are left out (a run
    resumed mid-epoch; ``start`` is where a job of the same call began, so the
    jobs that follow are those of the uninterrupted run).

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
    skip = start
    for epoch in range(epochs):
        for first, ids in encoded.blocks(BLOCK_TOKENS):
            i = 0
            n = ids.size
            if skip:   # the ids a resumed run trained before its checkpoint
                i = min(n, skip - first)
                skip = 0 if first + n >= skip else skip
            while i < n:
                remaining = total - (epoch * length + first + i)
                size = job_tokens if threads is None else \
                    max(MIN_JOB_TOKENS, min(job_tokens, remaining // (4 * threads)))
                e = min(i + size, n)
                if e < n:
                    lo = max(i, e - max_sentence_length)
                    where = np.flatnonzero(ids[lo:e] == SENTINEL)
                    if where.size:
                        e = lo + int(where[-1]) + 1
                yield epoch, first + i, ids[i:e]
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
        return no_replica_args(syn0, syn1neg)

    def merge(self):
        """Add every replica row's pending changes to the shared rows."""
        for rows, copy, snap in zip(self.shared, (self.hot0, self.hot1), (self.snap0, self.snap1)):
            merge_hot_rows(rows, copy, snap, 0, self.rows)
        self.pending[:] = 0


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
                 rng_states=None, job_tokens=None, position_offset=0, total_positions=None, start=0,
                 start_stats=None, checkpoints=None):
    """Train ``settings.epochs`` epochs over an encoded corpus, updating the weights in place.

    Parameters
    ----------
    encoded : w2v.text.encoded.EncodedCorpus
    syn0, syn1neg, syn1 : numpy.ndarray of float32
        Weights, updated in place (Hogwild across threads).
    tables : w2v.training.sampling.Tables
    settings : w2v.settings.Settings
    progress : w2v.training.progress.Progress, optional
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
    start : int
        Ids of the first epoch trained already (a run resumed mid-epoch, see :func:`iter_jobs`).
    start_stats : sequence of float, optional
        ``[loss, examples, kept, seen]`` of those ids, counted in the first epoch's result.
    checkpoints : w2v.model.checkpoints.Checkpointer, optional
        Asked after every job whether a checkpoint is due; one is saved at
        the next job boundary (with threads, once the jobs handed out have
        finished and the replicas merged).

    Returns
    -------
    w2v.training.lifecycle.RunResult
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
    runner.start, runner.checkpoints = start, checkpoints
    if start_stats is not None:
        runner.stats[0, 0, :4] += np.asarray(start_stats, np.float64)
        runner.epoch_ids[0] = start
    with KernelWatch(on_compile=None if progress is None else progress.message):
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
        self.start = 0            # ids of the first epoch trained before this call
        self.checkpoints = None   # a w2v.model.checkpoints.Checkpointer
        self.fed = 0              # ids handed to the workers

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
        for job in iter_jobs(self.encoded, self.epochs, job_tokens, self.settings.max_sentence_length,
                             start=self.start):
            if stop_event.is_set():
                raise KeyboardInterrupt
            self.run_job(0, job)
            self.report()
            self.maybe_checkpoint(job)

    def maybe_checkpoint(self, job, settle=None):
        """A mid-epoch checkpoint after ``job``, the last job handed out, when one is due.

        ``settle()`` first waits for the jobs in flight and merges the replicas (threads).
        """
        cp = self.checkpoints
        epoch, pos, ids = job
        position = pos + ids.size
        if cp is None or position >= self.length or not cp.due(self.done if settle is None else self.fed):
            return
        if settle is not None:
            settle()
        with self.lock:
            stats = self.stats[:, epoch, :4].sum(axis=0)
        run_ids = self.position_offset + epoch * self.length + position
        cp.save_mid(self.done, int(self.position_offset // max(1, self.length)) + epoch, position,
                    run_ids / self.total, mode="jobs", epoch_stats=[float(x) for x in stats])

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
                                 threads, start=self.start):
                while True:
                    if stop_event.is_set():
                        raise KeyboardInterrupt
                    try:
                        jobs.put(job, timeout=0.2)
                        break
                    except queue.Full:
                        self.report()
                self.fed += job[2].size
                self.report()
                self.maybe_checkpoint(job, lambda: self._settle(stop_event, errors))
        except BaseException:
            stop_event.set()
            raise
        finally:
            self._stop_pool(pool, jobs, stop_event)
        if errors:
            raise errors[0]

    def _settle(self, stop_event, errors):
        # every job handed out trained, the replicas' changes in the shared rows (the workers wait)
        while True:
            with self.lock:
                if self.done >= self.fed:
                    break
            if stop_event.is_set() or errors:
                raise KeyboardInterrupt if not errors else errors[0]
            time.sleep(0.001)
        for replica in self.replicas.values():
            replica.merge()

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


def run_epochs(model, progress=None, stop_event=None, on_epoch_end=None, checkpoints=None):
    """Run (or continue) a training run over the model's encoded corpus on the CPU.

    A new run trains ``settings.epochs`` epochs with the learning rate
    decaying from ``alpha`` to ``min_alpha`` over them.  If the model holds
    an unfinished run (``model.run_state``, e.g. from a checkpoint) over a
    corpus of the same encoded length, the remaining epochs run with the
    original schedule and random states instead (see :func:`w2v.training.lifecycle.begin_run`),
    from the job where a checkpoint saved mid-epoch stopped.

    Without ``on_epoch_end`` the epochs run in one job stream
    (:func:`train_epochs`).  With it, each epoch is one call of
    ``train_epochs`` with the run's global position offset, so that every
    job of epoch ``e`` has finished when ``on_epoch_end(e)`` is called
    (``model.run_state["epochs_done"]`` is then ``e + 1``), and the
    learning rate of every sentence is exactly the one of the single stream
    (with ``threads=1`` the vectors are bit-for-bit the same).
    ``checkpoints`` (a :class:`w2v.model.checkpoints.Checkpointer`) saves
    checkpoints between jobs as well.

    Returns
    -------
    w2v.training.lifecycle.RunResult
    """
    s = model.settings
    enc = model.encoded_corpus
    first = begin_run(model, enc.length, enc.n_words, fingerprint=corpus_fingerprint(enc), mode="jobs")
    start_stats = (model.run_state or {}).get("epoch_stats")
    rng = continued_states(model.rng_states, s.threads, s.seed)
    model.set_rng_states(rng)
    show_remaining(progress, first, s.epochs, enc.length, run_position(model))

    def train_span(sub, shown, offset, total, start=0):
        return train_epochs(enc, model.syn0, model.syn1neg, model.syn1, model.tables, sub,
                            progress=shown, stop_event=stop_event, rng_states=rng,
                            position_offset=offset, total_positions=total, start=start,
                            start_stats=start_stats if start else None, checkpoints=checkpoints)

    return train_spans(model, first, train_span, progress, on_epoch_end)
