"""The run lifecycle every device shares (CPU, CUDA, Dask): begin a run, train its spans, its result.

A *run* is ``settings.epochs`` epochs with one learning-rate schedule.
:func:`begin_run` records it in the model (or continues an unfinished one, a
checkpoint); :func:`train_spans` trains its epochs through a device's
``train_span`` callable, one span in all or one per epoch when an
``on_epoch_end`` hook needs every epoch to end; the result of a run is a
:class:`RunResult`.  The per-worker random states of a run continue from the
model's (:func:`continued_states`), so that a resumed run draws what an
uninterrupted one would.
"""
import dataclasses
import time

import numpy as np

from ..errors import ParameterError, ResumeWarning
from ..util.caller_warnings import warn
from ..settings import DEFAULT_ROUND_WORDS
from ..text.recorded import file_stamps

__all__ = ["RunResult", "TICK_COLUMNS", "ROUND_KEYS", "MID_EPOCH_KEYS", "run_totals", "merge_results",
           "seed_states", "continued_states", "begin_run", "run_position", "show_remaining", "train_spans"]


#: the fields of a progress tick (:attr:`RunResult.progress`, ``--report-json``'s ``progress``)
TICK_COLUMNS = ("segment", "seconds", "fraction", "epoch", "words_per_sec", "learning_rate", "loss")
#: the keys of an entry of ``--report-json``'s ``rounds`` (a Dask run: one entry per round)
ROUND_KEYS = ("epoch", "round", "workers", "tokens", "wall_seconds", "train_seconds", "merge_seconds",
              "sent_bytes", "received_bytes")


@dataclasses.dataclass
class RunResult:
    """What a training run (or the epochs of it that one call trained) did.

    Attributes
    ----------
    epoch_loss : list of float
        Mean loss per trained example of each epoch trained (nan where an
        epoch had no example).
    examples : int
        Examples trained (center-context pairs, or windows for CBOW).
    kept : int
        Tokens kept after subsampling.
    words : int
        Tokens seen (in-vocabulary, every epoch).
    seconds : float
        Training time.
    first_epoch : int
        The run's first epoch trained here (> 0 when a checkpoint was resumed).
    kernel_load_seconds : float or None
        Loading (CPU) or compiling (CUDA) the training kernel, outside ``seconds``.
    device : str
        ``"cpu"``, ``"cuda"`` (``"cuda-simulator"`` on Numba's simulator) or ``"dask"``.
    details : dict
        Device-specific figures (CUDA launch figures, Dask's ``distributed`` block).
    progress : list of list
        The run's progress ticks, about 100 (rows of :data:`TICK_COLUMNS`), those of
        the processes that trained a resumed checkpoint's first epochs included (segments 0, 1, ...).
    epoch_examples : list of int
        Examples trained in each epoch of ``epoch_loss``.
    """

    epoch_loss: list
    examples: int
    kept: int
    words: int
    seconds: float
    first_epoch: int = 0
    kernel_load_seconds: float = None
    device: str = "cpu"
    details: dict = dataclasses.field(default_factory=dict)
    progress: list = dataclasses.field(default_factory=list)

    def progress_report(self):
        """The progress of the run, as ``--report-json`` keeps it and :func:`w2v.plot.training` draws it.

        Returns
        -------
        dict
            ``progress``: ``{"columns": TICK_COLUMNS, "ticks": [...]}``, about 100 rows: in
            ``segment`` (0, then 1, ... for the processes that continued a checkpoint) after
            ``seconds`` of training, ``fraction`` of the run done, in ``epoch`` (1-based), the
            ``words_per_sec`` since the previous tick, the ``learning_rate`` and the running
            ``loss`` of the epoch (null before its first example).  ``rounds`` (a Dask run):
            one entry per round with the keys :data:`ROUND_KEYS`: the ``epoch`` and ``round``
            (1-based), the ``workers`` that ran its tasks, the ``tokens`` the cluster trained,
            ``wall_seconds`` on the driver from the previous round's merged update (the first
            round: its submission) to this one's, and per worker or merge task
            ``train_seconds``, ``merge_seconds``, ``sent_bytes`` and ``received_bytes``
            (:mod:`w2v.distributed.report`).
        """
        report = {"progress": {"columns": list(TICK_COLUMNS), "ticks": [list(r) for r in self.progress]}}
        log = self.details.get("distributed", {}).get("log")
        if log:
            report["rounds"] = [dict({k: x[k] for k in ROUND_KEYS}, epoch=x["epoch"] + 1, round=x["round"] + 1)
                                for x in log]
        return report
    epoch_examples: list = dataclasses.field(default_factory=list)

    @property
    def loss_sum(self):
        """The loss summed over every example trained (gensim's ``running_training_loss``)."""
        return float(sum(loss * n for loss, n in zip(self.epoch_loss, self.epoch_examples) if n))


def run_totals(per_epoch, seconds):
    """The common part of a run's result from rows ``[loss sum, examples, kept, words]`` per epoch.

    Returns
    -------
    dict
        ``epoch_loss`` (the mean loss per example of each epoch, nan where it
        had none), ``examples``, ``kept``, ``words``, ``seconds`` and
        ``epoch_examples``: fields of a :class:`RunResult`.
    """
    per_epoch = np.asarray(per_epoch)
    return {
        "epoch_loss": [float(e[0] / e[1]) if e[1] else float("nan") for e in per_epoch],
        "examples": int(per_epoch[:, 1].sum()),
        "kept": int(per_epoch[:, 2].sum()),
        "words": int(per_epoch[:, 3].sum()),
        "seconds": seconds,
        "epoch_examples": [int(e[1]) for e in per_epoch],
    }


def merge_results(results, first):
    """One :class:`RunResult` of the spans of a run (:func:`train_spans`) that began at epoch ``first``."""
    return RunResult(
        epoch_loss=[loss for r in results for loss in r.epoch_loss],
        examples=sum(r.examples for r in results),
        kept=sum(r.kept for r in results),
        words=sum(r.words for r in results),
        seconds=sum(r.seconds for r in results),
        kernel_load_seconds=sum(r.kernel_load_seconds or 0.0 for r in results),
        first_epoch=first,
        device=results[-1].device if results else "cpu",
        epoch_examples=[n for r in results for n in r.epoch_examples],
        details=dict(results[-1].details) if results and results[-1].details else {},
    )


def seed_states(seed, threads):
    """Independent per-worker splitmix64 states derived from one seed: uint64, shape (threads, 1)."""
    ss = np.random.SeedSequence(int(seed) & 0xFFFFFFFFFFFFFFFF)
    return ss.generate_state(threads, dtype=np.uint64).reshape(threads, 1)


def continued_states(saved, threads, seed):
    """The random states a run of ``threads`` workers starts from.

    A resumed run continues its saved random states; a new one too if the
    model was trained (or loaded) before, so that its next epochs do not
    repeat the first ones' random choices.  States saved for another number
    of threads seed new ones from all of them; without any (a fresh model)
    they come from ``seed``.

    Parameters
    ----------
    saved : numpy.ndarray of uint64, optional
        The model's states, shape (threads they were saved with, 1).
    threads : int
    seed : int

    Returns
    -------
    numpy.ndarray of uint64, shape (threads, 1)
        ``saved`` itself when its shape fits (the kernels advance it in place).
    """
    if saved is None:
        return seed_states(seed, threads)
    saved = np.asarray(saved, np.uint64)
    if saved.shape == (threads, 1):
        return saved
    return seed_states(int(np.bitwise_xor.reduce(saved.ravel())), threads)   # other thread count


def begin_run(model, length, n_words, same_corpus=None, stacklevel=4, sharded=False, fingerprint=None,
              mode=None):
    """Record the run about to train in the model (:meth:`~w2v.model.word2vec.Word2Vec.start_run`); return
    its first epoch.

    Every training path (CPU, CUDA, Dask) starts here.  An unfinished run
    (a checkpoint: ``epochs_done < epochs`` and some of it trained) over the
    same corpus continues from ``epochs_done``, and from ``position`` ids
    into that epoch when it was saved mid-epoch (:func:`run_position`); over
    another corpus a new run starts and a :class:`ResumeWarning` says so;
    otherwise a new run starts at epoch 0.

    Parameters
    ----------
    model : w2v.model.word2vec.Word2Vec
    length, n_words : int
        The encoded corpus' length (ids and sentence ends) and in-vocabulary tokens.
    same_corpus : callable, optional
        ``same_corpus(run_state) -> bool``; default: the recorded
        ``corpus_length`` equals ``length``.  Where both the run state and
        ``fingerprint`` hold a corpus fingerprint, the hashes must be equal too.
    stacklevel : int
        Of the warning, so that it points at the user's ``train`` call.
    sharded : bool
        The run reads the corpus in shards (Dask), whose stream length
        depends on where the shards were cut: recorded in the run's state, so
        that a checkpoint of it is recognised as the same corpus by its count
        of in-vocabulary tokens wherever it is resumed (one process, or Dask
        with other shards).
    fingerprint : dict, optional
        The corpus' fingerprint (:mod:`w2v.training.fingerprint`), recorded in the run's state.
    mode : {"jobs", "lanes"}, optional
        How this run can stop mid-epoch: ``"jobs"`` (the CPU's Hogwild runner:
        a prefix of the epoch's stream is trained), ``"lanes"`` (deterministic
        mode: rounds of every lane, :mod:`w2v.training.lanes`) or None (only at epoch ends).

    Returns
    -------
    int
        The first epoch to train.

    Raises
    ------
    ParameterError
        The unfinished run over the same corpus has done ``settings.epochs``
        epochs or more: nothing would be trained; or it stopped mid-epoch in
        a way this run cannot continue (another mode, lanes or round size, or a
        position outside this corpus).
    """
    epochs = model.settings.epochs
    same = _same_corpus(same_corpus, length, n_words, fingerprint)
    first, position = 0, 0
    state = model.run_state
    if _unfinished(state):
        if same(state):
            first, position = int(state["epochs_done"]), int(state.get("position", 0))
            if first >= epochs:
                # it trained nothing, and recorded the run as finished at `epochs`
                raise ParameterError(
                    f"the model holds an unfinished run: {first} of {state['epochs']} epochs done; "
                    f"epochs={epochs} leaves none to train: give more than {first} to continue it")
            if position:
                _check_mid_epoch(state, model.settings, mode, length)
        else:
            warn(
                f"the model holds an unfinished run ({state['epochs_done']} of {state['epochs']} epochs) "
                f"over another corpus ({_corpus_text(state, length, n_words, fingerprint)}); "
                f"starting a new run of {epochs} epochs", ResumeWarning, stacklevel=stacklevel)
    new_state = {"epochs": epochs, "epochs_done": first, "corpus_length": int(length),
                 "corpus_words": int(n_words), **_corpus_record(model.corpus_files)}
    if sharded:
        new_state["sharded"] = True
    if fingerprint:
        new_state["corpus_fingerprint"] = dict(fingerprint)
    if (first or position) and state.get("progress"):   # the ticks of the processes that trained its start
        new_state["progress"] = state["progress"]
    if position:
        new_state.update({k: state[k] for k in MID_EPOCH_KEYS if k in state})
    model.start_run(new_state)
    return first


def _corpus_record(files):
    # the corpus' files, with the size and time of each that --resume checks before it reads them again
    stamps = file_stamps(files)
    return {"corpus_files": files} if stamps is None else {"corpus_files": files, "corpus_file_stamps": stamps}


#: what a run state saved mid-epoch adds: ids of epoch ``epochs_done`` trained, how (``mode``), the
#: epoch's statistics so far, and for lanes the round and its plan
MID_EPOCH_KEYS = ("position", "mode", "epoch_stats", "round", "lanes", "round_words")


def _same_corpus(same_corpus, length, n_words, fingerprint):
    # begin_run's test of a saved run's corpus: the caller's, or the length (Dask: the words); and the hash
    base_same = same_corpus
    if base_same is None:
        def base_same(st):
            if st.get("sharded"):   # written by Dask: its stream length depends on the shard cuts
                return st.get("corpus_words") == n_words
            return st.get("corpus_length") == length

    def same(st):
        fp = st.get("corpus_fingerprint")
        return base_same(st) and not (fp and fingerprint and fp.get("hash") != fingerprint.get("hash"))
    return same


def _unfinished(state):
    # a run of which something but not everything was trained
    if not state:
        return False
    done, epochs, position = state.get("epochs_done", 0), state.get("epochs", 0), state.get("position", 0)
    return done < epochs and (done > 0 or position > 0)


def _corpus_text(state, length, words, fingerprint):
    # how the saved run's corpus differs from this one: its size, or (same size) its fingerprint's hash
    saved = (state.get("corpus_length"), state.get("corpus_words"))
    if saved != (length, words) or not fingerprint or not state.get("corpus_fingerprint"):
        return f"{saved[0]} ids and {saved[1]} words, this one has {length} and {words}"
    return (f"{length} ids and {words} words as this one, but hash {state['corpus_fingerprint']['hash'][:12]}, "
            f"this one's {fingerprint['hash'][:12]}")


def _check_mid_epoch(state, settings, mode, length):
    # a run saved mid-epoch continues only where the same positions mean the same work, inside this corpus
    saved = state.get("mode")
    where = f"the checkpoint stopped {state['position']:,} ids into epoch {state['epochs_done'] + 1}"
    if not 0 < state["position"] < length:   # a loaded model's is checked against its corpus_length too
        raise ParameterError(f"{where}, outside this corpus of {length:,} ids: nothing of that epoch can be "
                             "resumed; the run state is not this corpus' (or was edited)")
    kind = "deterministic mode" if saved == "lanes" else "Hogwild mode"
    if mode is None:
        raise ParameterError(f"{where} ({kind}); only the CPU resumes within an epoch: resume it on the CPU"
                             + (" with deterministic=True" if saved == "lanes" else ""))
    if saved != mode:
        raise ParameterError(f"{where} in {kind}; resume it {'with' if saved == 'lanes' else 'without'} "
                             "deterministic=True (--deterministic)")
    if mode == "lanes":
        from_settings = (settings.lanes, settings.round_words or DEFAULT_ROUND_WORDS)
        if (state.get("lanes"), state.get("round_words")) != from_settings:
            raise ParameterError(f"{where} with {state.get('lanes')} lanes of {state.get('round_words')} ids per "
                                 f"round; resume it with the same --lanes and --round-words (not {from_settings[0]} "
                                 f"and {from_settings[1]})")


def run_position(model):
    """Ids of the run's first epoch to train that a checkpoint saved mid-epoch had trained (0 at an epoch's end)."""
    return int((model.run_state or {}).get("position", 0))


def show_remaining(progress, first, epochs, length, position=0):
    """Make ``progress`` (over all ``epochs``) show a run resumed at epoch ``first`` (``position`` ids
    into it): % done and the learning rate of the whole run, words/s and ETA of the rest."""
    if progress is not None and (first or position):
        progress.resume_from(first * length + position)


class _Shifted:
    """Progress proxy for one slice of a run: global epoch numbers and done counts."""

    def __init__(self, inner, done0, epoch0):
        self._inner = inner
        self._done0 = done0
        self._epoch0 = epoch0

    def maybe_report(self, done, loss, examples, epoch, force=False):
        self._inner.maybe_report(done + self._done0, loss, examples, epoch + self._epoch0, force)

    def epoch_done(self, epoch, loss_sum, examples):
        self._inner.epoch_done(epoch + self._epoch0, loss_sum, examples)

    def tick_due(self, done):
        return self._inner.tick_due(done + self._done0)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def train_spans(model, first, train_span, progress=None, on_epoch_end=None, merge=None):
    """Train epochs ``first..epochs`` of the run that :func:`begin_run` recorded.

    Without ``on_epoch_end`` the epochs are one call of ``train_span``; with
    it, one call per epoch, after which the model's
    ``run_state["epochs_done"]`` and ``last_train`` are up to date
    (:meth:`~w2v.model.word2vec.Word2Vec.finish_epochs`) and ``on_epoch_end(epoch)``
    is called (a checkpoint saved then resumes exactly).

    Parameters
    ----------
    model : w2v.model.word2vec.Word2Vec
        With its encoded corpus.
    first : int
        From :func:`begin_run`.
    train_span : callable
        ``train_span(settings, progress, position_offset, total_positions)``
        trains ``settings.epochs`` epochs from global position
        ``position_offset`` of a run of ``total_positions`` ids (the
        learning rate's schedule) and returns its result.  A run resumed
        mid-epoch (:func:`run_position`) calls it once with ``start=position``:
        that many ids of its first epoch are trained already.
    progress : w2v.training.progress.Progress, optional
    on_epoch_end : callable, optional
    merge : callable, optional
        ``merge(results, first)`` -> the run's result (default
        :func:`merge_results`, for :class:`RunResult` spans).

    Returns
    -------
    RunResult
        Or what ``merge`` returns.
    """
    merge = merge or merge_results
    s = model.settings
    epochs = s.epochs
    length = model.encoded_corpus.length
    total = max(1, epochs * length)
    results = []
    earlier = (model.run_state or {}).get("progress")
    ticked = merge if progress is None else (
        lambda done, start: dataclasses.replace(merge(done, start), progress=progress.run_ticks(earlier)))
    start = run_position(model)
    if first < epochs:
        spans = [(first, epochs)] if on_epoch_end is None else [(e, e + 1) for e in range(first, epochs)]
        for a, b in spans:
            sub = dataclasses.replace(s, epochs=b - a)
            shown = None if progress is None else _Shifted(progress, max(0, (a - first) * length - start), a)
            if a == first and start:   # a checkpoint saved mid-epoch: the rest of that epoch first
                results.append(train_span(sub, shown, a * length, total, start=start))
            else:
                results.append(train_span(sub, shown, a * length, total))
            model.finish_epochs(b, None if on_epoch_end is None else ticked(results, first))
            if on_epoch_end is not None:
                t = time.perf_counter()
                on_epoch_end(b - 1)
                if progress is not None:   # a checkpoint's save is not training time
                    progress.exclude(time.perf_counter() - t)
    return ticked(results, first)
