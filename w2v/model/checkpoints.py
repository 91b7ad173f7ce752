"""Checkpoints of a run: at every epoch's end and, on request, every so often within an epoch.

:class:`Checkpointer` is what ``Word2Vec.train(checkpoint=DIR, ...)`` (and
``w2v train --checkpoint DIR``) hands to the runners.  A runner asks
:meth:`Checkpointer.due` at each boundary where its state is consistent (a
job of the CPU's Hogwild runner, a round of the deterministic mode) and, when
a checkpoint is due, records where it stands (:meth:`Checkpointer.save_mid`);
at every epoch's end :meth:`Checkpointer.epoch_end` runs.

A checkpoint is written from a snapshot (:meth:`w2v.model.word2vec.Word2Vec.snapshot`:
copies of the weights, random states and run state), in a background thread,
while training goes on: training stalls for the copy, and for the rest of the
previous checkpoint's write if that is still going.  The directory is replaced
atomically (:func:`w2v.model.persist.save_model`), so a run killed at any moment
leaves the previous checkpoint or the new one.  A write that fails stops the
run with its error at the next checkpoint or at the run's end.
"""
import re
import threading
import time

from ..errors import ParameterError

__all__ = ["Checkpointer", "parse_interval", "open_checkpoints"]

_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600}


def parse_interval(text):
    """Seconds of an interval such as ``"90"``, ``"90s"``, ``"10m"`` or ``"1.5h"``.

    Raises
    ------
    ParameterError
        Not a positive number with an optional unit s, m or h.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        seconds = float(text)
    else:
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([smh]?)\s*", str(text))
        if not match:
            raise ParameterError(f"checkpoint interval must be a number of seconds or end in s, m or h "
                                 f"(e.g. 10m), not {text!r}")
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
    if not seconds > 0:
        raise ParameterError(f"checkpoint interval must be > 0 (got {text!r})")
    return seconds


def open_checkpoints(model, path, every=None, words=None, progress=None):
    """The :class:`Checkpointer` of ``Word2Vec.train(checkpoint=path, checkpoint_every=every,
    checkpoint_words=words)``, or None without ``path``.

    Raises
    ------
    ParameterError
        An interval without ``path``, a bad interval, or mid-epoch checkpoints with ``device="cuda"``.
    """
    if path is None:
        if every is not None or words is not None:
            raise ParameterError("checkpoint_every and checkpoint_words need checkpoint (a directory)")
        return None
    seconds = None if every is None else parse_interval(every)
    if words is not None and (isinstance(words, bool) or not isinstance(words, int) or words < 1):
        raise ParameterError(f"checkpoint_words must be an integer >= 1 (got {words!r})")
    if (seconds or words) and model.settings.device == "cuda":
        raise ParameterError("mid-epoch checkpoints need the CPU (device='cuda' checkpoints at epoch ends)")
    return Checkpointer(model, path, every_seconds=seconds, every_ids=words, progress=progress)


class Checkpointer:
    """Saves a training model's checkpoints to ``path``.

    Parameters
    ----------
    model : w2v.model.word2vec.Word2Vec
    path : str
        The checkpoint directory (a full model, see :mod:`w2v.model.persist`).
    every_seconds : float, optional
        A checkpoint within an epoch once this many seconds passed since the last one.
    every_ids : int, optional
        A checkpoint within an epoch once this many ids were trained since the last one.
    progress : w2v.training.progress.Progress, optional
        Where the saves are reported; its clock leaves out the time training stalled for them.
    background : bool
        Write in a thread while training goes on (default); else write before training goes on.

    Attributes
    ----------
    last : dict or None
        The last checkpoint written: ``epoch`` (1-based) and ``fraction`` of the run trained,
        ``path``, ``seconds`` since the run started; shown by the progress line and ``--report-json``.
    stalled : float
        Seconds training waited for the checkpoints (snapshots and unfinished writes).
    """

    def __init__(self, model, path, every_seconds=None, every_ids=None, progress=None, background=True):
        self.model = model
        self.path = str(path)
        self.every_seconds = every_seconds
        self.every_ids = every_ids
        self.progress = progress
        self.background = background
        self.last = None
        self.written = 0
        self.stalled = 0.0
        self._t0 = time.perf_counter()
        self._mark = (self._t0, 0)          # when and after how many ids the last checkpoint was due
        self._writer = None
        self._error = None
        self._done = []                     # writes finished, to report from the training thread
        self._lock = threading.Lock()

    @property
    def mid_epoch(self):
        """Whether checkpoints are due within epochs (an interval was given)."""
        return bool(self.every_seconds or self.every_ids)

    def due(self, done):
        """Whether a checkpoint is due after ``done`` ids trained by this process (cheap; call it often)."""
        self._report()
        if not self.mid_epoch:
            return False
        t, ids = self._mark
        return bool((self.every_seconds and time.perf_counter() - t >= self.every_seconds)
                    or (self.every_ids and done - ids >= self.every_ids))

    def save_mid(self, done, epochs_done, position, fraction, **state):
        """A checkpoint ``position`` ids into epoch ``epochs_done`` (0-based), ``fraction`` of the run done.

        ``state``: the rest of the run's mid-epoch state (:data:`w2v.training.lifecycle.MID_EPOCH_KEYS`), recorded in
        the model (:meth:`~w2v.model.word2vec.Word2Vec.record_position`) before its snapshot.
        """
        self.model.record_position(epochs_done, position, **state)
        self._save(epochs_done + 1, fraction)
        self._mark = (time.perf_counter(), done)

    def epoch_end(self, epoch):
        """The checkpoint after epoch ``epoch`` (0-based), whose end the model has recorded.

        The runners count ``done`` from 0 in each epoch (one call per epoch when checkpoints are on).
        """
        epochs = max(1, self.model.settings.epochs)
        self._save(epoch + 1, (epoch + 1) / epochs, at_end=True)
        self._mark = (time.perf_counter(), 0)

    def _save(self, epoch, fraction, at_end=False):
        t = time.perf_counter()
        self.wait()
        snapshot = self.model.snapshot()
        where = {"epoch": epoch, "fraction": round(float(fraction), 6), "path": self.path, "at_epoch_end": at_end}
        if self.background:
            self._writer = threading.Thread(target=self._write, args=(snapshot, where), daemon=True,
                                            name="w2v-checkpoint")
            self._writer.start()
        else:
            self._write(snapshot, where)
            self.wait()
        stall = time.perf_counter() - t
        self.stalled += stall
        if self.progress is not None:   # not training time
            self.progress.exclude(stall)

    def _write(self, snapshot, where):
        from .persist import save_model   # start-up: imported by the CLI; persist loads Numba (+0.5 s)

        t = time.perf_counter()
        try:
            save_model(snapshot, self.path)
        except BaseException as exc:   # raised in the training thread (wait)
            self._error = exc
            return
        where = dict(where, seconds=round(time.perf_counter() - self._t0, 3),
                     write_seconds=round(time.perf_counter() - t, 3))
        with self._lock:
            self.last = where
            self.written += 1
            self._done.append(where)

    def wait(self):
        """Wait for the write in progress; raise its error, if it failed."""
        if self._writer is not None:
            self._writer.join()
            self._writer = None
        self._report()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    close = wait

    def join(self):
        """Wait for the write in progress, if any, without raising its error (a run that failed or was stopped)."""
        if self._writer is not None:
            self._writer.join()
            self._writer = None

    def epoch_hook(self, inner=None):
        """An ``on_epoch_end(epoch)`` hook that saves the epoch's checkpoint, then calls ``inner``."""
        def hook(epoch):
            self.epoch_end(epoch)
            if inner is not None:
                inner(epoch)
        return hook

    def _report(self):
        # the writes finished since the last call, reported from the training thread
        with self._lock:
            done, self._done = self._done, []
        if self.progress is None:
            return
        for w in done:
            self.progress.checkpoint_at = w["fraction"]
            what = (f"epoch {w['epoch']}" if w["at_epoch_end"]
                    else f"epoch {w['epoch']} at {100 * w['fraction']:.1f}% of the run")
            self.progress.message(f"checkpoint: {what} saved to {w['path']} ({w['write_seconds']:.1f}s)")
