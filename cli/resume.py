"""``w2v train`` helpers for full models: --resume, --save-model, --checkpoint."""
import os

import click

from w2v.errors import OutputError, ParameterError
from w2v.settings import check_relations
from w2v.training.progress import Progress

from .options import FLAG_NAMES
from .vectors import model_path


def check_model_dir(path, option):
    """Fail before training if a full model cannot be written to ``path`` (a directory, or one file)."""
    from w2v.formats import check_model_target, is_native_dir, writes_single_file  # start-up: scipy.linalg (+0.3 s)

    target = os.path.abspath(path)
    parent = os.path.dirname(target)
    if writes_single_file(path):
        try:
            check_model_target(path, full_model=True)
        except OutputError as exc:
            raise OutputError(f"{option} {exc}") from None
    elif os.path.lexists(target):
        if not os.path.isdir(target) or os.path.islink(target):
            raise OutputError(f"{option} {path}: exists and is not a model directory")
        if os.listdir(target) and not is_native_dir(target):
            raise OutputError(f"{option} {path}: refusing to replace a directory that is not a w2v model")
    if not os.path.isdir(parent):
        raise OutputError(f"{option} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {path}: directory {parent} is not writable")


def load_for_resume(path, overrides):
    """Load the full model at ``path`` (or the copy an interrupted save left) and apply the explicitly
    given settings."""
    from w2v.model.word2vec import Word2Vec   # start-up: loads Numba (+0.5 s)

    m = Word2Vec.load(model_path(path, "--resume ", full_model=True))
    try:
        check_relations({**m.settings.to_dict(), **overrides}, FLAG_NAMES)   # in the options' names
        m.update_settings(**overrides)
    except ParameterError as exc:
        raise ParameterError(f"--resume {path}: {exc}") from None
    return m


def resume_corpus(model, path):
    """The corpus recorded in a saved model (for ``--resume`` without CORPUS)."""
    state = model.run_state or {}
    files = state.get("corpus_files")
    if not files or "-" in files:
        raise click.UsageError(f"--resume {path}: the model records no re-readable corpus; pass CORPUS")
    return tuple(files)


def describe(model):
    """One line on the state of a loaded model, for the progress output."""
    state = model.run_state
    if not state:
        return f"resuming a model of {len(model.vocab):,} words"
    done, total = state["epochs_done"], state["epochs"]
    if state.get("position") and done < total:
        return (f"resuming a run stopped {state['position']:,} ids into epoch {done + 1} of {total} "
                f"(a checkpoint within the epoch; {'deterministic' if state.get('mode') == 'lanes' else 'Hogwild'})")
    if 0 < done < total:
        if model.settings.epochs <= done:   # an error on the same corpus, a new run on another
            return (f"resuming a run stopped after epoch {done} of {total} with --epochs "
                    f"{model.settings.epochs}: no epoch follows on the same corpus")
        return (f"resuming a run stopped after epoch {done} of {total}: "
                f"epochs {done + 1}..{model.settings.epochs} follow (if the corpus is the same)")
    return f"resuming a model trained for {done} epochs: a new run of {model.settings.epochs} epochs"


def checkpoint_hook(model, path, quiet):
    """``on_epoch_end`` callback that saves the full model to ``path`` after each epoch."""
    shown = Progress(1, model.settings, quiet=quiet)

    def hook(epoch):
        # on a terminal, what it does while a large model is written (in logs the line after says it)
        shown.status(f"checkpoint: saving epoch {epoch + 1} to {path} ...", log=False)
        model.save(path)
        shown.message(f"checkpoint: epoch {epoch + 1} saved to {path}")
    return hook
