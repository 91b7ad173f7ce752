"""Full models: save and load every training array and the state of the latest run.

A saved model is a superset of the native vectors format
(:func:`w2v.vectors.keyed.save_native`), so ``w2v.load(path)`` (and every ``w2v``
command that takes a MODEL) reads its input vectors as is.  Like the native
format it is a directory or one file (an aligned, uncompressed zip archive of
the same files, :mod:`w2v.formats.archive`; :func:`w2v.formats.writes_single_file`
picks the form from the path), holding::

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
nothing is pickled.  The model is written into a temporary directory (or
file) next to the target and renamed into place (an existing model there is
replaced), so a reader (or a resumed run) sees the previous model or the new
one, never a mix.  ``model.json`` is written after the arrays, and the native
header ``meta.json`` last of all.

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
import logging
import os

import numpy as np

from .. import __version__
from ..util.arrays import check_finite
from ..util.caller_warnings import warn
from ..errors import FormatError, ParameterError, ResumeWarning, VocabularyError
from ..formats import encode_json, locate_model, open_model, read_native_members, writes_single_file
from ..training.sampling import MAX_HUFFMAN_TOTAL, HuffmanTree
from ..settings import Settings
from ..vectors.keyed import save_native
from ..text.vocab import Vocab

logger = logging.getLogger(__name__)

__all__ = ["MODEL_FORMAT", "MODEL_VERSION", "save_model", "load_model"]

MODEL_FORMAT = "w2v-model"
MODEL_VERSION = 1
MODEL_FILE = "model.json"
MAX_TICKS = 100_000   # progress ticks in training.progress (a run records about 100)


# --------------------------------------------------------------------------- save
def _member_label(path, name):
    """How messages name the file ``name`` of the model to be saved at ``path``."""
    return f"{os.fspath(path)}[{name}]" if writes_single_file(path) else os.path.join(path, name)


def _check_arrays_to_save(model, arrays, path):
    """Refuse what :func:`load_model` would reject: weights of the wrong shape (replaced by hand),
    random states not one per thread, NaN or infinite weights (a diverged run)."""

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
    check_finite(syn0, _member_label(path, "vectors.npy"), model.vocab.words)
    check_finite(arrays["syn1neg"], _member_label(path, "syn1neg.npy"),
                 model.vocab.words if s.negative > 0 else None)
    check_finite(arrays["syn1"], _member_label(path, "syn1.npy"))


def save_model(model, path):
    """Write the full model to ``path`` (a directory, or one file), atomically (see the module docstring).

    Raises
    ------
    VocabularyError
        The model has no vocabulary yet.
    ParameterError
        A weight matrix or the random states have the wrong shape (replaced
        by hand): nothing is written that :func:`load_model` would reject.
    FormatError
        A weight is NaN or infinite (a diverged run); the message names the
        file it would be written to.  Otherwise as
        :func:`w2v.vectors.keyed.save_native`.
    OutputError
        As :func:`w2v.vectors.keyed.save_native`.
    """

    if model.vocab is None or model.syn0 is None:
        raise VocabularyError("model has no vocabulary yet: nothing to save")
    s = model.settings
    v, dim = len(model.vocab), s.dim
    arrays = {"syn1neg": np.asarray(model.syn1neg, np.float32), "syn1": np.asarray(model.syn1, np.float32)}
    if s.hs:
        tree = model.huffman
        arrays["huffman_codes"] = np.asarray(tree.codes, np.int8)
        arrays["huffman_points"] = np.asarray(tree.points, np.int32)
        arrays["huffman_lengths"] = np.asarray(tree.lengths, np.int32)
    rng = model.rng_states
    if rng is not None:
        arrays["rng_state"] = np.asarray(rng, np.uint64)
    _check_arrays_to_save(model, arrays, path)
    state = model.run_state
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
    # fail on bad settings before writing anything; numpy scalars (settings such as dim=np.int64(100)
    # pass validation) are written as numbers
    header_bytes = encode_json(header, path, "the model's settings and state")

    def extra(out):
        for name, a in arrays.items():
            out.add_array(name + ".npy", a)
        out.add_bytes(MODEL_FILE, header_bytes)

    if model.wv.settings != s.to_dict():   # wv.settings edited: the native header records the model's
        model.invalidate_vectors()
    save_native(model.wv, path, extra=extra)


# --------------------------------------------------------------------------- load
def _read_header(members):

    mpath = members.label(MODEL_FILE)
    header = members.read_json(MODEL_FILE, f"missing file ({members.path} is not a full w2v model; "
                                           "a vectors-only model loads with w2v.load)")
    if not isinstance(header, dict) or header.get("format") != MODEL_FORMAT:
        raise FormatError(f"{mpath}: not a w2v model header (format is not {MODEL_FORMAT!r})")
    if header.get("version") != MODEL_VERSION:
        raise FormatError(f"{mpath}: unsupported model format version {header.get('version')!r}")
    return mpath, header


def _settings(header, mpath):

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
    ticks = t.get("progress")
    if ticks is not None:
        state["progress"] = _progress_ticks(ticks, mpath)
    fp = t.get("corpus_fingerprint")
    if fp is not None:
        if not (isinstance(fp, dict) and isinstance(fp.get("hash"), str) and len(fp["hash"]) == 32):
            raise FormatError(f"{mpath}: training.corpus_fingerprint must hold a 32-digit hash")
        state["corpus_fingerprint"] = {"ids": _int(fp, "ids", mpath), "words": _int(fp, "words", mpath),
                                       "hash": fp["hash"]}
    if t.get("position"):
        state.update(_mid_epoch_state(t, mpath))
    return state


def _mid_epoch_state(t, mpath):
    # a checkpoint saved within an epoch: where (w2v.training.lifecycle.MID_EPOCH_KEYS), checked before a run trusts it
    out = {"position": _int(t, "position", mpath), "mode": t.get("mode")}
    if out["mode"] not in ("jobs", "lanes"):
        raise FormatError(f"{mpath}: training.mode must be 'jobs' or 'lanes', got {out['mode']!r}")
    stats = t.get("epoch_stats")
    if not (isinstance(stats, list) and len(stats) == 4
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x) for x in stats)):
        raise FormatError(f"{mpath}: training.epoch_stats must be 4 finite numbers")
    out["epoch_stats"] = [float(x) for x in stats]
    if out["mode"] == "lanes":
        out.update({k: _int(t, k, mpath) for k in ("round", "lanes", "round_words")})
    return out


def _progress_ticks(ticks, mpath):
    # training.progress: the run's progress ticks (w2v.training.lifecycle.TICK_COLUMNS), rows of 7 numbers or nulls
    def number(x):
        return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool))

    if not (isinstance(ticks, list) and len(ticks) <= MAX_TICKS
            and all(isinstance(r, list) and len(r) == 7 and all(map(number, r)) for r in ticks)):
        raise FormatError(f"{mpath}: training.progress must be a list of at most {MAX_TICKS:,} rows of 7 numbers")
    return ticks


def load_model(cls, path):
    """Load a model written by :func:`save_model` (a directory or one file) into a new ``cls`` (a Word2Vec).

    Every array is read with ``allow_pickle=False`` and checked (dtype,
    shape, weights finite, Huffman indices in range) before any kernel can
    touch it; the model is made with the saved settings and receives the rest
    through :meth:`~w2v.model.word2vec.Word2Vec.restore`.

    A ``path`` that a save killed midway left missing is read from the
    newest complete copy of a full model that save left, with a logged
    warning naming it (:func:`w2v.formats.locate_model`).

    Raises
    ------
    FormatError
        A file is missing, unreadable, truncated or corrupt, a weight is NaN
        or infinite, or the files disagree; the message names the file (and
        the member of a model saved as one file).  A Python pickle (gensim's
        ``save``) is refused with a message saying how to carry its vectors
        over.
    FileNotFoundError
        ``path`` does not exist, nor a complete copy of it.
    """
    with open_model(locate_model(path, full_model=True), full_model=True) as members:
        settings, state, vocab, weights, tree, rng = _read_model(members)
    model = cls(**settings.to_dict())
    return model.restore(vocab, *weights, huffman=tree, rng_states=rng, run_state=state)


def _read_model(members):
    """``(settings, run state, vocabulary, (syn0, syn1neg, syn1), Huffman tree, random states)``, checked."""
    mpath, header = _read_header(members)
    settings = _settings(header, mpath)
    v = _int(header, "vocab_size", mpath, lo=1)
    dim = _int(header, "dim", mpath, lo=1)
    if dim != settings.dim:
        raise FormatError(f"{mpath}: dim {dim} differs from settings.dim {settings.dim}")
    words, counts = _read_vocab(members, v, dim)
    weights = _read_weights(members, settings, words)
    tree = _read_huffman(members, v, weights[2].shape[0]) if settings.hs else None
    rng = None
    if members.has("rng_state.npy"):   # optional; but a link or pipe in its place is refused, not skipped
        rng = np.array(members.read_array("rng_state.npy", np.uint64, (None, 1)), copy=True, order="C")
    state = _training_state(header, mpath)
    _check_version(header, state, mpath)
    try:
        vocab = Vocab(words, counts)
    except VocabularyError as exc:
        raise FormatError(f"{members.label('vocab.tsv')}: {exc}") from None
    return settings, state, vocab, weights, tree, rng


def _check_version(header, state, mpath):
    # an unfinished run (a checkpoint) of another w2v version continues, but may not match the
    # uninterrupted run bit for bit: the kernels or the merge may have changed
    written = header.get("w2v_version")
    unfinished = state and (state.get("epochs_done", 0) < state.get("epochs", 0) or state.get("position"))
    if unfinished and written != __version__:
        warn(f"{mpath}: a checkpoint of w2v {written}, resumed by w2v {__version__}: the run continues, "
             "but its vectors may differ from an uninterrupted run's", ResumeWarning)


def _read_vocab(members, v, dim):
    """The words and counts of the native part (meta.json, vocab.tsv), checked against the header."""

    # checks meta.json, the vectors' shape, vocab.tsv (the values: in _read_weights, in the copy read)
    native = read_native_members(members, mmap=True, check_values=False)
    if len(native.words) != v or native.vectors.shape[1] != dim:
        raise FormatError(f"{members.label('meta.json')}: {len(native.words)} x {native.vectors.shape[1]} vectors, "
                          f"but {MODEL_FILE} declares {v} x {dim}")
    vpath = members.label("vocab.tsv")
    counts = native.counts
    if counts is None:
        raise FormatError(f"{vpath}: no word counts (meta.json has_counts is false)")
    total = float(counts.sum(dtype=np.float64)) if counts.size else 0.0
    if counts.size and (counts.min() < 0 or total <= 0 or total > MAX_HUFFMAN_TOTAL):
        raise FormatError(f"{vpath}: word counts must be >= 0, not all zero, and sum to at most "
                          f"{MAX_HUFFMAN_TOTAL:.3g}")
    return native.words, counts


def _read_weights(members, settings, words):
    """``(syn0, syn1neg, syn1)``: C-ordered float32 copies, shapes and values checked."""

    v, dim = len(words), settings.dim
    # copies in C order: a file written in Fortran order loads as such (the kernels need C order)
    syn0 = np.array(members.read_array("vectors.npy", np.float32, (v, dim)), copy=True, order="C")
    check_finite(syn0, members.label("vectors.npy"), words)
    syn1neg = members.read_array("syn1neg.npy", np.float32, (v if settings.negative > 0 else None, dim))
    check_finite(syn1neg, members.label("syn1neg.npy"), words if settings.negative > 0 else None)
    syn1 = members.read_array("syn1.npy", np.float32, (max(1, v - 1) if settings.hs else None, dim))
    check_finite(syn1, members.label("syn1.npy"))
    if settings.negative == 0 and syn1neg.shape[0] not in (1, v):
        raise FormatError(f"{members.label('syn1neg.npy')}: {syn1neg.shape[0]} rows, expected 1 or {v}")
    return syn0, np.array(syn1neg, copy=True, order="C"), np.array(syn1, copy=True, order="C")


def _read_huffman(members, v, inner_nodes):
    """The saved Huffman tree of ``v`` words over ``inner_nodes`` rows of syn1, indices checked."""

    cpath = members.label("huffman_codes.npy")
    ppath = members.label("huffman_points.npy")
    lpath = members.label("huffman_lengths.npy")
    codes = members.read_array("huffman_codes.npy", np.int8, (v, None))
    points = members.read_array("huffman_points.npy", np.int32, codes.shape)
    lengths = members.read_array("huffman_lengths.npy", np.int32, (v,))
    depth = codes.shape[1]
    if depth < 1:
        raise FormatError(f"{cpath}: empty codes")
    if lengths.min() < 1 or lengths.max() > depth:
        raise FormatError(f"{lpath}: code lengths must lie in 1..{depth}")
    if codes.min() < 0 or codes.max() > 1:
        raise FormatError(f"{cpath}: codes must be 0 or 1")
    if points.min() < 0 or points.max() >= inner_nodes:
        raise FormatError(f"{ppath}: inner-node index outside 0..{inner_nodes - 1}")
    return HuffmanTree(np.ascontiguousarray(codes), np.ascontiguousarray(points), np.ascontiguousarray(lengths))
