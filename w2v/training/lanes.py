"""Deterministic training: lanes, rounds and a fixed merge, the same vectors at any thread count.

``Word2Vec(deterministic=True)`` (``w2v train --deterministic``) trains so that
the same seed gives bit-identical vectors with 1, 2 or 16 threads, or on a
Dask cluster (:mod:`w2v.distributed`), whatever the timing:

* **Lanes.** The encoded corpus is split into ``lanes`` contiguous pieces
  (8 by default), a number that does not depend on the thread count.
* **Rounds.** In each round every lane trains its next ``round_words`` ids
  (:data:`DEFAULT_ROUND_WORDS` by default) with the unchanged training kernel
  (:func:`w2v.kernels.cpu.train_tokens`), on a private copy of the weights
  as they were at the round's start, with a random state of its own
  (:func:`lane_state`: a function of the run's key, the epoch, the round and
  the lane).  The learning rate is the run's at the round's place in it.
* **Merge.** The rows a lane changed (found by replaying its random draws,
  :func:`w2v.kernels.lanes.lane_pushes`) and its changes are kept, per lane,
  until the round's end.  Then each row gets the sum of the lanes' changes
  (float64, added in lane order: neither the order in which lanes finished
  nor the thread that merges the row changes a bit) times
  ``(1 - exp(-g n)) / (g n)``, ``n`` being the gradient steps the row took
  in the round and ``g = SATURATION[matrix] * alpha`` (see :data:`SATURATION`).
  A row few steps moved gets the sum (what one process would apply: no
  update is lost to an average, as with Spark MLlib's), a row that many
  steps drove to where its examples hold it gets about their mean (the
  lanes' changes do not pile up, as plain sums do).

The threads only choose which lane to run next, and split the merge's rows
between them.  The price: every thread keeps a copy of the weights (only the
rows its lanes use are touched), a round's changes are held until it ends
(for 8 lanes of 1,024 ids of skip-gram about 27,600 rows, 11 MB at dim 100),
and the lanes of a round do not see each other's changes until it ends.
"""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import ParameterError, W2VError
from .fingerprint import corpus_fingerprint
from .kernelcalls import check_kernel_inputs, kernel_args, load_kernel
from ..kernels.cpu import train_tokens
from ..kernels.lanes import fetch_rows, lane_pushes, merge_rows, order_changes, take_lane
from .progress import KernelWatch
from ..settings import DEFAULT_ROUND_WORDS, Settings
from .lifecycle import RunResult, begin_run, run_position, run_totals, seed_states, show_remaining, train_spans

__all__ = ["DEFAULT_LANES", "DEFAULT_ROUND_WORDS", "SATURATION", "LanePlan", "LaneCopy", "RoundChanges",
           "lane_state", "run_key", "train_lanes", "run_deterministic"]

DEFAULT_LANES = Settings.lanes
#: per matrix (syn0, syn1neg, syn1), g / alpha of the merge: how much of the way to where its examples
#: hold it one gradient step takes a row.  Fitted to sequential training of the rounds' lanes one
#: after the other (17M-token wiki slice, skip-gram, 64 lanes of 2,048 ids, at 3%, 18% and 53% of an
#: epoch): syn0 0.035-0.06, syn1neg 0.14-0.24.
SATURATION = (0.04, 0.16, 0.16)
#: the merge rule: "saturation" (above), or "mean": lanes train at ``lanes`` times the learning rate and
#: each row gets the mean of the lanes' changes (w2v.distributed's rule, for comparison)
MERGE = "saturation"


def round_words_of(settings):
    """The ids each lane trains per round: ``settings.round_words`` or :data:`DEFAULT_ROUND_WORDS`."""
    return settings.round_words or DEFAULT_ROUND_WORDS


class LanePlan:
    """The lanes of a stream of ``length`` ids and their rounds of ``round_words`` ids.

    Lane ``k`` holds ids ``[length k / L, length (k + 1) / L)``; in round
    ``r`` of an epoch it trains ids ``[r w, (r + 1) w)`` of its own (fewer in
    its last round).  An epoch has ``rounds`` rounds.
    """

    def __init__(self, length, lanes, round_words):
        self.length = int(length)
        self.lanes = int(lanes)
        self.round_words = int(round_words)
        self.bounds = [(self.length * k // self.lanes, self.length * (k + 1) // self.lanes)
                       for k in range(self.lanes)]
        self.sizes = [b - a for a, b in self.bounds]
        self.rounds = max(1, -(-max(self.sizes) // self.round_words))

    def slices(self, r):
        """Per lane, the ``(start, stop)`` of the stream it trains in round ``r`` (empty once it is done)."""
        w = self.round_words
        return [(min(b, a + r * w), min(b, a + (r + 1) * w)) for a, b in self.bounds]

    def position(self, r):
        """Ids of an epoch the lanes have trained before round ``r``."""
        w = self.round_words
        return sum(min(n, r * w) for n in self.sizes)

    def round_at(self, position):
        """The round that starts ``position`` ids into an epoch.

        Raises
        ------
        ParameterError
            No round starts there (a checkpoint of another plan).
        """
        for r in range(self.rounds + 1):
            if self.position(r) == position:
                return r
        raise ParameterError(f"no round of {self.lanes} lanes of {self.round_words} ids starts {position:,} ids "
                             f"into an epoch of {self.length:,}")


def run_key(saved, seed, new_run):
    """The run's random key (uint64, shape (1, 1)), from which every lane's state derives.

    A resumed run keeps its saved key; a new run on a fresh model takes
    ``seed``'s, and one on a model trained before derives a new key from
    the saved states, so that its draws do not repeat the earlier run's.
    """
    if saved is None:
        return seed_states(seed, 1)
    saved = np.asarray(saved, np.uint64)
    if not new_run and saved.shape == (1, 1):
        return np.array(saved, copy=True)
    return seed_states(int(np.bitwise_xor.reduce(saved.ravel())) ^ 0x5DEECE66D, 1)


def lane_state(key, epoch, r, lane):
    """The random state lane ``lane`` starts round ``r`` of ``epoch`` from (a uint64)."""
    k = int(np.asarray(key).ravel()[0])
    ss = np.random.SeedSequence([k & 0xFFFFFFFF, k >> 32, int(epoch), int(r), int(lane)])
    return ss.generate_state(1, np.uint64)[0]


def lane_positions(done, round_total, size, total):
    """``(pos0, total)`` of the kernel for a lane training ``size`` of a round's ``round_total`` ids.

    The round starts ``done`` ids into a run of ``total``; scaling both by
    ``size / round_total`` makes the learning rate fall along the lane as
    it falls along the whole round (as :mod:`w2v.distributed` does).
    """
    return done * size // round_total, max(1, total * size // round_total)


class LaneCopy:
    """A thread's private copy of the weights and the scratch of the lanes it trains.

    Only the rows a lane uses are brought up to date, as it starts
    (:func:`~w2v.kernels.lanes.fetch_rows`); the others may hold any value.
    """

    def __init__(self, weights, tables, settings):
        self.work = [np.zeros_like(w) for w in weights]   # pages a lane never uses are never touched
        self.tables = tables
        self.settings = settings
        v = max(w.shape[0] for w in self.work)
        self.pushes = np.zeros((3, v), np.int32)
        self.rows = np.empty((3, v), np.int32)
        self.nrows = np.zeros(3, np.int64)
        self.args = kernel_args(settings, *self.work, tables, lr_scale=settings.lanes if MERGE == "mean" else 1.0)

    def train(self, tokens, state, pos0, total, stats, base):
        """Train one lane's round on the copy, from the round's weights ``base``; return the kernel's end state."""
        s, t = self.settings, self.tables
        end = lane_pushes(tokens, t.keep_threshold, t.noise_table, t.hs_points, t.hs_lengths, s.sg,
                          s.sg and s.exact, s.window, s.negative, s.hs, s.max_sentence_length, np.uint64(state),
                          self.pushes, self.rows, self.nrows)
        # the kernel reads no row but those it changes, all listed by the replay
        for w, b, rows, n in zip(self.work, base, self.rows, self.nrows):
            if n:
                fetch_rows(w, b, rows, n)
        rng = np.array([state], np.uint64)
        train_tokens(tokens, pos0, total, *self.args, rng, stats)
        if rng[0] != end:
            raise W2VError("deterministic mode: the lanes' replay of the kernel's random draws went wrong "
                           "(an internal error; please report it)")
        return rng[0]

    def take(self, base, changes, lane):
        """Copy the changes of the lane just trained (``work - base``) into ``changes``, its slot ``lane``."""
        for m, (w, b) in enumerate(zip(self.work, base)):
            n = int(self.nrows[m])
            if n > changes.idx[m].shape[1]:
                raise W2VError("deterministic mode: a lane listed more rows than a round can change "
                               "(an internal error; please report it)")
            if n:
                changes.n[m, lane] = take_lane(w, b, self.rows[m], n, self.pushes[m], changes.idx[m][lane],
                                               changes.lane_deltas(m, lane), changes.counts[m][lane])


def lane_rows(settings, rows, round_words, hs_depth):
    """Per matrix, the most rows one lane can change in a round of ``round_words`` ids (``rows``: each matrix's)."""
    s = settings
    per_id = 1 + s.negative * (2 * s.window if s.sg and s.exact else 1)   # a centre and its noise words
    return [min(rows[0], round_words), min(rows[1], round_words * per_id) if s.negative else 0,
            min(rows[2], round_words * hs_depth) if s.hs else 0]


class RoundChanges:
    """The changes of a round's lanes, kept per lane and merged at the round's end in lane order.

    Per matrix and lane: the rows changed, their changes (float32) and
    pushes, in buffers of the most rows a lane can change (:func:`lane_rows`;
    only the pages used are touched), reused round after round.  The merge
    sums each row's changes in float64 in lane order: the order the lanes
    finish in and the threads that merge change no bit.
    """

    def __init__(self, weights, parts, lanes, caps):
        self.lanes = lanes
        self.parts = parts
        self.n = np.zeros((len(weights), lanes), np.int64)
        self.idx = [np.empty((lanes, c), np.int32) for c in caps]
        self.counts = [np.empty((lanes, c), np.int32) for c in caps]
        self.deltas = [np.empty((lanes * c, w.shape[1]), np.float32) for c, w in zip(caps, weights)]
        self.pos = [np.full(w.shape[0], -1, np.int32) for w in weights]
        self.pushes = [np.zeros(w.shape[0], np.int64) for w in weights]
        # per part: the rows changed, where their changes start in refs, and refs
        most = [min(w.shape[0], lanes * c) for c, w in zip(caps, weights)]
        self.union = [np.empty((parts, u), np.int32) for u in most]
        self.start = [np.zeros((parts, u + 1), np.int64) for u in most]
        self.refs = [np.empty((parts, lanes * c), np.int64) for c in caps]

    def lane_deltas(self, m, lane):
        """Lane ``lane``'s buffer of changes of matrix ``m``."""
        cap = self.idx[m].shape[1]
        return self.deltas[m][lane * cap:(lane + 1) * cap]

    def merge(self, weights, alpha, pool=None):
        """Merge the round into ``weights`` (at learning rate ``alpha``) and into every copy; start a new round.

        The rows are split into one part per copy, merged on ``pool``'s threads (no effect on the result).
        """
        active = [(m, (0.0, 1.0 / self.lanes) if MERGE == "mean" else (SATURATION[m] * alpha, 1.0))
                  for m in range(len(weights)) if self.n[m].any()]

        def part(p):
            for m, (gamma, scale) in active:
                union, start, refs = self.union[m][p], self.start[m][p], self.refs[m][p]
                nu = order_changes(self.idx[m], self.counts[m], self.n[m], self.pushes[m], self.pos[m], start,
                                   refs, union, p, self.parts)
                if nu and not merge_rows(weights[m], union, nu, start, refs, self.deltas[m], self.pushes[m],
                                         self.pos[m], gamma, scale):
                    raise W2VError("deterministic training diverged: a round changed a weight by 4096 or "
                                   "more (lower alpha or round_words)")

        if pool is None:
            for p in range(self.parts):
                part(p)
        else:   # the kernels release the GIL
            for f in [pool.submit(part, p) for p in range(self.parts)]:
                f.result()
        self.n[:] = 0


class _LaneRun:
    """The rounds of one :func:`train_lanes` call: lanes taken by a pool of threads, merged at each round's end."""

    def __init__(self, encoded, weights, tables, settings, plan, key, schedule):
        self.encoded = encoded
        self.weights = list(weights)
        self.tables = tables
        self.settings = settings
        self.plan = plan
        self.key = key
        self.epoch0, self.first_round, self.total = schedule
        # a copy of the weights per thread that can work: no more than the lanes of a round
        workers = max(1, min(settings.threads, plan.lanes))
        self.copies = [LaneCopy(self.weights, tables, settings) for _ in range(workers)]
        caps = lane_rows(settings, [w.shape[0] for w in self.weights], plan.round_words, tables.hs_points.shape[1])
        try:
            self.changes = RoundChanges(self.weights, workers, plan.lanes, caps)
        except MemoryError:
            raise ParameterError(f"deterministic mode: no memory for the changes of a round of {plan.lanes} lanes "
                                 f"of {plan.round_words:,} ids (lower lanes or round_words)") from None
        self.stats = np.zeros((settings.epochs, plan.lanes, 4), np.float64)   # per lane: summed in lane order
        self.ids = encoded.stream.read(0, encoded.length) if not encoded.on_disk else None

    def tokens(self, a, b):
        """Ids ``[a, b)`` of the stream (checked against the vocabulary)."""
        if self.ids is not None:
            return self.ids[a:b]
        ids = self.encoded.stream.read(a, b - a)
        if ids.size and (int(ids.min()) < -1 or int(ids.max()) >= self.encoded.vocab_size):
            raise W2VError("encoded corpus holds an id outside the vocabulary")
        return ids

    def lane_jobs(self, e, r):
        """The round's lanes that train: ``(lane, start, stop, state, pos0, total)``; and the round's first id."""
        plan = self.plan
        slices = plan.slices(r)
        round_total = max(1, sum(b - a for a, b in slices))
        done = (self.epoch0 + e) * plan.length + plan.position(r)
        jobs = []
        for k, (a, b) in enumerate(slices):
            if b > a:
                pos0, total = lane_positions(done, round_total, b - a, self.total)
                jobs.append((k, a, b, lane_state(self.key, self.epoch0 + e, r, k), pos0, total))
        return jobs, done

    def run_round(self, e, r, pool):
        """Train round ``r`` of epoch ``e`` (of this call) and merge it; return the ids it trained."""
        jobs, done = self.lane_jobs(e, r)
        # the ids are read here, in order: the threads never share the temporary file of an on-disk stream
        jobs = [(job, self.tokens(job[1], job[2])) for job in jobs]
        pending = iter(jobs)
        lock = threading.Lock()

        def next_job():
            with lock:
                return next(pending, None)

        if pool is None:
            self.train_lanes_on(self.copies[0], next_job, e)
        else:   # one task per copy, each training lanes until none is left
            for f in [pool.submit(self.train_lanes_on, c, next_job, e) for c in self.copies[:len(jobs)]]:
                f.result()
        s = self.settings
        alpha = max(s.min_alpha, s.alpha - (s.alpha - s.min_alpha) * min(1.0, done / self.total))
        self.changes.merge(self.weights, alpha, pool)
        return sum(ids.size for _, ids in jobs)

    def checkpoint(self, checkpoints, done, e, r):
        """Save a checkpoint before round ``r`` of epoch ``e`` (of this call)."""
        position = self.plan.position(r)
        fraction = ((self.epoch0 + e) * self.plan.length + position) / self.total
        checkpoints.save_mid(done, self.epoch0 + e, position, fraction, mode="lanes",
                             epoch_stats=[float(x) for x in self.stats[e].sum(axis=0)], round=r,
                             lanes=self.plan.lanes, round_words=self.plan.round_words)

    def train_lanes_on(self, copy, next_job, e):
        """Train lanes on ``copy`` while ``next_job()`` gives one; keep their changes for the round's merge."""
        item = next_job()
        while item is not None:
            (k, a, b, state, pos0, total), ids = item
            stats = np.zeros(8, np.float64)
            copy.train(ids, state, pos0, total, stats, self.weights)
            copy.take(self.weights, self.changes, k)
            item = next_job()
            self.stats[e, k] += stats[:4]


def train_lanes(encoded, weights, tables, settings, key, progress=None, stop_event=None, position_offset=0,
                total_positions=None, start=0, checkpoints=None, start_stats=None):
    """Train ``settings.epochs`` epochs in deterministic mode, updating ``weights`` in place.

    Parameters
    ----------
    encoded : w2v.text.encoded.EncodedCorpus
    weights : tuple of numpy.ndarray
        ``(syn0, syn1neg, syn1)``.
    tables : w2v.training.sampling.Tables
    settings : w2v.settings.Settings
        ``lanes``, ``round_words`` and ``threads`` (who trains the lanes: no effect on the result).
    key : numpy.ndarray
        The run's random key (:func:`run_key`).
    progress, stop_event, position_offset, total_positions :
        As :func:`w2v.training.hogwild.train_epochs`; ``position_offset`` is a multiple of the stream's length.
    start : int
        Ids of the first epoch trained already: where a round starts (:meth:`LanePlan.round_at`).
    checkpoints : w2v.model.checkpoints.Checkpointer, optional
        Asked after every round whether a checkpoint is due.
    start_stats : sequence of float, optional
        ``[loss, examples, kept, seen]`` of the ids trained before ``start``, counted in the first epoch.

    Returns
    -------
    w2v.training.lifecycle.RunResult
    """
    s = settings
    syn0, syn1neg, syn1 = weights
    check_kernel_inputs(syn0, syn1neg, syn1, tables, s, syn0.shape[0])
    length = encoded.length
    plan = LanePlan(length, s.lanes, round_words_of(s))
    total = total_positions or max(1, s.epochs * length)
    run = _LaneRun(encoded, weights, tables, s, plan, key, (position_offset // max(1, length),
                                                            plan.round_at(start) if start else 0, total))
    with KernelWatch(on_compile=None if progress is None else progress.message):
        load_seconds = load_kernel(kernel_args(s, *run.copies[0].work, tables))
        lane_pushes(np.zeros(0, np.int32), tables.keep_threshold, tables.noise_table, tables.hs_points,
                    tables.hs_lengths, s.sg, s.sg and s.exact, s.window, s.negative, s.hs, s.max_sentence_length,
                    np.uint64(0), run.copies[0].pushes, run.copies[0].rows, run.copies[0].nrows)
    if start_stats is not None:
        run.stats[0, 0] += np.asarray(start_stats, np.float64)
    t0 = time.perf_counter()
    done = 0
    workers = len(run.copies)
    pool = ThreadPoolExecutor(workers, thread_name_prefix="w2v-lane") if workers > 1 else None
    try:
        for e in range(s.epochs):
            for r in range(run.first_round if e == 0 else 0, plan.rounds):
                if stop_event is not None and stop_event.is_set():
                    raise KeyboardInterrupt
                done += run.run_round(e, r, pool)
                if checkpoints is not None and r + 1 < plan.rounds and checkpoints.due(done):
                    run.checkpoint(checkpoints, done, e, r + 1)
                if progress is not None:
                    st = run.stats[e].sum(axis=0)
                    progress.maybe_report(done, st[0], st[1], e)
            if progress is not None:
                st = run.stats[e].sum(axis=0)
                progress.maybe_report(done, st[0], st[1], e, force=True)
                progress.epoch_done(e, st[0], st[1])
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    seconds = time.perf_counter() - t0
    return RunResult(**run_totals(run.stats.sum(axis=1), seconds), kernel_load_seconds=load_seconds,
                     details={"deterministic": True, "lanes": plan.lanes, "round_words": plan.round_words})


def run_deterministic(model, progress=None, stop_event=None, on_epoch_end=None, checkpoints=None):
    """Run (or continue) a training run over the model's encoded corpus in deterministic mode.

    As :func:`w2v.training.hogwild.run_epochs` (same schedule, epochs and resume
    rules), with lanes and rounds (:func:`train_lanes`): the same seed, lanes
    and round size give the same vectors at any thread count.  The model's
    random state is the run's key (shape (1, 1)).

    Returns
    -------
    w2v.training.lifecycle.RunResult
    """
    s = model.settings
    enc = model.encoded_corpus
    first = begin_run(model, enc.length, enc.n_words, fingerprint=corpus_fingerprint(enc), mode="lanes")
    resumed = bool(first or run_position(model))
    key = run_key(model.rng_states, s.seed, new_run=not resumed)
    model.set_rng_states(key)
    show_remaining(progress, first, s.epochs, enc.length, run_position(model))

    start_stats = (model.run_state or {}).get("epoch_stats")

    def train_span(sub, shown, offset, total, start=0):
        return train_lanes(enc, (model.syn0, model.syn1neg, model.syn1), model.tables, sub, key, progress=shown,
                           stop_event=stop_event, position_offset=offset, total_positions=total, start=start,
                           checkpoints=checkpoints, start_stats=start_stats if start else None)

    return train_spans(model, first, train_span, progress, on_epoch_end)
