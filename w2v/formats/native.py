"""The native format: a directory of ``vectors.npy``, ``vocab.tsv`` and ``meta.json``.

``vectors.npy`` (memory-mappable float32, one row per word), ``vocab.tsv``
(UTF-8, ``word<TAB>count`` per line in row order) and ``meta.json``
(``{"format": "w2v-native", "version": 1, "count": V, "dim": D,
"settings": {...}, "has_counts": bool}``).  A full model
(:mod:`w2v.persist`) is a superset: the same directory with ``model.json``
and more arrays.

The directory is written into a temporary directory next to the target
and renamed into place; the model it replaces is moved aside first (see
:func:`aside_dirs`) and deleted once the new one is in place.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import tempfile
import warnings
from typing import NamedTuple

import numpy as np

from ..arrays import check_finite
from ..atomic import fsync_dir, os_error_text, umask_mode
from ..errors import FormatError, OutputError
from .files import check_utf8, decode_utf8, json_default, load_npy, read_model_file, write_array

__all__ = ["ASIDE_SUFFIX", "NATIVE_FORMAT", "NATIVE_VERSION", "NativeVectors", "aside_dirs",
           "inspect_native", "is_native_dir", "read_native", "write_native"]

NATIVE_FORMAT = "w2v-native"
NATIVE_VERSION = 1

#: the file that makes a native directory a full model (:mod:`w2v.persist`)
_MODEL_FILE = "model.json"

#: suffix of the directory a save moves the model it replaces to (see :func:`aside_dirs`)
ASIDE_SUFFIX = ".old"

_DIGITS = re.compile(r"[0-9 ]*")


class NativeVectors(NamedTuple):
    """What :func:`read_native` reads from a native directory."""

    #: the words, in row order
    words: list
    #: float32, C-contiguous, shape ``(len(words), dim)`` (a read-only memory map when mapped)
    vectors: np.ndarray
    #: int64 word counts, or None where the directory stores none
    counts: np.ndarray | None
    #: the training settings of meta.json (a dict, empty when unknown)
    settings: dict
    #: the vocabulary's file, for messages about its words
    vocab_path: str


def is_native_dir(path):
    """Whether ``path`` is a directory whose ``meta.json`` names the native format.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    bool
        False for anything unreadable.
    """
    meta = os.path.join(path, "meta.json")
    try:
        with open(meta, "rb") as f:
            return json.loads(f.read().decode("utf-8")).get("format") == NATIVE_FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def _check_replaceable(path, target, full_model):
    """Refuse to write a model to ``target`` where that would lose what the user has.

    An existing file, link, or directory that is neither empty nor a native
    model is refused; so is a full model (a directory holding ``model.json``:
    training state, output weights) when only vectors are to be written, and,
    where ``target`` is missing, a full model that an interrupted save left
    aside there (which :meth:`w2v.model.Word2Vec.load` recovers, and a
    finished save deletes).
    """
    try:
        _check_replaceable_paths(path, target, full_model)
    except OSError as exc:     # e.g. a directory that cannot be listed
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def _check_replaceable_paths(path, target, full_model):
    if os.path.lexists(target):
        if not os.path.isdir(target) or os.path.islink(target):
            raise OutputError(f"cannot write {path}: it exists and is not a model directory")
        if not os.listdir(target):
            return
        if not is_native_dir(target):
            raise OutputError(f"cannot write {path}: refusing to replace a directory that is not a w2v native model")
        if not full_model and os.path.lexists(os.path.join(target, _MODEL_FILE)):
            raise OutputError(f"cannot write {path}: refusing to replace a full w2v model (it holds "
                              f"{_MODEL_FILE}) with vectors only; write them to another directory")
        return
    if not full_model:
        for aside in aside_dirs(target):
            if os.path.lexists(os.path.join(aside, _MODEL_FILE)):
                raise OutputError(
                    f"cannot write {path}: an interrupted save left the full model that was there at "
                    f"{aside} (Word2Vec.load({path!r}) recovers it); refusing to replace it with vectors "
                    "only: move it away or write to another directory")


def write_native(path, words, vectors, counts=None, settings=None, extra=None):
    """Write vectors in the native format (a directory), atomically.

    The files are written into a temporary directory next to ``path``,
    which is renamed into place; an existing native model at ``path`` is
    replaced (other existing directories are refused, and so is a full
    model -- one holding ``model.json`` -- unless ``extra`` writes one).

    Parameters
    ----------
    path : str or os.PathLike
        Target directory.
    words : list of str
        The words, in row order.
    vectors : numpy.ndarray
        float32, shape ``(len(words), dim)``.
    counts : numpy.ndarray, optional
        int64 word counts (``vocab.tsv`` then says 0 for every word, and
        ``meta.json`` ``"has_counts": false``, when None).
    settings : dict, optional
        The training settings, stored in ``meta.json``.
    extra : callable, optional
        ``extra(tmpdir)`` writes further files into the temporary directory
        before it is renamed into place (used by :func:`w2v.persist.save_model`
        to store a full model as a superset of the native format).

    Raises
    ------
    FormatError
        A word is empty or contains a tab, newline or carriage return
        (``vocab.tsv`` cannot hold it), a count is negative, or the settings
        are not JSON-serialisable; nothing is written.
    OutputError
        ``path`` cannot be written, or is an existing file or a directory
        that is not an (empty or) native model, or a full model (holding
        ``model.json``) that ``extra`` would not replace with one.
    """
    path = os.fspath(path)
    target = os.path.abspath(path)
    _check_words_native(words, counts, path)
    try:
        settings = json.loads(json.dumps(settings or {}, default=json_default))
    except (TypeError, ValueError) as exc:
        raise FormatError(f"{path}: settings are not JSON-serialisable: {exc}") from None
    _check_replaceable(path, target, full_model=extra is not None)
    try:
        tmp = tempfile.mkdtemp(dir=os.path.dirname(target), prefix="." + os.path.basename(target) + ".",
                               suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        _write_files(tmp, words, vectors, counts, settings)
        if extra is not None:
            extra(tmp)
        os.chmod(tmp, umask_mode(0o777))
        fsync_dir(tmp)
    except BaseException as exc:
        _discard(tmp, None, target)
        _raise_output_error(path, exc)
    _rename_into_place(path, tmp, target)


def _write_files(tmp, words, vectors, counts, settings):
    """Write ``vectors.npy``, ``vocab.tsv`` and ``meta.json`` into the directory ``tmp``, each fsynced."""
    write_array(os.path.join(tmp, "vectors.npy"), np.asarray(vectors, dtype=np.float32))
    if counts is None:
        lines = [f"{w}\t0\n" for w in words]
    else:
        lines = [f"{w}\t{c}\n" for w, c in zip(words, counts.tolist())]
    _write_bytes(os.path.join(tmp, "vocab.tsv"), "".join(lines).encode("utf-8"))
    meta = {
        "format": NATIVE_FORMAT,
        "version": NATIVE_VERSION,
        "count": len(words),
        "dim": int(vectors.shape[1]),
        "settings": settings,
        "has_counts": counts is not None,
    }
    _write_bytes(os.path.join(tmp, "meta.json"), (json.dumps(meta, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def _write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _rename_into_place(path, tmp, target):
    """Rename the complete directory ``tmp`` to ``target``, moving a model there aside first.

    Once the new model is in place, the model moved aside (and any an
    earlier save left, one interrupted while deleting it) is deleted.
    """
    parent = os.path.dirname(target)
    aside = None
    try:
        if os.path.lexists(target):
            aside = tempfile.mkdtemp(dir=parent, prefix="." + os.path.basename(target) + ".", suffix=ASIDE_SUFFIX)
            os.rmdir(aside)
            os.rename(target, aside)
        os.rename(tmp, target)
        tmp = None
        fsync_dir(parent)
    except BaseException as exc:
        if tmp is not None:
            _discard(tmp, aside, target)
        _raise_output_error(path, exc)
    finally:
        if tmp is None:
            # the new model is in place: the version this save moved aside, and any an earlier
            # save left (one interrupted while deleting it), are no longer needed by load's recovery
            for stale in aside_dirs(target):
                _remove_aside(stale)


def _discard(tmp, aside, target):
    """Delete the unfinished directory ``tmp``; put the model moved ``aside`` back at ``target``."""
    shutil.rmtree(tmp, ignore_errors=True)
    if aside is not None and not os.path.lexists(target):
        try:
            os.rename(aside, target)
        except OSError:
            pass


def _raise_output_error(path, exc):
    """Re-raise ``exc``: an OSError as the OutputError naming ``path``."""
    if isinstance(exc, OSError):
        raise OutputError(f"cannot write {path}: {os_error_text(exc)}") from None
    raise exc


def _remove_aside(path):
    """Delete a model directory a save moved aside, read-only folders included.

    A folder without write permission (a model kept ``chmod 555``) cannot lose
    its files: such folders are made writable first (where this process owns
    them), else the old model stayed behind as ``.NAME.*.old``.
    """
    for root, _, _ in os.walk(path):
        try:
            os.chmod(root, 0o700)
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)


def aside_dirs(path):
    """The directories next to ``path`` where saves moved the model they replaced.

    :func:`write_native` renames an existing model to ``.<name>.<random>.old``
    before renaming the new one in, and deletes it afterwards; a save killed
    in between leaves it there.  The random part holds no dot: ``.m.bak.x1.old``
    is an aside of ``m.bak``, not of ``m`` (a save of ``m`` must not delete it,
    nor ``Word2Vec.load`` of a missing ``m`` load it).

    Parameters
    ----------
    path : str or os.PathLike
        A model directory (it need not exist).

    Returns
    -------
    list of str
        Directories, not links.
    """
    parent, name = os.path.split(os.path.abspath(path))
    prefix = "." + name + "."
    return [d for d in glob.glob(os.path.join(parent, glob.escape(prefix) + "*" + ASIDE_SUFFIX))
            if "." not in os.path.basename(d)[len(prefix):-len(ASIDE_SUFFIX)]
            and os.path.isdir(d) and not os.path.islink(d)]


def _check_words_native(words, counts, path):
    """Refuse, before anything is written, what ``vocab.tsv`` cannot hold or its reader refuses."""
    for i, word in enumerate(words):
        if not word or "\t" in word or "\n" in word or "\r" in word:
            raise FormatError(
                f"{path}: cannot save word {word!r} (row {i}): vocab.tsv cannot hold empty words, "
                "tabs or newlines"
            )
    check_utf8(words, path)
    if counts is not None and counts.size and counts.min() < 0:
        row = int(np.argmin(counts))
        raise FormatError(f"{path}: cannot save count {int(counts[row])} of {words[row]!r} "
                          f"(row {row}): word counts must be >= 0")


def _parse_counts(fields):
    """int64 array of counts written as ASCII digits; None if one is not (or overflows int64).

    Python's ``int()`` also takes ``" 3"``, ``"+3"``, ``"1_0"`` and non-ASCII
    digits; vocab.tsv holds only what :func:`write_native` writes.
    """
    joined = " ".join(fields)
    # digits and the separating spaces only: no sign, underscore, padding or empty field
    if _DIGITS.fullmatch(joined) is None or joined.count(" ") != len(fields) - 1:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            arr = np.fromstring(joined, dtype=np.int64, sep=" ")   # 2-3x faster than np.array(list)
    except (ValueError, Warning):
        return None
    if arr.size != len(fields):
        return None
    if arr.size and arr.max() == np.iinfo(np.int64).max:
        # fromstring saturates on overflow: exact Python ints decide
        try:
            return np.array([int(c) for c in fields], dtype=np.int64)
        except OverflowError:
            return None
    return arr


def _bad_count(path, fields):
    """The FormatError for the first count of ``fields`` that is not a non-negative int64."""
    for k, c in enumerate(fields):
        if not (c.isascii() and c.isdigit()):
            return FormatError(f"{path}: line {k + 1}: bad count {c[:40]!r} (expected decimal digits)")
        if int(c) > np.iinfo(np.int64).max:
            return FormatError(f"{path}: line {k + 1}: count {c[:40]} is too large")
    return FormatError(f"{path}: bad counts")


def _read_vocab(path, count):
    raw = read_model_file(path, "missing file (not a complete w2v native model)")
    text = decode_utf8(raw, path)
    body = text[:-1] if text.endswith("\n") else text
    parts = body.replace("\n", "\t").split("\t") if body else []
    n_lines = body.count("\n") + 1 if body else 0
    if n_lines != count:
        raise FormatError(f"{path}: {n_lines} lines, but meta.json declares {count} words")
    # as many tabs as lines is not one tab a line ("a<TAB>1<TAB>b" then "2"): with that many,
    # the separators alternate if every newline comes second (UTF-8 holds no other 9 or 10 byte)
    seps = np.frombuffer(raw, dtype=np.uint8)
    seps = seps[(seps == 9) | (seps == 10)]
    if len(parts) != 2 * count or (seps[1::2] != 10).any():
        for k, line in enumerate(body.split("\n")):
            if line.count("\t") != 1:
                raise FormatError(f"{path}: line {k + 1}: expected 'word<TAB>count'")
    words = parts[0::2]
    fields = parts[1::2]
    counts = _parse_counts(fields) if count else np.zeros(0, dtype=np.int64)
    if counts is None:
        raise _bad_count(path, fields)
    if "" in words or "\r" in body:
        for k, w in enumerate(words):
            if not w:
                raise FormatError(f"{path}: line {k + 1}: empty word")
            if "\r" in w:
                raise FormatError(f"{path}: line {k + 1}: word {w[:40]!r} holds a carriage return")
    return words, counts


def read_native(path, mmap=True, check_values=True):
    """Read a native-format directory.

    Every file is checked: ``meta.json``, the ``.npy`` header against the
    file's size, the vectors' shape and dtype, that every value is finite
    (in bounded blocks when memory-mapped), and ``vocab.tsv`` (non-empty
    words; counts in ASCII digits).

    Parameters
    ----------
    path : str or os.PathLike
        The directory written by :func:`write_native`.
    mmap : bool, optional
        Memory-map ``vectors.npy`` read-only instead of reading it into memory.
    check_values : bool, optional
        Check every value for NaN and infinity (a caller that reads the
        vectors again, as a full model's loader does, checks that copy).

    Returns
    -------
    NativeVectors

    Raises
    ------
    FormatError
        A file is missing, unreadable or corrupt, a vector holds NaN or
        infinity, or the shapes of the files disagree; the message names
        the file.
    FileNotFoundError
        ``path`` does not exist.
    """
    path = os.fspath(path)
    if not os.path.isdir(path):
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        raise FormatError(f"{path}: not a directory; a native model is a directory")
    count, dim, settings, has_counts = _read_meta(os.path.join(path, "meta.json"))
    vec_path = os.path.join(path, "vectors.npy")
    vectors = _read_vectors(vec_path, count, dim, mmap)
    vocab_path = os.path.join(path, "vocab.tsv")
    words, counts = _read_vocab(vocab_path, count)
    if check_values:
        check_finite(vectors, vec_path, words)
    return NativeVectors(words, vectors, counts if has_counts else None, settings, vocab_path)


def _read_meta(meta_path):
    """``(count, dim, settings, has_counts)`` from a native directory's ``meta.json``."""
    raw = read_model_file(meta_path, "missing file (not a w2v native model directory)")
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FormatError(f"{meta_path}: not valid JSON: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != NATIVE_FORMAT:
        raise FormatError(f"{meta_path}: not a w2v native model (format is not {NATIVE_FORMAT!r})")
    if meta.get("version") != NATIVE_VERSION:
        raise FormatError(f"{meta_path}: unsupported native format version {meta.get('version')!r}")
    count, dim = meta.get("count"), meta.get("dim")
    if not (isinstance(count, int) and isinstance(dim, int) and count >= 0 and dim >= 1):
        raise FormatError(f"{meta_path}: bad count/dim {count!r}/{dim!r}")
    settings = meta.get("settings") or {}
    if not isinstance(settings, dict):
        raise FormatError(f"{meta_path}: settings must be an object")
    return count, dim, settings, meta.get("has_counts", True)


def _read_vectors(vec_path, count, dim, mmap):
    """``vectors.npy`` as C-contiguous float32 of shape ``(count, dim)`` (mapped when ``mmap``)."""
    vectors = load_npy(vec_path, mmap, missing="missing file (not a complete w2v native model)")
    if vectors.shape != (count, dim):
        raise FormatError(f"{vec_path}: array shape {vectors.shape} does not match meta.json ({count}, {dim})")
    if not np.issubdtype(vectors.dtype, np.floating):
        raise FormatError(f"{vec_path}: array dtype {vectors.dtype} is not floating point")
    if vectors.dtype != np.float32 or not vectors.flags.c_contiguous:
        with np.errstate(over="ignore"):
            vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    return vectors


def inspect_native(path):
    """Describe a native directory (see :func:`w2v.formats.inspect`) without scanning its values.

    Parameters
    ----------
    path : str

    Returns
    -------
    dict
        ``format`` (``'native'``), ``count``, ``dim``, ``settings``,
        ``compression`` (None), ``path`` and ``has_counts``.
    """
    data = read_native(path, mmap=True, check_values=False)
    return {"format": "native", "count": len(data.words), "dim": int(data.vectors.shape[1]),
            "settings": data.settings, "compression": None, "path": path, "has_counts": data.counts is not None}
