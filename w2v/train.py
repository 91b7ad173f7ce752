"""The training loop: epochs, jobs, Hogwild threads, learning-rate schedule, progress.

The loop only orchestrates: it cuts the encoded corpus into jobs of whole
sentences and hands each job to :func:`w2v.kernels.cpu.train_tokens`, which
runs without the GIL.  With ``threads=1`` jobs run in order in the calling
thread, so a seeded run is bit-for-bit reproducible; with more, the workers
after the first train a :class:`Replica` of the most frequent words' rows.
"""
import queue
import sys
import threading
import time

import numpy as np

from .console import line_left_open, write_or_drop
from .corpus import SENTINEL
from .errors import ParameterError
from .kernels.cpu import merge_hot_rows, train_tokens
from .sampling import pack_alias_table

BLOCK_TOKENS = 1 << 20  # ids read at a time from an on-disk encoded corpus (4 MiB)


class Tables:
    """The read-only arrays every kernel call needs (sampling tables, Huffman tree)."""

    def __init__(self, keep_threshold, noise_threshold, noise_alias, hs_codes, hs_points, hs_lengths):
        self.keep_threshold = keep_threshold
        self.noise_threshold = noise_threshold
        self.noise_alias = noise_alias
        self.noise_table = pack_alias_table(noise_threshold, noise_alias)   # what the CPU kernels read
        self.hs_codes = hs_codes
        self.hs_points = hs_points
        self.hs_lengths = hs_lengths


class Progress:
    """Progress lines on stderr: % done, words/s, ETA, learning rate, running loss.

    ``total_words`` and the ``done`` of :meth:`maybe_report` count the ids the
    kernels read (in-vocabulary tokens and sentence ends); ``words_per_id``
    turns their rate into raw corpus words per second, the figure of the
    final summary and of ``--report-json`` (raw tokens x epochs / seconds).

    On a terminal the progress line (and a :meth:`status`) is redrawn in
    place every ``interval`` (0.5 s); elsewhere (a log file, a pipe) each is
    a line of its own, every 5 s.
    """

    def __init__(self, total_words, settings, stream=None, quiet=False, interval=None, words_per_id=1.0):
        self.total = max(1, total_words)
        self.done_before = 0    # of a resumed run: what its earlier epochs trained (resume_from)
        self.words_per_id = words_per_id
        self.settings = settings
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.interval = interval if interval is not None else (0.5 if self.tty else 5.0)
        self.t0 = time.perf_counter()
        self.last = self.t0

    def resume_from(self, done_before):
        """A resumed run: ``done_before`` of the ``total`` ids were trained before it.

        % done and the learning rate are the whole run's; words/s and the ETA
        count only what this process trains.
        """
        self.done_before = min(max(0, done_before), self.total)

    def exclude(self, seconds):
        """Leave ``seconds`` spent on something else (a checkpoint's save) out of words/s and the ETA."""
        self.t0 += seconds

    def alpha_at(self, frac):
        s = self.settings
        return max(s.min_alpha, s.alpha - (s.alpha - s.min_alpha) * min(1.0, frac))

    def maybe_report(self, done, loss, examples, epoch, force=False):
        now = time.perf_counter()
        if self.quiet or (not force and now - self.last < self.interval):
            return
        self.last = now
        elapsed = max(now - self.t0, 1e-9)
        frac = (self.done_before + done) / self.total
        rate = done / elapsed
        eta = (self.total - self.done_before - done) / rate if rate > 0 else float("inf")
        rate *= self.words_per_id
        loss_text = f"{loss / examples:.4f}" if examples else "-"   # no example trained yet
        self.status(f"epoch {epoch + 1}/{self.settings.epochs}  {100 * frac:5.1f}%  "
                    f"{rate / 1e3:8.1f}k words/s  lr {self.alpha_at(frac):.6f}  "
                    f"loss {loss_text}  ETA {_fmt_seconds(eta)}")

    def status(self, text, log=True):
        """What the run is doing now: redrawn in place on a terminal, a line of its own elsewhere
        (unless ``log`` is false: a short step that a :meth:`message` will report)."""
        if self.quiet:
            return
        if self.tty:
            line_left_open(self.stream, True)
            self._write("\r" + text + "\033[K")
        elif log:
            self._write(text + "\n")

    def _write(self, text):
        if not write_or_drop(self.stream, text):   # the terminal or the pipe went away: train on, unseen
            self.quiet = True
            line_left_open(self.stream, False)

    def epoch_done(self, epoch, loss_sum, examples):
        """Report an epoch's mean loss, or say why it trained on nothing."""
        if examples:
            self.message(f"epoch {epoch + 1}: mean loss {loss_sum / examples:.4f} over {int(examples):,} examples")
        else:
            # e.g. a tiny corpus: subsampling keeps a word of frequency f with
            # probability (sqrt(f / sample) + 1) * sample / f, about 7% at f = 25%
            self.message(f"epoch {epoch + 1}: no training examples (every word was subsampled away "
                         f"or had no context; on a tiny corpus set sample to 0)")

    def message(self, text):
        """A line that stays (it replaces the progress line drawn in place on a terminal)."""
        if not self.quiet:
            line_left_open(self.stream, False)
            self._write(("\r\033[K" if self.tty else "") + text + "\n")


def run_totals(per_epoch, seconds):
    """The common part of a run's result from rows ``[loss sum, examples, kept, words]`` per epoch.

    ``epoch_loss`` is the mean loss per example of each epoch (nan where it had none).
    """
    per_epoch = np.asarray(per_epoch)
    return {
        "epoch_loss": [float(e[0] / e[1]) if e[1] else float("nan") for e in per_epoch],
        "examples": int(per_epoch[:, 1].sum()),
        "kept": int(per_epoch[:, 2].sum()),
        "words": int(per_epoch[:, 3].sum()),
        "seconds": seconds,
    }


def _fmt_seconds(s):
    if s == float("inf") or s != s:
        return "?"
    s = int(round(s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


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
    :meth:`w2v.corpus.EncodedCorpus.blocks`), noise words and Huffman
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
        need(int((t.noise_table >> np.uint64(32)).max()) < vocab_size, "noise table names a word outside the vocabulary")
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


def train_epochs(encoded, syn0, syn1neg, syn1, tables, settings, progress=None, stop_event=None,
                 rng_states=None, job_tokens=None, position_offset=0, total_positions=None):
    """Train ``settings.epochs`` epochs over an encoded corpus, updating the weights in place.

    Parameters
    ----------
    encoded : w2v.corpus.EncodedCorpus
    syn0, syn1neg, syn1 : numpy.ndarray of float32
        Weights, updated in place (Hogwild across threads).
    tables : Tables
    settings : w2v.settings.Settings
    progress : Progress, optional
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
    dict
        ``epoch_loss`` (mean loss per trained example, per epoch),
        ``examples``, ``words`` (tokens seen) and ``kept`` (after subsampling),
        ``seconds``.
    """
    s = settings
    check_kernel_inputs(syn0, syn1neg, syn1, tables, s, encoded.vocab_size)
    threads = s.threads
    epochs = s.epochs
    length = encoded.length
    total = max(1, epochs * length)
    if rng_states is None:
        rng_states = seed_states(s.seed, threads)
    if job_tokens is None:
        job_tokens = choose_job_tokens(length, threads)
    # per worker, per epoch: [loss, examples, kept, seen]; rows padded to 64 bytes
    stats = np.zeros((threads, epochs, 8), np.float64)
    done = [0]
    epoch_ids = np.zeros(epochs, np.int64)    # ids trained in each epoch (complete at `length`)
    reported = [0]                            # epochs whose end has been reported
    lock = threading.Lock()
    stop_event = stop_event or threading.Event()

    replicas = {}
    # the per-pair mode stays word2vec.c's Hogwild, and so do many threads (MAX_REPLICA_THREADS)
    if 1 < threads <= MAX_REPLICA_THREADS and not s.exact:
        rows = Replica.rows_for(syn0, replica_budget(threads))
        # on a small corpus or vocabulary the rows are merged more often (see merge_intervals)
        intervals = merge_intervals(encoded, tables.keep_threshold, threads, job_tokens)
        if intervals is not None:
            frequent_words, merge_words = intervals
            replicas = {w: Replica(syn0, syn1neg, rows, frequent_words=frequent_words, merge_words=merge_words)
                        for w in range(1, threads)}
    args = kernel_args(s, syn0, syn1neg, syn1, tables)
    worker_args = {w: kernel_args(s, syn0, syn1neg, syn1, tables, replica=r) for w, r in replicas.items()}
    load_seconds = load_kernel(args)   # outside the training time (see load_kernel)

    def run_job(wid, job):
        epoch, pos, ids = job
        train_tokens(ids, position_offset + epoch * length + pos, total_positions or total,
                     *worker_args.get(wid, args), rng_states[wid], stats[wid, epoch])
        with lock:
            done[0] += ids.size
            epoch_ids[epoch] += ids.size

    def report(final=False):
        """A progress line (every ``progress.interval``); each epoch's mean loss as soon as it ends.

        With threads, the next epoch's first jobs run while the last ones of
        an epoch finish; its mean loss is reported once every one has.
        """
        if progress is None:
            return
        with lock:
            first = reported[0]
            ended = first
            while ended < epochs and epoch_ids[ended] >= length:
                ended += 1
            now = done[0]
        if ended > first:   # the epoch's last progress line, then its summary
            st = stats[:, ended - 1, :].sum(axis=0)
            progress.maybe_report(now, st[0], st[1], ended - 1, force=True)
            for e in range(first, ended):
                st = stats[:, e, :].sum(axis=0)
                progress.epoch_done(e, st[0], st[1])
            reported[0] = ended
        elif not final:
            e = min(first, epochs - 1)
            st = stats[:, e, :].sum(axis=0)
            progress.maybe_report(now, st[0], st[1], e)

    t0 = time.perf_counter()

    if threads == 1:
        for job in iter_jobs(encoded, epochs, job_tokens, s.max_sentence_length):
            if stop_event.is_set():
                raise KeyboardInterrupt
            run_job(0, job)
            report()
    else:
        jobs = queue.Queue(maxsize=2 * threads)
        errors = []

        def worker(wid):
            try:
                while True:
                    job = jobs.get()
                    if job is None:
                        return
                    if not stop_event.is_set():
                        run_job(wid, job)
            except BaseException as exc:  # pragma: no cover - surfaced below
                errors.append(exc)
                stop_event.set()
            finally:
                if wid in replicas:   # what it trained reaches the shared weights, even when stopped
                    replicas[wid].merge()

        pool = [threading.Thread(target=worker, args=(w,), daemon=True, name=f"w2v-worker-{w}")
                for w in range(threads)]
        for t in pool:
            t.start()
        try:
            for job in iter_jobs(encoded, epochs, job_tokens, s.max_sentence_length, threads):
                while True:
                    if stop_event.is_set():
                        raise KeyboardInterrupt
                    try:
                        jobs.put(job, timeout=0.2)
                        break
                    except queue.Full:
                        report()
                report()
        except BaseException:
            stop_event.set()
            raise
        finally:
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
                        report()
        if errors:
            raise errors[0]
    seconds = time.perf_counter() - t0
    per_epoch = stats.sum(axis=0)
    report(final=True)   # the epochs that ended since the last report
    return {
        **run_totals(per_epoch, seconds),
        "kernel_load_seconds": load_seconds,
    }


def _drain(q):
    try:
        while True:
            q.get_nowait()
    except queue.Empty:
        pass


def seed_states(seed, threads):
    """Independent per-worker splitmix64 states derived from one seed."""
    ss = np.random.SeedSequence(int(seed) & 0xFFFFFFFFFFFFFFFF)
    return ss.generate_state(threads, dtype=np.uint64).reshape(threads, 1)
