"""Full models: save and load every training array, online vocabulary updates, resumable runs.

A saved model is a directory that is a superset of the native vectors format
(:func:`w2v.formats.save_native`), so ``w2v.load(dir)`` (and every ``w2v``
command that takes a MODEL) reads its input vectors as is::

    meta.json             native header ("format": "w2v-native"), vocabulary size, dim
    vectors.npy           syn0, the input vectors (float32, V x dim)
    vocab.tsv             word<TAB>count per line, in row order (UTF-8)
    model.json            {"format": "w2v-model", "version": 1, "settings": {...},
                           "vocab_size", "dim", "arrays": {...}, "training": {...}}
    syn1neg.npy           negative-sampling output vectors (float32, V x dim; 1 x dim if negative=0)
    syn1.npy              hierarchical-softmax inner-node vectors (float32, V-1 x dim; 1 x dim if no hs)
    huffman_codes.npy     (hs only) int8 (V x L): branch taken at each inner node from the root
    huffman_points.npy    (hs only) int32 (V x L): inner nodes (rows of syn1) on the path
    huffman_lengths.npy   (hs only) int32 (V,): code lengths
    rng_state.npy         uint64 (threads x 1): the workers' random states, for exact resumption

Every array is a plain ``.npy`` file read back with ``allow_pickle=False``;
nothing is pickled.  The directory is written into a temporary directory next
to the target and renamed into place (an existing model there is replaced),
so a reader (or a resumed run) sees the previous model or the new one, never
a mix.  ``model.json`` is written last.

``training`` in ``model.json`` records the latest run: ``epochs`` planned,
``epochs_done``, and the length of the encoded corpus (``corpus_length``) with
the corpus files.  A checkpoint written after epoch ``k`` of ``E`` has
``epochs_done = k``; training it again on the same corpus runs the remaining
epochs with the original learning-rate schedule (and, with the saved random
states and ``threads=1``, gives bit-for-bit the vectors of an uninterrupted
run).
"""
from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
import warnings

import numpy as np

from .corpus import encode_corpus, scan_corpus
from .errors import FormatError, ParameterError, ResumeWarning, VocabularyError
from .model import initial_input_rows
from .sampling import MAX_HUFFMAN_TOTAL, HuffmanTree
from .train import Progress, seed_states, train_epochs
from .vocab import Vocab

logger = logging.getLogger(__name__)

__all__ = ["MODEL_FORMAT", "MODEL_VERSION", "save_model", "load_model", "update_vocab",
           "encode_with_vocab", "run_epochs", "begin_run", "show_remaining", "train_spans",
           "huffman_tree", "ResumeWarning"]

MODEL_FORMAT = "w2v-model"
MODEL_VERSION = 1
MODEL_FILE = "model.json"


# --------------------------------------------------------------------------- Huffman tree
def huffman_tree(counts):
    """Huffman tree of counts in any order (after an online update the vocabulary is not sorted).

    Words are ranked by descending count (ties by id) and coded with
    word2vec.c's construction; each word keeps its id.  For counts already
    in descending order this is exactly :meth:`HuffmanTree.from_counts`.
    """
    counts = np.asarray(counts, dtype=np.int64)
    if counts.size < 2 or not np.any(np.diff(counts) > 0):
        return HuffmanTree.from_counts(counts)
    order = np.argsort(-counts, kind="stable")
    tree = HuffmanTree.from_counts(counts[order])
    codes = np.empty_like(tree.codes)
    points = np.empty_like(tree.points)
    lengths = np.empty_like(tree.lengths)
    codes[order] = tree.codes
    points[order] = tree.points
    lengths[order] = tree.lengths
    return HuffmanTree(codes, points, lengths)


# --------------------------------------------------------------------------- corpus with a vocabulary
def scan_with_progress(model, corpus, quiet, progress_stream,
                       next_step="building the vocabulary and encoding the corpus"):
    """Tokenize the corpus once (:func:`scan_corpus`), reporting progress; return (scanned, reporter, t0).

    Progress goes through :meth:`Progress.status` (redrawn in place on a
    terminal).  When the scan is over, a status says that ``next_step``
    follows: always on a terminal, elsewhere when the scan was long enough to
    report (the next step then takes a while too).
    """
    s = model.settings
    t0 = time.perf_counter()
    reporter = Progress(1, s, stream=progress_stream, quiet=quiet)
    last = [t0]
    shown = [False]

    def scan_progress(chars, tokens):
        now = time.perf_counter()
        if not quiet and now - last[0] >= reporter.interval:
            last[0] = now
            shown[0] = True
            rate = tokens / max(now - t0, 1e-9)
            reporter.status(f"reading corpus: {tokens:,} tokens ({rate / 1e6:.2f}M tokens/s)")

    scanned = scan_corpus(corpus, tokenizer=s.tokenizer, lowercase=s.lowercase,
                          memory_budget=s.memory_budget, progress=scan_progress, threads=s.threads)
    if not quiet and (reporter.tty or shown[0]):
        reporter.status(f"read {scanned.n_tokens:,} tokens ({time.perf_counter() - t0:.1f}s); {next_step}")
    return scanned, reporter, t0


def corpus_files(scanned):
    """The inputs of a scanned corpus as absolute paths (recorded in checkpoints)."""
    return [f if f == "-" else os.path.abspath(f) for f in scanned.files]


def _set_corpus(model, scanned, encoded):
    if model._encoded is not None:
        model._encoded.close()
    model._encoded = encoded
    model.corpus_tokens = scanned.n_tokens
    model._corpus_files = corpus_files(scanned)


def encode_with_vocab(model, corpus, quiet=True, progress_stream=None):
    """Read ``corpus`` and encode it with the model's vocabulary as it is.

    Unknown words are dropped; the vocabulary, its counts, the tables and
    the weights do not change.  This is what ``train(corpus)`` does on a
    model that already has a vocabulary.

    Raises
    ------
    VocabularyError
        No word of the corpus is in the vocabulary.
    """
    if model.vocab is None:
        raise VocabularyError("model has no vocabulary yet: call build_vocab(corpus)")
    model.vocab.check()
    scanned, reporter, t0 = scan_with_progress(model, corpus, quiet, progress_stream,
                                               "encoding it with the model's vocabulary")
    index = model.vocab.index
    remap = np.fromiter((index.get(w, -2) for w in scanned.words), dtype=np.int32, count=len(scanned.words))
    if not np.any(remap >= 0):
        scanned.stream.close()
        raise VocabularyError("no word of the corpus is in the model's vocabulary "
                              "(use build_vocab(corpus, update=True) to add new words)")
    encoded = encode_corpus(scanned, remap, len(model.vocab))
    _set_corpus(model, scanned, encoded)
    model.timings["vocab_seconds"] = time.perf_counter() - t0
    if not quiet:
        reporter.message(f"corpus: {encoded.n_words:,} of {scanned.n_tokens:,} tokens in the model's "
                         f"vocabulary of {len(model.vocab):,} words")
    return model


def update_vocab(model, corpus, quiet=True, progress_stream=None):
    """Online vocabulary update (``build_vocab(corpus, update=True)``), as gensim's.

    * existing words keep their ids and rows; their counts grow by their
      counts in ``corpus``;
    * words of ``corpus`` not in the vocabulary that occur at least
      ``min_count`` times in it are appended (most frequent first, ties by
      first occurrence), up to ``max_vocab_size`` words in all;
    * new input rows are initialised as fresh ones (uniform in
      ``[-1/dim, 1/dim)``, :func:`w2v.model.initial_input_rows`), new
      ``syn1neg`` rows are zero;
    * the subsampling and noise tables are rebuilt from the new counts;
    * with ``hs`` the Huffman tree is rebuilt from the new counts and
      ``syn1`` keeps its rows (extended with zero rows to ``V - 1``), as
      gensim does: an inner node index then names a node of the new tree,
      which need not be the node that row was trained for.  Rows of the
      frequent words' upper nodes mostly survive; the rest re-learn quickly.
    * ``corpus`` is encoded with the merged vocabulary for the next
      :meth:`~w2v.model.Word2Vec.train`, which starts a new run.
    """
    if model.vocab is None:
        raise VocabularyError("cannot update a vocabulary that does not exist: call build_vocab(corpus) first")
    model.vocab.check()
    s = model.settings
    scanned, reporter, t0 = scan_with_progress(model, corpus, quiet, progress_stream,
                                               "updating the vocabulary and encoding the corpus")
    old = model.vocab
    v0 = len(old)
    index = old.index
    existing = np.fromiter((index.get(w, -1) for w in scanned.words), dtype=np.int64,
                           count=len(scanned.words))
    known = existing >= 0
    counts = old.counts.copy()
    counts[existing[known]] += scanned.counts[known]      # each word once in scanned.words
    cand = np.flatnonzero(~known & (scanned.counts >= s.min_count))
    cand = cand[np.argsort(-scanned.counts[cand], kind="stable")]
    if s.max_vocab_size is not None:
        cand = cand[:max(0, s.max_vocab_size - v0)]
    remap = np.full(len(scanned.words), -2, np.int32)
    remap[known] = existing[known]
    remap[cand] = v0 + np.arange(cand.size, dtype=np.int32)
    if not np.any(remap >= 0):
        scanned.stream.close()
        raise VocabularyError(f"no word of the corpus is in the vocabulary or occurs min_count={s.min_count} times")
    vocab = Vocab(old.words + [scanned.words[i] for i in cand],
                  np.concatenate([counts, scanned.counts[cand]]))
    encoded = encode_corpus(scanned, remap, len(vocab))
    _set_corpus(model, scanned, encoded)
    model.vocab = vocab
    _grow_weights(model, v0)
    model._make_tables()
    model._wv = None
    model.run_state = None
    model.timings["vocab_seconds"] = time.perf_counter() - t0
    if not quiet:
        reporter.message(f"vocabulary update: {cand.size:,} new words, {len(vocab):,} in all; "
                         f"{encoded.n_words:,} of {scanned.n_tokens:,} tokens covered")
    return model


def _grow_weights(model, v0):
    s = model.settings
    v = len(model.vocab)
    n_new = v - v0
    if n_new <= 0:
        return
    dim = s.dim
    rng = np.random.default_rng([int(s.seed) & 0xFFFFFFFFFFFFFFFF, v0])
    fresh = initial_input_rows(rng, n_new, dim)
    model.syn0 = np.concatenate([np.asarray(model.syn0, np.float32), fresh])
    if s.negative > 0:
        model.syn1neg = np.concatenate([np.asarray(model.syn1neg, np.float32), np.zeros((n_new, dim), np.float32)])
    if s.hs:
        syn1 = np.zeros((max(1, v - 1), dim), np.float32)
        keep = min(model.syn1.shape[0], syn1.shape[0])
        syn1[:keep] = model.syn1[:keep]
        model.syn1 = syn1


# --------------------------------------------------------------------------- training runs
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

    def __getattr__(self, name):
        return getattr(self._inner, name)


def _merge(results, first):
    return {
        "epoch_loss": [l for r in results for l in r["epoch_loss"]],
        "examples": sum(r["examples"] for r in results),
        "kept": sum(r["kept"] for r in results),
        "words": sum(r["words"] for r in results),
        "seconds": sum(r["seconds"] for r in results),
        "kernel_load_seconds": sum(r.get("kernel_load_seconds", 0.0) for r in results),
        "first_epoch": first,
    }


def _continued_states(saved, threads):
    if saved is None:
        return None
    saved = np.asarray(saved, np.uint64)
    if saved.shape == (threads, 1):
        return saved
    return seed_states(int(np.bitwise_xor.reduce(saved.ravel())), threads)   # other thread count


def begin_run(model, length, n_words, same_corpus=None, stacklevel=4, sharded=False):
    """Record in ``model.run_state`` the run about to train; return its first epoch.

    Every training path (CPU, CUDA, Dask) starts here.  An unfinished run
    (``0 < epochs_done < epochs``, e.g. a checkpoint) over the same corpus
    continues from ``epochs_done``; over another corpus a new run starts and
    a :class:`ResumeWarning` says so; otherwise a new run starts at epoch 0.

    Parameters
    ----------
    model : w2v.model.Word2Vec
    length, n_words : int
        The encoded corpus' length (ids and sentence ends) and in-vocabulary tokens.
    same_corpus : callable, optional
        ``same_corpus(run_state) -> bool``; default: the recorded
        ``corpus_length`` equals ``length``.
    stacklevel : int
        Of the warning, so that it points at the user's ``train`` call.
    sharded : bool
        The run reads the corpus in shards (Dask), whose stream length
        depends on where the shards were cut: recorded in the run's state, so
        that a checkpoint of it is recognised as the same corpus by its count
        of in-vocabulary tokens wherever it is resumed (one process, or Dask
        with other shards).

    Returns
    -------
    int
        The first epoch to train.

    Raises
    ------
    ParameterError
        The unfinished run over the same corpus has done ``settings.epochs``
        epochs or more: nothing would be trained.
    """
    epochs = model.settings.epochs
    if same_corpus is None:
        def same_corpus(st):
            if st.get("sharded"):   # written by Dask: its stream length depends on the shard cuts
                return st.get("corpus_words") == n_words
            return st.get("corpus_length") == length
    first = 0
    state = getattr(model, "run_state", None)
    if state and 0 < state.get("epochs_done", 0) < state.get("epochs", 0):
        if same_corpus(state):
            first = int(state["epochs_done"])
            if first >= epochs:
                # it trained nothing, and recorded the run as finished at `epochs`
                raise ParameterError(
                    f"the model holds an unfinished run: {first} of {state['epochs']} epochs done; "
                    f"epochs={epochs} leaves none to train: give more than {first} to continue it")
        else:
            warnings.warn(
                f"the model holds an unfinished run ({state['epochs_done']} of {state['epochs']} epochs) "
                f"over another corpus ({state.get('corpus_length')} ids and {state.get('corpus_words')} words, "
                f"this one has {length} and {n_words}); "
                f"starting a new run of {epochs} epochs", ResumeWarning, stacklevel=stacklevel)
    model.run_state = {"epochs": epochs, "epochs_done": first, "corpus_length": int(length),
                       "corpus_words": int(n_words),
                       "corpus_files": getattr(model, "_corpus_files", None)}
    if sharded:
        model.run_state["sharded"] = True
    return first


def show_remaining(progress, first, epochs, length):
    """Make ``progress`` (over all ``epochs``) show a run resumed at epoch ``first``: % done and
    the learning rate of the whole run, words/s and ETA of the remaining epochs."""
    if progress is not None and first:
        progress.resume_from(first * length)


def train_spans(model, first, train_span, progress=None, on_epoch_end=None, merge=None):
    """Train epochs ``first..epochs`` of the run that :func:`begin_run` recorded.

    Without ``on_epoch_end`` the epochs are one call of ``train_span``; with
    it, one call per epoch, after which ``model.run_state["epochs_done"]``
    and ``model.last_train`` are up to date and ``on_epoch_end(epoch)`` is
    called (a checkpoint saved then resumes exactly).

    Parameters
    ----------
    train_span : callable
        ``train_span(settings, progress, position_offset, total_positions)``
        trains ``settings.epochs`` epochs from global position
        ``position_offset`` of a run of ``total_positions`` ids (the
        learning rate's schedule) and returns its result dict.
    merge : callable, optional
        ``merge(results, first)`` -> the run's result (default :func:`_merge`).
    """
    merge = merge or _merge
    s = model.settings
    epochs = s.epochs
    length = model._encoded.length
    total = max(1, epochs * length)
    results = []
    if first < epochs:
        spans = [(first, epochs)] if on_epoch_end is None else [(e, e + 1) for e in range(first, epochs)]
        for a, b in spans:
            sub = dataclasses.replace(s, epochs=b - a)
            shown = None if progress is None else _Shifted(progress, (a - first) * length, a)
            results.append(train_span(sub, shown, a * length, total))
            model.run_state["epochs_done"] = b
            if on_epoch_end is not None:
                model._wv = None
                model.last_train = merge(results, first)
                t = time.perf_counter()
                on_epoch_end(b - 1)
                if progress is not None:   # a checkpoint's save is not training time
                    progress.exclude(time.perf_counter() - t)
    return merge(results, first)


def run_epochs(model, progress=None, stop_event=None, on_epoch_end=None):
    """Run (or continue) a training run over the model's encoded corpus.

    A new run trains ``settings.epochs`` epochs with the learning rate
    decaying from ``alpha`` to ``min_alpha`` over them.  If the model holds
    an unfinished run (``model.run_state``, e.g. from a checkpoint) over a
    corpus of the same encoded length, the remaining epochs run with the
    original schedule and random states instead (see :func:`begin_run`).

    Without ``on_epoch_end`` the epochs run in one job stream
    (:func:`w2v.train.train_epochs`).  With it, each epoch is one call of
    ``train_epochs`` with the run's global position offset, so that every
    job of epoch ``e`` has finished when ``on_epoch_end(e)`` is called
    (``model.run_state["epochs_done"]`` is then ``e + 1``), and the
    learning rate of every sentence is exactly the one of the single stream
    (with ``threads=1`` the vectors are bit-for-bit the same).
    """
    s = model.settings
    enc = model._encoded
    first = begin_run(model, enc.length, enc.n_words)
    # a resumed run continues its saved random states; a new one too if the model was trained
    # (or loaded) before, so that its next epochs do not repeat the first ones' random choices;
    # a fresh model starts from the seed
    rng = _continued_states(getattr(model, "_rng_states", None), s.threads)
    if rng is None:
        rng = seed_states(s.seed, s.threads)
    model._rng_states = rng
    show_remaining(progress, first, s.epochs, enc.length)

    def train_span(sub, shown, offset, total):
        return train_epochs(enc, model.syn0, model.syn1neg, model.syn1, model.tables, sub,
                            progress=shown, stop_event=stop_event, rng_states=rng,
                            position_offset=offset, total_positions=total)

    return train_spans(model, first, train_span, progress, on_epoch_end)


# --------------------------------------------------------------------------- save
def _json_bytes(obj):
    from .formats import json_default

    # numpy scalars (settings such as dim=np.int64(100) pass validation) are written as numbers
    return (json.dumps(obj, indent=1, sort_keys=True, default=json_default) + "\n").encode("utf-8")


def _check_arrays_to_save(model, arrays, path):
    """Refuse what :func:`load_model` would reject: weights of the wrong shape (replaced by hand),
    random states not one per thread, NaN or infinite weights (a diverged run)."""
    from .arrays import check_finite

    s = model.settings
    v = len(model.vocab)
    syn0 = np.asarray(model.syn0, np.float32)   # shared by model.wv, written as vectors.npy
    rows = {"syn0": (v,), "syn1neg": (v,) if s.negative > 0 else (1, v),
            "syn1": (max(1, v - 1),) if s.hs else None}
    for name, want in rows.items():
        a = syn0 if name == "syn0" else arrays[name]
        if a.ndim != 2 or a.shape[1] != s.dim or (want is not None and a.shape[0] not in want):
            raise ParameterError(f"cannot save: {name} has shape {a.shape}, expected "
                                 f"({' or '.join(map(str, want)) if want else 'rows'}, {s.dim})")
    rng = arrays.get("rng_state")
    if rng is not None and (rng.ndim != 2 or rng.shape[1] != 1):
        raise ParameterError(f"cannot save: random states of shape {rng.shape}, expected (threads, 1)")
    check_finite(syn0, os.path.join(path, "vectors.npy"), model.vocab.words)
    check_finite(arrays["syn1neg"], os.path.join(path, "syn1neg.npy"),
                 model.vocab.words if s.negative > 0 else None)
    check_finite(arrays["syn1"], os.path.join(path, "syn1.npy"))


def save_model(model, path):
    """Write the full model to the directory ``path``, atomically (see the module docstring).

    Raises
    ------
    VocabularyError
        The model has no vocabulary yet.
    ParameterError
        A setting changed by hand is invalid, or changes ``dim``, ``model``
        or ``hs`` of the weights (as :meth:`~w2v.model.Word2Vec.train`
        refuses it), or a weight matrix or the random states have the
        wrong shape: nothing is written that :func:`load_model` would reject.
    FormatError
        A weight is NaN or infinite (a diverged run); the message names the
        file it would be written to.  Otherwise as
        :func:`w2v.formats.save_native`.
    OutputError
        As :func:`w2v.formats.save_native`.
    """
    from . import __version__
    from .formats import write_array
    from .vectors import save_native

    if model.vocab is None or model.syn0 is None:
        raise VocabularyError("model has no vocabulary yet: nothing to save")
    model.settings.validate()
    model._apply_changed_settings()   # settings changed by hand (m.settings.dim = ...), as train() does
    s = model.settings
    v, dim = len(model.vocab), s.dim
    arrays = {"syn1neg": np.asarray(model.syn1neg, np.float32), "syn1": np.asarray(model.syn1, np.float32)}
    if s.hs:
        tree = model.huffman
        arrays["huffman_codes"] = np.asarray(tree.codes, np.int8)
        arrays["huffman_points"] = np.asarray(tree.points, np.int32)
        arrays["huffman_lengths"] = np.asarray(tree.lengths, np.int32)
    rng = getattr(model, "_rng_states", None)
    if rng is not None:
        arrays["rng_state"] = np.asarray(rng, np.uint64)
    _check_arrays_to_save(model, arrays, path)
    state = getattr(model, "run_state", None)
    header = {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "w2v_version": __version__,
        "vocab_size": v,
        "dim": dim,
        "settings": s.to_dict(),
        "arrays": {name: {"file": name + ".npy", "dtype": str(a.dtype), "shape": list(a.shape)}
                   for name, a in arrays.items()},
        "training": dict(state) if state else None,
    }
    header_bytes = _json_bytes(header)   # fail on bad settings before writing anything

    def extra(tmp):
        for name, a in arrays.items():
            write_array(os.path.join(tmp, name + ".npy"), a)
        with open(os.path.join(tmp, MODEL_FILE), "wb") as f:
            f.write(header_bytes)
            f.flush()
            os.fsync(f.fileno())

    save_native(model.wv, path, extra=extra)


# --------------------------------------------------------------------------- load
def _recover_path(path):
    """A model replaced by a save that was killed between its two renames is left aside."""
    from .formats import aside_dirs

    found = [d for d in aside_dirs(path) if os.path.isfile(os.path.join(d, MODEL_FILE))]
    if not found:
        return None
    best = max(found, key=os.path.getmtime)
    logger.warning("%s is missing; loading the previous version left aside at %s", path, best)
    return best


def _read_header(path):
    from .formats import read_model_file

    mpath = os.path.join(path, MODEL_FILE)
    raw = read_model_file(mpath, f"missing file ({path} is not a full w2v model; "
                                  "a vectors-only directory loads with w2v.load)")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FormatError(f"{mpath}: not valid JSON (truncated or corrupt): {exc}") from None
    if not isinstance(header, dict) or header.get("format") != MODEL_FORMAT:
        raise FormatError(f"{mpath}: not a w2v model header (format is not {MODEL_FORMAT!r})")
    if header.get("version") != MODEL_VERSION:
        raise FormatError(f"{mpath}: unsupported model format version {header.get('version')!r}")
    return mpath, header


def _settings(header, mpath):
    from .settings import Settings

    raw = header.get("settings")
    if not isinstance(raw, dict):
        raise FormatError(f"{mpath}: 'settings' must be an object")
    names = {f.name for f in dataclasses.fields(Settings)}
    unknown = sorted(set(raw) - names)
    if unknown:
        logger.warning("%s: ignoring unknown settings %s", mpath, ", ".join(unknown))
    try:
        return Settings(**{k: v for k, v in raw.items() if k in names})
    except (ParameterError, TypeError) as exc:
        raise FormatError(f"{mpath}: bad settings: {exc}") from None


def _int(header, key, mpath, lo=0):
    v = header.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise FormatError(f"{mpath}: {key!r} must be an integer >= {lo}, got {v!r}")
    return v


def _training_state(header, mpath):
    t = header.get("training")
    if t is None:
        return None
    if not isinstance(t, dict):
        raise FormatError(f"{mpath}: 'training' must be an object or null")
    state = {k: _int(t, k, mpath) for k in ("epochs", "epochs_done", "corpus_length", "corpus_words")}
    if state["epochs_done"] > state["epochs"]:
        raise FormatError(f"{mpath}: training.epochs_done {state['epochs_done']} > epochs {state['epochs']}")
    files = t.get("corpus_files")
    if files is not None and not (isinstance(files, list) and all(isinstance(f, str) for f in files)):
        raise FormatError(f"{mpath}: training.corpus_files must be a list of paths")
    state["corpus_files"] = files
    sharded = t.get("sharded", False)
    if not isinstance(sharded, bool):
        raise FormatError(f"{mpath}: training.sharded must be true or false, got {sharded!r}")
    if sharded:
        state["sharded"] = True
    return state


def load_model(cls, path):
    """Load a directory written by :func:`save_model` into a new ``cls`` (a Word2Vec).

    Every array is read with ``allow_pickle=False`` and checked (dtype,
    shape, weights finite, Huffman indices in range) before any kernel can
    touch it.

    Raises
    ------
    FormatError
        A file is missing, unreadable, truncated or corrupt, a weight is NaN
        or infinite, or the files disagree; the message names the file.
    FileNotFoundError
        ``path`` does not exist.
    """
    from .arrays import check_finite
    from .formats import read_array
    from .vectors import load_native

    path = os.fspath(path)
    if not os.path.isdir(path):
        if not os.path.lexists(path):
            recovered = _recover_path(path)
            if recovered is None:
                raise FileNotFoundError(2, "No such file or directory", path)
            path = recovered
        else:
            raise FormatError(f"{path}: not a directory; a full w2v model is a directory")
    mpath, header = _read_header(path)
    settings = _settings(header, mpath)
    v = _int(header, "vocab_size", mpath, lo=1)
    dim = _int(header, "dim", mpath, lo=1)
    if dim != settings.dim:
        raise FormatError(f"{mpath}: dim {dim} differs from settings.dim {settings.dim}")
    # checks meta.json, the vectors' shape, vocab.tsv (the values: below, in the copy read)
    kv = load_native(path, mmap=True, check_values=False)
    if len(kv) != v or kv.vector_size != dim:
        raise FormatError(f"{os.path.join(path, 'meta.json')}: {len(kv)} x {kv.vector_size} vectors, "
                          f"but {MODEL_FILE} declares {v} x {dim}")
    vpath = os.path.join(path, "vocab.tsv")
    counts = kv.counts
    if counts is None:
        raise FormatError(f"{vpath}: no word counts (meta.json has_counts is false)")
    total = float(counts.sum(dtype=np.float64)) if counts.size else 0.0
    if counts.size and (counts.min() < 0 or total <= 0 or total > MAX_HUFFMAN_TOTAL):
        raise FormatError(f"{vpath}: word counts must be >= 0, not all zero, and sum to at most "
                          f"{MAX_HUFFMAN_TOTAL:.3g}")
    words = list(kv.index_to_key)
    del kv
    # copies in C order: a file written in Fortran order loads as such (the kernels need C order)
    syn0 = np.array(read_array(os.path.join(path, "vectors.npy"), np.float32, (v, dim)), copy=True, order="C")
    check_finite(syn0, os.path.join(path, "vectors.npy"), words)
    syn1neg = read_array(os.path.join(path, "syn1neg.npy"), np.float32,
                         (v if settings.negative > 0 else None, dim))
    check_finite(syn1neg, os.path.join(path, "syn1neg.npy"), words if settings.negative > 0 else None)
    syn1 = read_array(os.path.join(path, "syn1.npy"), np.float32,
                      (max(1, v - 1) if settings.hs else None, dim))
    check_finite(syn1, os.path.join(path, "syn1.npy"))
    if settings.negative == 0 and syn1neg.shape[0] not in (1, v):
        raise FormatError(f"{os.path.join(path, 'syn1neg.npy')}: {syn1neg.shape[0]} rows, expected 1 or {v}")
    tree = None
    if settings.hs:
        cpath = os.path.join(path, "huffman_codes.npy")
        ppath = os.path.join(path, "huffman_points.npy")
        lpath = os.path.join(path, "huffman_lengths.npy")
        codes = read_array(cpath, np.int8, (v, None))
        points = read_array(ppath, np.int32, codes.shape)
        lengths = read_array(lpath, np.int32, (v,))
        depth = codes.shape[1]
        if depth < 1:
            raise FormatError(f"{cpath}: empty codes")
        if lengths.min() < 1 or lengths.max() > depth:
            raise FormatError(f"{lpath}: code lengths must lie in 1..{depth}")
        if codes.min() < 0 or codes.max() > 1:
            raise FormatError(f"{cpath}: codes must be 0 or 1")
        if points.min() < 0 or points.max() >= syn1.shape[0]:
            raise FormatError(f"{ppath}: inner-node index outside 0..{syn1.shape[0] - 1}")
        tree = HuffmanTree(np.ascontiguousarray(codes), np.ascontiguousarray(points),
                           np.ascontiguousarray(lengths))
    rng = None
    rpath = os.path.join(path, "rng_state.npy")
    if os.path.exists(rpath):
        rng = np.array(read_array(rpath, np.uint64, (None, 1)), copy=True, order="C")
    state = _training_state(header, mpath)

    model = cls(**settings.to_dict())
    try:
        model.vocab = Vocab(words, counts)
    except VocabularyError as exc:
        raise FormatError(f"{vpath}: {exc}") from None
    model.syn0 = syn0
    model.syn1neg = np.array(syn1neg, copy=True, order="C")
    model.syn1 = np.array(syn1, copy=True, order="C")
    model._make_tables()
    if tree is not None:
        model.huffman = tree
        model.tables.hs_codes, model.tables.hs_points, model.tables.hs_lengths = tree.codes, tree.points, tree.lengths
    model._rng_states = rng
    model.run_state = state
    model._corpus_files = state.get("corpus_files") if state else None
    model._wv = None
    return model


# --------------------------------------------------------------------------- settings of a loaded model
#: settings that fix the shape or meaning of the saved arrays
STRUCTURAL = ("model", "dim", "hs")


def update_settings(model, /, **changes):
    """Change settings of a model that has weights (e.g. more epochs or threads to resume with).

    ``model``, ``dim`` and ``hs`` cannot change, nor ``negative`` from 0 to
    more (there are no output vectors for it); the sampling tables are
    rebuilt when ``sample``, ``ns_exponent`` or ``negative`` change.

    Raises
    ------
    ParameterError
        An invalid value or a structural change.
    """
    s = model.settings
    for name in STRUCTURAL:
        if name in changes and changes[name] != getattr(s, name):
            raise ParameterError(f"cannot change {name} of a trained model "
                                 f"({getattr(s, name)!r} -> {changes[name]!r})")
    if model.syn0 is not None and changes.get("negative", s.negative) > 0 and s.negative == 0:
        raise ParameterError("cannot turn on negative sampling for a model trained without it (negative=0)")
    new = dataclasses.replace(s, **changes)
    model.settings = new
    if model.vocab is not None and any(getattr(new, k) != getattr(s, k)
                                       for k in ("sample", "ns_exponent", "negative")):
        tree = model.huffman
        model._make_tables()
        if tree is not None:
            model.huffman = tree
            model.tables.hs_codes, model.tables.hs_points, model.tables.hs_lengths = \
                tree.codes, tree.points, tree.lengths
    model._wv = None
    return model
