"""The driver of a Dask training run: :func:`train_distributed`, step by step.

1. connect: wait for a worker, start loading the kernels on every worker;
2. the corpus (:mod:`w2v.distributed.vocabulary`): shards in lanes, counted,
   a vocabulary (a new one, or the model's), encoded where they lie;
3. the run: recorded in the model's run state (a checkpoint's run continues),
   the weights broadcast to the workers;
4. the rounds (:mod:`w2v.distributed.rounds`), with the statistics, progress
   and log of each; at each epoch's end the model's result is updated and
   ``on_epoch_end`` called (a checkpoint);
5. the workers' replicas dropped, the run's result recorded.

The model's state changes only through its public methods (``set_vocabulary``,
``set_corpus``, ``start_run``, ``finish_epochs``, ``record_run``).
"""
import contextlib
import os
import threading
import time
import uuid

import numpy as np

from ..errors import ParameterError, VocabularyError
from ..training.progress import Progress
from ..training.lifecycle import RunResult, begin_run, run_totals, show_remaining
from .cluster import CALL_SECONDS, Cluster, require_distributed, scheduler_workers
from .merge import merge_rule
from .plan import RoundPlan, ShardPlan, choose_round_words
from .rounds import Rounds
from .vocabulary import LaneTasks, deal_lanes, encode_on_cluster
from .worker import PINNED_TASKS, forget_run, load_round_kernels, start_kernel_load_task


def train_distributed(model, corpus, client, quiet=True, progress_stream=None, on_epoch_end=None,
                      round_words=None, merge="scaled", merge_ranges=None, shard_bytes=None, retries=2,
                      _round_hook=None):
    """Train ``model`` on a Dask cluster (see :mod:`w2v.distributed`).

    A model without a vocabulary gets one from the corpus (counted by the
    workers); a model that has one (loaded, or a checkpoint) keeps it and its
    weights, and an unfinished run over a corpus of the same encoded length
    continues with its remaining epochs, as :meth:`w2v.model.word2vec.Word2Vec.train`.

    Parameters
    ----------
    model : w2v.model.word2vec.Word2Vec
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
        Tokens each worker trains per round.  By default they are chosen from
        the corpus and the workers (:func:`w2v.distributed.plan.choose_round_words`);
        a value outside the range that keeps the vectors' quality gets a
        :class:`~w2v.distributed.plan.RoundWordsWarning`.
    merge : {"scaled", "mean", "touched"} or MergeRule
        How the workers train and their rows are merged (see :mod:`w2v.distributed.merge`).
    merge_ranges : int, optional
        Ranges of rows, one merge task each (default: one per worker; 1: a
        single merge task that gathers every worker's rows).
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
    corpus, round_words, rule = _checked_arguments(corpus, round_words, merge, merge_ranges)
    run = _DaskRun(model, client, retries, quiet, progress_stream)
    try:
        run.connect()
        run.prepare_corpus(corpus, shard_bytes)
        run.start(round_words, rule, merge_ranges, _round_hook)
        run.train_rounds(on_epoch_end)
    finally:
        run.close()
    epochs = model.settings.epochs
    model.record_run(model.last_train if run.first < epochs else run.result(epochs, 0.0))
    return model


def _checked_arguments(corpus, round_words, merge, merge_ranges):
    # (absolute corpus paths, round_words or None, merge rule), or the error of an argument
    if corpus is None:
        raise VocabularyError("distributed training needs the corpus paths: train(corpus, client=...)")
    rule = merge_rule(merge)
    if round_words is not None:
        round_words = int(round_words)
        if round_words < 1:
            raise ParameterError("round_words must be >= 1")
    if merge_ranges is not None and int(merge_ranges) < 1:
        raise ParameterError("merge_ranges must be >= 1")
    if isinstance(corpus, (str, os.PathLike)):
        corpus = [corpus]
    return [p if p == "-" else os.path.abspath(p) for p in map(os.fspath, corpus)], round_words, rule


class _DaskRun:
    """One run's driver state: the cluster, the sharded corpus, the rounds and their statistics."""

    def __init__(self, model, client, retries, quiet, progress_stream):
        self.model = model
        self.settings = model.settings
        self.client = client
        self.cluster = Cluster(client, PINNED_TASKS)
        self.retries = retries
        self.quiet = quiet
        self.progress_stream = progress_stream
        self.reporter = _reporter(model.settings, progress_stream, quiet)
        self.run_id = uuid.uuid4().hex
        self.started = time.perf_counter()
        self.held = []   # futures the run holds until it ends
        self.log = []    # one entry per merged round

    def connect(self):
        """Wait for a worker; load the kernels on every worker, and the update kernel here, meanwhile."""
        self.workers = scheduler_workers(self.cluster)
        self.addresses = list(self.workers)   # the order of the per-worker figures of the rounds
        # each worker starts loading its kernels in a thread of its own and answers at once; a worker
        # that cannot answer (lost meanwhile) loads them with its first task instead
        self.cluster.call(self.client.run, start_kernel_load_task, self.settings, on_error="ignore",
                          what="starting to load the kernels on the workers", seconds=CALL_SECONDS)
        self.apply_loader = threading.Thread(target=load_round_kernels, args=(self.settings.dim, False),
                                             daemon=True)
        self.apply_loader.start()

    def prepare_corpus(self, corpus, shard_bytes):
        """Shards in lanes, a vocabulary (new or the model's) and the shards encoded, on the workers."""
        s = self.settings
        self.shard_plan = ShardPlan.make(corpus, shard_bytes, self.workers)
        self.tasks = LaneTasks(self.cluster, self.shard_plan, self.retries)
        # stacklevel 4: the corpus warning points at train_distributed's caller (Word2Vec.train)
        sharded = encode_on_cluster(self.tasks, s, self.model.vocab, corpus, self.held, stacklevel=4)
        self.sharded = sharded
        if sharded.fresh:
            self.model.set_vocabulary(sharded.vocab)
        seconds = time.perf_counter() - self.started
        # the corpus stays on the workers: nothing encoded here
        self.model.set_corpus(None, sharded.n_tokens, self.shard_plan.corpus_files, vocab_seconds=seconds)
        if not self.quiet:
            self.reporter.message(
                f"vocabulary: {len(sharded.vocab):,} words (min_count={s.min_count}) covering "
                f"{sharded.n_words:,} of {sharded.n_tokens:,} tokens; {len(self.shard_plan.shards)} shards in "
                f"{len(self.shard_plan.lanes)} lanes on {len(self.workers)} Dask workers ({seconds:.1f}s)")

    def start(self, round_words, rule, merge_ranges, round_hook):
        """Record the run in the model (or continue its checkpoint's), plan the rounds, send the weights."""
        from ..training.kernelcalls import check_kernel_inputs, kernel_params

        model, s, sharded = self.model, self.settings, self.sharded
        length = sharded.length
        # the same corpus: the same number of in-vocabulary tokens (the stream length can
        # differ by a few sentence boundaries where shards were cut inside a line)
        self.first = _begin_run(model, length, sharded.n_words, stacklevel=5)   # warns at the user's train call
        lanes = len(self.shard_plan.lanes)
        self.round_words = choose_round_words(length, lanes, round_words, stacklevel=5)
        lane_parts, lane_lengths = deal_lanes(self.tasks, sharded)
        self.held.extend(f for parts in lane_parts for f in parts)
        self.plan = RoundPlan.make(lane_lengths, self.round_words, rule, ranges=min(lanes, merge_ranges or lanes),
                                   alpha=s.alpha, min_alpha=s.min_alpha, epochs=s.epochs)
        check_kernel_inputs(model.syn0, model.syn1neg, model.syn1, model.tables, s, len(model.vocab))
        self.weights = [model.syn0, model.syn1neg, model.syn1]
        setup = {"tables": model.tables, "params": dict(kernel_params(s), seed=s.seed)}
        # the lanes' streams hold a sentence end after every block: the schedule runs over their ids
        self.progress = _run_progress(model, self.first, self.plan.length, self.progress_stream, self.quiet)
        self.earlier_ticks = (model.run_state or {}).get("progress")   # of a resumed checkpoint
        self.stats = np.zeros((s.epochs, 4), np.float64)
        self.rounds = Rounds(self.tasks, self.plan, self.run_id, lane_parts, self.weights, setup,
                             max(1, s.epochs * self.plan.length), self.reporter, self.held, round_hook)
        self.rounds.broadcast()

    def train_rounds(self, on_epoch_end):
        """Every round of the remaining epochs, with its statistics, log entry and progress."""
        epochs = self.settings.epochs
        schedule = [(epoch, r) for epoch in range(self.first, epochs) for r in range(self.plan.n_rounds)]
        self.apply_loader.join()
        t_train = time.perf_counter()
        previous_got, previous_wall_end = t_train, time.time()
        done = 0
        for merged in self.rounds.run(schedule):
            spec = merged.spec
            epoch = spec["epoch"]
            for lane in merged.lanes:
                self.stats[epoch] += lane["stats"]
            done += spec["round_total"]
            self.log.append(merged.log_entry(previous_got, previous_wall_end, self.addresses))
            previous_got, previous_wall_end = merged.got, merged.wall_end
            last = spec["round"] == self.plan.n_rounds - 1   # an epoch's end is always reported, and once
            self.progress.maybe_report(done, self.stats[epoch, 0], self.stats[epoch, 1], epoch, force=last)
            if last:
                self.progress.epoch_done(epoch, self.stats[epoch, 0], self.stats[epoch, 1])
                self.model.finish_epochs(epoch + 1, self.result(epoch + 1, time.perf_counter() - t_train))
                if on_epoch_end is not None:
                    on_epoch_end(epoch)

    def close(self):
        """Drop the workers' replicas of the run and the futures it holds."""
        if self.cluster.alive():
            with contextlib.suppress(Exception):   # a worker lost meanwhile has nothing to drop
                self.cluster.call(self.client.run, forget_run, self.run_id, on_error="ignore",
                                  what="dropping the run's replicas", seconds=CALL_SECONDS)
        self.held.clear()

    def result(self, stop, seconds):
        """The run's result: epochs ``first..stop`` trained in ``seconds``."""
        return _run_result(self, stop, seconds)


# ------------------------------------------------------------------ the run bookkeeping shared with the other devices
def _begin_run(model, length, n_words, stacklevel):
    # w2v.training.lifecycle.begin_run with the Dask run's test of "the same corpus" (stacklevel as warnings.warn's)
    return begin_run(model, length, n_words, same_corpus=lambda st: st.get("corpus_words") == n_words,
                     sharded=True, stacklevel=stacklevel + 1)


def _reporter(settings, stream, quiet):
    # the progress object that prints the run's messages
    return Progress(1, settings, stream=stream, quiet=quiet)


def _run_progress(model, first, length, stream, quiet):
    # progress over every epoch of the run, resumed at epoch first
    epochs = model.settings.epochs
    progress = Progress(max(1, epochs * length), model.settings, stream=stream, quiet=quiet,
                        words_per_id=model.corpus_tokens / max(1, length))
    show_remaining(progress, first, epochs, length)   # % and rate of the whole run
    return progress


def _run_result(run, stop, seconds):
    # the result of a Dask run (model.last_train): built here only

    log = run.log
    mean = (lambda key: float(np.mean([x[key] for x in log]))) if log else (lambda key: 0.0)
    slowest = (lambda key: float(np.mean([max(x[key], default=0.0) for x in log]))) if log else (lambda key: 0.0)
    n_workers = len(run.workers)
    return RunResult(**run_totals(run.stats[run.first:stop], seconds), first_epoch=run.first, device="dask",
                     progress=run.progress.run_ticks(run.earlier_ticks), details={
        "distributed": {
            "workers": n_workers, "lanes": len(run.shard_plan.lanes), "shards": len(run.shard_plan.shards),
            "merge": run.plan.rule.name, "merge_ranges": run.plan.ranges, "round_words": run.round_words,
            "rounds_per_epoch": run.plan.n_rounds, "rounds": len(log), "stream_length": int(run.plan.length),
            "initial_broadcast_bytes": int(sum(w.nbytes for w in run.weights)) * n_workers,
            "bytes_up_per_round": mean("bytes_up"), "bytes_down_per_round": mean("bytes_down"),
            "round_seconds": mean("seconds"), "train_seconds_per_round": slowest("train_seconds"),
            "merge_seconds_per_round": slowest("merge_seconds"),
            "fallbacks": int(sum(x["fallbacks"] for x in log)),
            "log": log,
        },
    })
