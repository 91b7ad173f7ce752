"""One ``Word2Vec.train`` run on this machine: the back end the settings pick, checkpoints, the checks around it.

:func:`run_epochs_of` trains the model's encoded corpus with the CPU's
Hogwild threads (:func:`w2v.training.hogwild.run_epochs`), the deterministic
lanes (:func:`w2v.training.lanes.run_deterministic`) or the GPU
(:func:`w2v.cuda.train.run_epochs_cuda`), saving checkpoints
(:mod:`w2v.model.checkpoints`) where asked, and returns the run's result;
the runners record the run in the model through its methods, and the model
records the result (``Word2Vec.record_run``).  :func:`check_local_run`,
:func:`cluster_corpus` (a Dask run's) and :func:`check_trained` are the
checks before and after a run.
"""
import dataclasses
import threading

from .. import cuda
from ..errors import CorpusError, ParameterError
from ..text.inputs import check_text_files
from ..training.hogwild import run_epochs
from ..training.lanes import run_deterministic
from ..training.progress import Progress
from .checkpoints import open_checkpoints

__all__ = ["check_local_run", "check_trained", "cluster_corpus", "run_epochs_of"]


def check_local_run(settings, dist_options):
    """Before a corpus is read for a run on this machine: no Dask options, a GPU for ``device="cuda"``.

    Raises
    ------
    TypeError
        Dask's options given without a client.
    DeviceError
        ``device="cuda"`` and no usable GPU.
    """
    if dist_options:
        raise TypeError(f"unexpected arguments without client: {', '.join(sorted(dist_options))}")
    if settings.device == "cuda":
        cuda.require_cuda()


def cluster_corpus(source, settings, checkpoint, allow_binary):
    """The files a Dask run trains on, checked before it starts (``None``: the corpus the workers hold).

    Raises
    ------
    ParameterError
        Phrases to join, a ``checkpoint`` or ``deterministic`` (a Dask run has its own merges and
        checkpoints), or sentences rather than paths.
    CorpusError
        A file is missing or does not look like text (unless ``allow_binary``).
    """
    if source is not None and source.phrases is not None:
        raise ParameterError("phrases cannot be joined on a Dask cluster; join them with w2v phrases first")
    if checkpoint is not None or settings.deterministic:   # see docs/reproducibility.md
        raise ParameterError("a Dask run has its own fixed merges and checkpoints with on_epoch_end; "
                             "deterministic=True and checkpoint= train on one machine")
    if source is not None and not source.reads_files:
        raise ParameterError("a Dask cluster trains on files its workers read: give paths, not sentences")
    corpus = None if source is None else source.paths
    if corpus is not None:   # the workers read it: its start is checked here
        check_text_files(corpus, allow_binary)
    return corpus


def check_trained(result, settings):
    """Raise :class:`CorpusError` when the run of ``result`` trained no example at all.

    Parameters
    ----------
    result : w2v.training.lifecycle.RunResult or None
    settings : w2v.settings.Settings
        Its ``sample`` says the likely cause.
    """
    if result is not None and result.epoch_loss and result.examples == 0:
        n = len(result.epoch_loss)
        cause = ("subsampling dropped every word that had a context; on a tiny corpus set sample to 0"
                 if settings.sample > 0 else "no word had a context")
        raise CorpusError(f"nothing was trained: no training example in {n} epoch{'s' if n > 1 else ''} "
                          f"({cause})")


def run_epochs_of(model, quiet, progress_stream, on_epoch_end, interval=None, checkpoint=None,
                  checkpoint_every=None, checkpoint_words=None):
    """Train ``model`` on its encoded corpus for ``settings.epochs`` epochs; return the run's result.

    Parameters
    ----------
    model : w2v.model.word2vec.Word2Vec
        With a vocabulary and an encoded corpus.
    quiet, progress_stream : bool, file object
        No progress lines; where they go.
    on_epoch_end : callable or None
        ``on_epoch_end(epoch)`` after every epoch.
    interval : float, optional
        Seconds between progress lines (default: :class:`~w2v.training.progress.Progress`'s).
    checkpoint, checkpoint_every, checkpoint_words
        ``Word2Vec.train``'s (:func:`w2v.model.checkpoints.open_checkpoints`).

    Returns
    -------
    w2v.training.lifecycle.RunResult
        With the last checkpoint written in ``details["checkpoint"]`` when checkpoints were on.

    Raises
    ------
    CorpusError
        No sentence of the corpus holds two words of the vocabulary.
    """
    s, enc = model.settings, model.encoded_corpus
    if not enc.has_context():
        n = len(model.vocab)
        raise CorpusError(f"nothing to train: no sentence of the corpus holds two words of the vocabulary "
                          f"({n:,} word{'s' if n != 1 else ''} of min_count {s.min_count} or more), so no "
                          "word has a context; give more text, or a lower min_count")
    progress = Progress(s.epochs * enc.length, s, stream=progress_stream, quiet=quiet,
                        words_per_id=model.corpus_tokens / max(1, enc.length), interval=interval)
    stop = threading.Event()
    run = run_epochs
    if s.device == "cuda":   # GPU training step, same schedule/tables/outputs
        # start-up: the GPU back end (+5 to 20 ms) loads for a GPU run only
        from ..cuda.train import run_epochs_cuda as run
    elif s.deterministic:   # lanes and rounds: the same vectors at any thread count
        run = run_deterministic
    cp = open_checkpoints(model, checkpoint, checkpoint_every, checkpoint_words, progress=progress)
    try:
        if cp is None:
            return run(model, progress=progress, stop_event=stop, on_epoch_end=on_epoch_end)
        result = run(model, progress=progress, stop_event=stop, on_epoch_end=cp.epoch_hook(on_epoch_end),
                     **({"checkpoints": cp} if cp.mid_epoch else {}))
        cp.close()
        return dataclasses.replace(result, details=dict(result.details, checkpoint=cp.last))
    except KeyboardInterrupt:
        stop.set()
        raise
    finally:
        if cp is not None:   # a stopped run leaves its last checkpoint complete
            cp.join()
