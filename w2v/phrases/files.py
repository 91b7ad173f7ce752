"""Phrase model folders: JSON, a words file and ``.npy`` arrays, written atomically, never pickled.

A folder holds:

* ``meta.json``: ``{"format": "w2v-phrases", "version": 1, "kind": "counts" | "frozen",
  "settings": {...}, "tokens": N, "pruned": bool, "min_reduce": int,
  "corpus_word_count": int, "passes": int}``;
* ``tokens.txt``: the N tokens, UTF-8, one per line (ids are line numbers from 0);
* ``run_offsets.npy`` (int64, R + 1) and ``runs.npy`` (int32): connector run ``r``
  (from 1) is ``runs[run_offsets[r - 1]:run_offsets[r]]``;
* counts (``Phrases.save``): ``unigram.npy`` (int64, N) and ``pairs.npy``
  (int64, P x 4: ``a, b, run, count``);
* phrases (``FrozenPhrases.save``): ``phrases.npy`` (int64, P x 5: ``pass, a,
  b, run, token``; a phrase of pass k joins tokens that passes before k made)
  and ``scores.npy`` (float64, P).

The files are written into a temporary folder next to the target, which is
then renamed into place (an existing phrase model there is replaced; any
other existing folder is refused).  Loading checks every file, and every id
against its range, before anything is used: a damaged folder is a
:class:`~w2v.errors.FormatError` naming the file.
"""
import json
import os
import shutil
import tempfile

import numpy as np

from ..util.atomic import fsync_dir, os_error_text, umask_mode
from ..errors import FormatError, OutputError, ParameterError
from ..formats.files import read_array, read_model_file, write_array
from .settings import MAX_PASSES, PhraseSettings
from .tables import JoinTable, RunTable

FORMAT = "w2v-phrases"
VERSION = 1
KINDS = ("counts", "frozen")


def save_counts(path, model):
    """Save a :class:`~w2v.phrases.model.Phrases` (its counts) in the folder ``path``."""
    keys, runs, counts = model.pairs.entries()
    pairs = np.stack([keys >> 32, keys & 0xFFFFFFFF, runs, counts], axis=1).astype(np.int64)
    offsets, run_tokens = model.runs.arrays()
    meta = {"kind": "counts", "pruned": bool(model.pruned), "min_reduce": int(model.min_reduce),
            "corpus_word_count": int(model.corpus_word_count), "passes": 1}
    arrays = {"unigram.npy": model.unigram_counts, "pairs.npy": pairs,
              "run_offsets.npy": offsets, "runs.npy": run_tokens}
    _write(path, meta, model.settings, model.tokens, arrays)


def save_frozen(path, model):
    """Save a :class:`~w2v.phrases.model.FrozenPhrases` in the folder ``path``: only the tokens its phrases use."""
    rows = []
    for k, (join, _) in enumerate(model.layers):
        rows.append(np.stack([np.full(len(join), k), join.keys >> 32, join.keys & 0xFFFFFFFF, join.runs,
                              join.out.astype(np.int64)], axis=1))
    table = np.concatenate(rows).astype(np.int64) if rows else np.zeros((0, 5), np.int64)
    scores = np.concatenate([s for _, s in model.layers]) if rows else np.zeros(0, np.float64)
    offsets, run_tokens = model.runs.arrays()
    used = np.unique(np.concatenate([table[:, 1], table[:, 2], table[:, 4], run_tokens.astype(np.int64)]))
    new_id = np.full(len(model.tokens), -1, np.int64)
    new_id[used] = np.arange(used.size)
    table[:, [1, 2, 4]] = new_id[table[:, [1, 2, 4]]]
    meta = {"kind": "frozen", "pruned": bool(model.pruned), "min_reduce": 0, "corpus_word_count": 0,
            "passes": len(model.layers)}
    arrays = {"phrases.npy": table, "scores.npy": scores.astype(np.float64), "run_offsets.npy": offsets,
              "runs.npy": new_id[run_tokens].astype(np.int32)}
    _write(path, meta, model.settings, [model.tokens[i] for i in used.tolist()], arrays)


def _write(path, meta, settings, tokens, arrays):
    path = os.fspath(path)
    for i, w in enumerate(tokens):
        if "\n" in w or "\r" in w:
            raise ParameterError(f"{path}: cannot save token {w!r} (id {i}): tokens.txt cannot hold newlines")
    target = os.path.abspath(path)
    _check_replaceable(path, target)
    meta = {"format": FORMAT, "version": VERSION, **meta, "settings": settings.to_dict(), "tokens": len(tokens)}
    try:
        tmp = tempfile.mkdtemp(dir=os.path.dirname(target), prefix="." + os.path.basename(target) + ".",
                               suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {os_error_text(exc)}") from None
    try:
        for name, array in arrays.items():
            write_array(os.path.join(tmp, name), array)
        _write_bytes(os.path.join(tmp, "tokens.txt"), "".join(w + "\n" for w in tokens).encode("utf-8"))
        _write_bytes(os.path.join(tmp, "meta.json"), (json.dumps(meta, indent=1) + "\n").encode("utf-8"))
        os.chmod(tmp, umask_mode(0o777))
        fsync_dir(tmp)
        _swap_into_place(tmp, target)
        tmp = None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {os_error_text(exc)}") from None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _check_replaceable(path, target):
    """Refuse to replace a file, or a folder that is neither empty nor a phrase model."""
    if not os.path.lexists(target):
        parent = os.path.dirname(target)
        if not os.path.isdir(parent):
            raise OutputError(f"cannot write {path}: folder {parent} does not exist")
        return
    if not os.path.isdir(target) or os.path.islink(target):
        raise OutputError(f"cannot write {path}: it exists and is not a folder")
    if os.listdir(target) and not _is_phrase_dir(target):
        raise OutputError(f"cannot write {path}: the folder exists and does not hold a phrase model "
                          "(only an empty folder or a phrase model is replaced)")


def _is_phrase_dir(path):
    try:
        with open(os.path.join(path, "meta.json"), "rb") as f:
            return json.loads(f.read()).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def _swap_into_place(tmp, target):
    """Rename the finished folder ``tmp`` to ``target``, the folder there first moved aside."""
    aside = None
    if os.path.lexists(target):
        aside = tempfile.mkdtemp(dir=os.path.dirname(target), prefix="." + os.path.basename(target) + ".",
                                 suffix=".old")
        os.rmdir(aside)
        os.rename(target, aside)
    try:
        os.rename(tmp, target)
    except OSError:
        if aside is not None:
            os.rename(aside, target)
        raise
    fsync_dir(os.path.dirname(target))
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


# --------------------------------------------------------------------------- loading
def load_any(phrases_cls, frozen_cls, path):
    """The model in the folder ``path``: a ``phrases_cls`` (counts) or a ``frozen_cls``."""
    meta, settings, tokens = _read_common(path)
    if meta["kind"] == "counts":
        return load_counts(phrases_cls, path, (meta, settings, tokens))
    return _load_frozen(frozen_cls, path, meta, settings, tokens)


def load_counts(cls, path, read=None):
    """A ``cls`` (:class:`~w2v.phrases.model.Phrases`) with the counts saved in ``path``.

    Raises
    ------
    FormatError
        The folder holds frozen phrases, or is missing, corrupt or foreign.
    """
    meta, settings, tokens = read or _read_common(path)
    if meta["kind"] != "counts":
        raise FormatError(f"{path}: holds frozen phrases, not counts: load it with FrozenPhrases.load")
    n = len(tokens)
    unigram = read_array(os.path.join(path, "unigram.npy"), np.int64, (n,))
    pairs = read_array(os.path.join(path, "pairs.npy"), np.int64, (None, 4))
    offsets, runs = _read_runs(path, n)
    f = os.path.join(path, "pairs.npy")
    _in_range(f, pairs[:, :2], 0, n, "a token id")
    _in_range(f, pairs[:, 2], 0, offsets.size, "a run id")
    _in_range(f, pairs[:, 3], 1, 1 << 62, "a count")
    _in_range(os.path.join(path, "unigram.npy"), unigram, 0, 1 << 62, "a count")
    model = cls(min_count=settings.min_count, threshold=settings.threshold, scoring=settings.scoring,
                delimiter=settings.delimiter, connector_words=settings.connector_words,
                max_vocab_size=settings.max_table_size, max_sentence_length=settings.max_sentence_length)
    keys = (pairs[:, 0] << 32) | pairs[:, 1]
    return model.restore(tokens, unigram, keys, pairs[:, 2].copy(), pairs[:, 3].copy(), offsets, runs,
                         meta["corpus_word_count"], meta["min_reduce"], meta["pruned"])


def _load_frozen(cls, path, meta, settings, tokens):
    n = len(tokens)
    table = read_array(os.path.join(path, "phrases.npy"), np.int64, (None, 5))
    scores = read_array(os.path.join(path, "scores.npy"), np.float64, (table.shape[0],))
    offsets, runs = _read_runs(path, n)
    f = os.path.join(path, "phrases.npy")
    passes = meta["passes"]
    _in_range(f, table[:, 0], 0, passes, "a pass")
    _in_range(f, table[:, [1, 2, 4]], 0, n, "a token id")
    _in_range(f, table[:, 3], 0, offsets.size, "a run id")
    if table.shape[0] and np.any(np.diff(table[:, 0]) < 0):
        raise FormatError(f"{f}: the phrases are not in pass order")
    if np.isnan(scores).any():
        raise FormatError(f"{os.path.join(path, 'scores.npy')}: a score is NaN")
    model = cls.on_tokens(settings, tokens)
    model.runs = RunTable.from_arrays(offsets, runs)
    model.pruned = meta["pruned"]
    for k in range(passes):
        rows = table[table[:, 0] == k]
        keys = (rows[:, 1] << 32) | rows[:, 2]
        model.layers.append((JoinTable(keys, rows[:, 3], rows[:, 4]), scores[table[:, 0] == k].copy()))
    return model


def _read_common(path):
    """``(meta, settings, tokens)`` of the model folder ``path``, checked."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        if not os.path.exists(path):
            raise FormatError(f"{path}: no such phrase model (a folder written by w2v phrases --save-model)")
        raise FormatError(f"{path}: not a phrase model folder")
    meta_path = os.path.join(path, "meta.json")
    raw = read_model_file(meta_path, "missing: not a phrase model folder")
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FormatError(f"{meta_path}: corrupt JSON: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise FormatError(f"{meta_path}: not a w2v phrase model (format {FORMAT!r} expected)")
    if meta.get("version") != VERSION:
        raise FormatError(f"{meta_path}: unsupported version {meta.get('version')!r} (this w2v reads {VERSION})")
    _check_meta(meta, meta_path)
    try:
        settings = PhraseSettings.from_dict(meta.get("settings"))
    except (ParameterError, TypeError) as exc:
        raise FormatError(f"{meta_path}: bad settings: {exc}") from None
    tokens_path = os.path.join(path, "tokens.txt")
    raw = read_model_file(tokens_path, "missing file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{tokens_path}: not UTF-8 at byte {exc.start}") from None
    if text and not text.endswith("\n"):
        raise FormatError(f"{tokens_path}: truncated (no newline after the last token)")
    tokens = text.split("\n")[:-1] if text else []
    if len(tokens) != meta["tokens"]:
        raise FormatError(f"{tokens_path}: {len(tokens):,} tokens, meta.json says {meta['tokens']:,}")
    if len(set(tokens)) != len(tokens) or "" in tokens:
        raise FormatError(f"{tokens_path}: a token is empty or listed twice")
    return meta, settings, tokens


def _check_meta(meta, where):
    expect = {"kind": str, "pruned": bool, "min_reduce": int, "corpus_word_count": int, "passes": int,
              "tokens": int}
    for key, kind in expect.items():
        value = meta.get(key)
        if not isinstance(value, kind) or (kind is int and (isinstance(value, bool) or value < 0)):
            raise FormatError(f"{where}: bad or missing {key!r}: {value!r}")
    if meta["kind"] not in KINDS:
        raise FormatError(f"{where}: unknown kind {meta['kind']!r}")
    if not 1 <= meta["passes"] <= MAX_PASSES:
        raise FormatError(f"{where}: bad 'passes': {meta['passes']!r}")


def _read_runs(path, n_tokens):
    offsets = read_array(os.path.join(path, "run_offsets.npy"), np.int64, (None,))
    runs = read_array(os.path.join(path, "runs.npy"), np.int32, (None,))
    f = os.path.join(path, "run_offsets.npy")
    if offsets.size == 0 or offsets[0] != 0 or offsets[-1] != runs.size or np.any(np.diff(offsets) < 1):
        raise FormatError(f"{f}: the offsets do not cut runs.npy into non-empty runs")
    _in_range(os.path.join(path, "runs.npy"), runs, 0, n_tokens, "a token id")
    return np.ascontiguousarray(offsets), np.ascontiguousarray(runs)


def _in_range(path, values, lo, hi, what):
    if values.size and (values.min() < lo or values.max() >= hi):
        raise FormatError(f"{path}: {what} out of range [{lo}, {hi})")
