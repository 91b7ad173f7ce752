"""The native format: ``vectors.npy``, ``vocab.tsv`` and ``meta.json``, as a directory or as one file.

``vectors.npy`` (memory-mappable float32, one row per word), ``vocab.tsv``
(UTF-8, ``word<TAB>count`` per line in row order) and ``meta.json``
(``{"format": "w2v-native", "version": 1, "count": V, "dim": D,
"settings": {...}, "has_counts": bool}``).  A full model
(:mod:`w2v.model.persist`) is a superset: the same members with ``model.json``
and more arrays.

Two forms hold the same members (:func:`writes_single_file` picks one from
the path): a directory of files, and one file, an aligned uncompressed zip
archive whose arrays are memory-mapped in place (:mod:`w2v.formats.archive`).
Readers take either (:func:`open_model`).

A directory is written into a temporary directory next to the target
and renamed into place; the model it replaces is moved aside first (see
:func:`aside_dirs`) and deleted once the new one is in place.  Where a save
was killed between those steps, :func:`locate_model` finds the newest
complete copy it left, for every reader.  A single file is written into a
temporary file next to the target and renamed over it
(:func:`w2v.util.atomic.atomic_write`).
"""
from __future__ import annotations

import glob
import json
import logging
import os
import shutil
import tempfile
from typing import NamedTuple

import numpy as np

from ..util.arrays import check_finite
from ..util.atomic import atomic_write, deferred_signals, fsync_dir, os_error_text, umask_mode
from ..errors import FormatError, OutputError
from .archive import ArchiveMembers, ArchiveWriter, is_archive
from .files import encode_json, read_json, refuse_pickle
from .members import MISSING, FolderMembers, FolderWriter
from .vocab_tsv import check_vocab, vocab_bytes

logger = logging.getLogger(__name__)

__all__ = ["ASIDE_SUFFIX", "NATIVE_FORMAT", "NATIVE_VERSION", "SINGLE_FILE_SUFFIX", "TEMP_SUFFIX", "NativeVectors",
           "aside_dirs", "check_model_target", "inspect_native", "is_model_file", "is_native_dir", "locate_model",
           "open_model", "read_native", "read_native_members", "temp_dirs", "write_native", "writes_single_file"]

NATIVE_FORMAT = "w2v-native"
NATIVE_VERSION = 1

#: the file that makes a native directory a full model (:mod:`w2v.model.persist`)
_MODEL_FILE = "model.json"

#: suffix of the directory a save moves the model it replaces to (see :func:`aside_dirs`)
ASIDE_SUFFIX = ".old"
#: suffix of the directory a save writes the new model into (see :func:`temp_dirs`)
TEMP_SUFFIX = ".tmp"
#: a new path with this suffix (any case) is saved as one file (see :func:`writes_single_file`)
SINGLE_FILE_SUFFIX = ".w2v"


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
    #: the vocabulary's file (or member), for messages about its words
    vocab_path: str


def writes_single_file(path):
    """Whether a model saved to ``path`` is written as one file rather than as a directory.

    One file for an existing path that is not a directory (an existing
    regular file: ``tempfile.NamedTemporaryFile``'s, or a model saved there
    as one file; anything else there is refused by the writer) and for a new
    path ending in :data:`SINGLE_FILE_SUFFIX` (``.w2v``, any case); a
    directory for an existing directory, a path ending in a separator, and
    every other new path.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    bool
    """
    path = os.fspath(path)
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        return False
    return os.path.lexists(path) or path.lower().endswith(SINGLE_FILE_SUFFIX)


def is_model_file(path):
    """Whether ``path`` is a native model saved as one file (its ``meta.json`` names the native format).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    bool
        False for anything unreadable.
    """
    if not is_archive(path):
        return False
    try:
        with ArchiveMembers(path) as members:
            meta = members.read_json("meta.json", "missing")
    except (OSError, FormatError):
        return False
    return isinstance(meta, dict) and meta.get("format") == NATIVE_FORMAT


def open_model(path, full_model=False):
    """The members of the model at ``path``: a directory's files or a single file's members.

    Parameters
    ----------
    path : str or os.PathLike
        An existing model (:func:`locate_model` finds one a killed save left).
    full_model : bool, optional
        A full model is asked for (``Word2Vec.load``): for the message on a pickle.

    Returns
    -------
    w2v.formats.members.ModelMembers
        A context manager; close it once the members are read (mapped
        arrays stay valid).

    Raises
    ------
    FormatError
        ``path`` is a Python pickle (gensim's ``save``; the message says how
        to convert it), or neither a directory nor a single-file model.
    FileNotFoundError
        ``path`` does not exist.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        return FolderMembers(path)
    if not os.path.exists(path):
        raise FileNotFoundError(2, "No such file or directory", path)
    if is_archive(path):
        try:
            return ArchiveMembers(path)
        except OSError as exc:
            raise FormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    refuse_pickle(path, model=full_model)
    raise FormatError(f"{path}: not a w2v model: neither a model directory nor a model saved as one file "
                      "(a zip archive)")


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
    try:
        meta = read_json(os.path.join(path, "meta.json"), "missing")
    except (OSError, FormatError):
        return False
    return isinstance(meta, dict) and meta.get("format") == NATIVE_FORMAT


def check_model_target(path, full_model=False):
    """Refuse, before anything is written, a ``path`` that :func:`write_native` would refuse.

    Where one file is written (:func:`writes_single_file`), an existing path
    must be a regular file (not a link) that is empty or a native model saved
    as one file.  Where a directory is written, an existing path must be a
    directory (not a link) that is empty or a native model.  A full model
    (holding ``model.json``: training state, output weights) is replaced only
    by a full model, and so is one that an interrupted save of a missing
    directory left next to it (which :func:`locate_model` recovers).

    Parameters
    ----------
    path : str or os.PathLike
    full_model : bool, optional
        A full model is to be written.

    Raises
    ------
    OutputError
        As :func:`write_native`.
    """
    path = os.fspath(path)
    target = os.path.abspath(path)
    try:
        if writes_single_file(path):
            _check_replaceable_file(path, target, full_model)
        else:
            _check_replaceable_paths(path, target, full_model)
    except OSError as exc:     # e.g. a directory that cannot be listed
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def _check_replaceable_file(path, target, full_model):
    if not os.path.lexists(target):
        return
    if os.path.islink(target) or not os.path.isfile(target):
        raise OutputError(f"cannot write {path}: it exists and is not a regular file")
    if os.path.getsize(target) == 0:
        return
    if not is_model_file(target):
        raise OutputError(f"cannot write {path}: refusing to replace a file that is not a w2v model (nor empty)")
    if not full_model:
        with ArchiveMembers(target) as members:
            if members.has(_MODEL_FILE):
                raise OutputError(f"cannot write {path}: refusing to replace a full w2v model (it holds "
                                  f"{_MODEL_FILE}) with vectors only; write them to another file")


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
        for aside in _leftovers(target):
            if os.path.lexists(os.path.join(aside, _MODEL_FILE)):
                raise OutputError(
                    f"cannot write {path}: an interrupted save left the full model that was there at "
                    f"{aside} (Word2Vec.load({path!r}) recovers it); refusing to replace it with vectors "
                    "only: move it away or write to another directory")


def write_native(path, words, vectors, counts=None, settings=None, extra=None):
    """Write vectors in the native format (a directory, or one file), atomically.

    :func:`writes_single_file` picks the form from ``path``.  A directory's
    files are written into a temporary directory next to ``path``, which is
    renamed into place; one file is written into a temporary file renamed
    over ``path``.  An existing native model of that form at ``path`` (or an
    empty directory or file) is replaced; anything else there is refused,
    and so is a full model -- one holding ``model.json`` -- unless ``extra``
    writes one (:func:`check_model_target`).

    Parameters
    ----------
    path : str or os.PathLike
        Target directory or file.
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
        ``extra(writer)`` writes further members with ``writer.add_array(name,
        array)`` and ``writer.add_bytes(name, data)`` (a
        :class:`~w2v.formats.members.FolderWriter` or
        :class:`~w2v.formats.archive.ArchiveWriter`) before the model is put
        in place (used by :func:`w2v.model.persist.save_model` to store a full
        model as a superset of the native format); they are written after
        ``vectors.npy`` and ``vocab.tsv``, and ``meta.json`` is written last,
        so that a copy holding ``meta.json`` is complete.

    Raises
    ------
    FormatError
        A word is empty, contains a tab, newline or carriage return, or is
        longer than 128 MiB (``vocab.tsv`` cannot hold it), a count is
        negative, or the settings are not JSON-serialisable, nest deeper
        than 100 levels or take more than 64 MiB; nothing is written.
    OutputError
        ``path`` cannot be written, or is an existing file or a directory
        that is not an (empty or) native model of the form written, or a
        full model (holding ``model.json``) that ``extra`` would not replace
        with one.
    """
    path = os.fspath(path)
    target = os.path.abspath(path)
    check_vocab(words, counts, path)
    settings = json.loads(encode_json(settings or {}, path, "settings"))
    check_model_target(path, full_model=extra is not None)
    if writes_single_file(path):
        with atomic_write(path, "wb") as fh, ArchiveWriter(fh) as out:
            _write_members(out, words, vectors, counts, settings, extra, path)
        return
    try:
        tmp = tempfile.mkdtemp(dir=os.path.dirname(target), prefix="." + os.path.basename(target) + ".",
                               suffix=TEMP_SUFFIX)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        _write_members(FolderWriter(tmp), words, vectors, counts, settings, extra, path)
        os.chmod(tmp, umask_mode(0o777))
        fsync_dir(tmp)
    except BaseException as exc:
        with deferred_signals():
            _discard(tmp, None, target)
        _raise_output_error(path, exc)
    _rename_into_place(path, tmp, target)


def _write_members(out, words, vectors, counts, settings, extra, path):
    """Write ``vectors.npy``, ``vocab.tsv``, what ``extra`` writes, and ``meta.json`` last with ``out``."""
    out.add_array("vectors.npy", np.asarray(vectors, dtype=np.float32))
    out.add_bytes("vocab.tsv", vocab_bytes(words, counts))
    if extra is not None:
        extra(out)
    meta = {
        "format": NATIVE_FORMAT,
        "version": NATIVE_VERSION,
        "count": len(words),
        "dim": int(vectors.shape[1]),
        "settings": settings,
        "has_counts": counts is not None,
    }
    out.add_bytes("meta.json", encode_json(meta, path, "the header"))


def _rename_into_place(path, tmp, target):
    """Rename the complete directory ``tmp`` to ``target``, moving a model there aside first.

    Once the new model is in place, the model moved aside, and the copies
    earlier saves of ``target`` left (:func:`_leftovers`), are deleted.
    Signals are held back (:func:`w2v.util.atomic.deferred_signals`) from the
    first rename to the last deletion, so that Ctrl-C or SIGTERM cannot leave
    ``target`` missing or a copy behind.
    """
    parent = os.path.dirname(target)
    aside = None
    placed = False
    with deferred_signals():
        try:
            if os.path.lexists(target):
                aside = tempfile.mkdtemp(dir=parent, prefix="." + os.path.basename(target) + ".",
                                         suffix=ASIDE_SUFFIX)
                os.rmdir(aside)
                os.rename(target, aside)
            os.rename(tmp, target)
            placed = True
            fsync_dir(parent)
        except BaseException as exc:
            if not placed:
                _discard(tmp, aside, target)
                _raise_output_error(path, exc)
            raise
        finally:
            if placed:
                for stale in _leftovers(target):
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


def _copies(path, suffix):
    """The directories ``.<name>.<random><suffix>`` next to ``path`` (not links); the random part holds no dot."""
    parent, name = os.path.split(os.path.abspath(path))
    prefix = "." + name + "."
    return [d for d in glob.glob(os.path.join(parent, glob.escape(prefix) + "*" + suffix))
            if "." not in os.path.basename(d)[len(prefix):-len(suffix)]
            and os.path.isdir(d) and not os.path.islink(d)]


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
    return _copies(path, ASIDE_SUFFIX)


def temp_dirs(path):
    """The directories next to ``path`` that saves write a new model into, ``.<name>.<random>.tmp``.

    A save killed after it moved the old model aside and before it renamed
    the new one in leaves the new one complete there; one killed earlier
    leaves an incomplete one (without ``meta.json``, which is written last).

    Parameters
    ----------
    path : str or os.PathLike
        A model directory (it need not exist).

    Returns
    -------
    list of str
        Directories, not links, complete or not.
    """
    return _copies(path, TEMP_SUFFIX)


def _completed_at(folder, full_model):
    """When the save that wrote the copy ``folder`` finished (mtime in ns), or None where it is incomplete.

    Complete: ``meta.json`` (written last) is a native header, and every file
    the headers name is there (a copy whose deletion was cut short misses
    some); a full model's ``model.json`` names its arrays.
    """
    try:
        meta = read_json(os.path.join(folder, "meta.json"), "missing")
        if not isinstance(meta, dict) or meta.get("format") != NATIVE_FORMAT:
            return None
        names = ["meta.json", "vectors.npy", "vocab.tsv"]
        if os.path.lexists(os.path.join(folder, _MODEL_FILE)):
            header = read_json(os.path.join(folder, _MODEL_FILE), "missing")
            arrays = header.get("arrays") if isinstance(header, dict) else None
            if not isinstance(arrays, dict) or not all(
                    isinstance(a, str) and a and os.path.basename(a) == a for a in arrays):
                return None
            names += [_MODEL_FILE] + [a + ".npy" for a in arrays]
        elif full_model:
            return None
        return max(os.stat(os.path.join(folder, n)).st_mtime_ns for n in names)
    except (OSError, FormatError):
        return None


def _leftovers(target):
    """What interrupted saves of ``target`` left, which the next save deletes: the models moved
    aside, and the complete new ones never renamed in (an incomplete one may be a save under way)."""
    return aside_dirs(target) + [d for d in temp_dirs(target) if _completed_at(d, False) is not None]


def locate_model(path, full_model=False, warn=None):
    """The directory to read for the model at ``path``: ``path``, or the copy an interrupted save left.

    A save killed between its two renames (``kill -9``, a power cut) leaves
    ``path`` missing, the model it replaced at ``.<name>.<random>.old`` and,
    when it had finished writing, the new one at ``.<name>.<random>.tmp``.
    Every reader (``w2v.load``, ``Word2Vec.load``, ``w2v.formats.inspect``
    and every command that takes a MODEL) then reads the newest complete
    copy (by when its files were written; see :func:`temp_dirs`), and says
    which.  Nothing is moved: the next save of ``path`` deletes the copies.

    Parameters
    ----------
    path : str or os.PathLike
    full_model : bool, optional
        Consider only copies of a full model (holding ``model.json``).
    warn : callable, optional
        Called with one line naming the copy, when one is used; by default
        a logged warning.

    Returns
    -------
    str
        ``path`` itself where it exists (whatever it is), else the copy.

    Raises
    ------
    FileNotFoundError
        Neither ``path`` nor a complete copy of it exists.
    """
    path = os.fspath(path)
    if os.path.lexists(path):
        return path
    found = []
    for copy in aside_dirs(path) + temp_dirs(path):
        done = _completed_at(copy, full_model)
        if done is not None:
            found.append((done, copy))
    if not found:
        raise FileNotFoundError(2, "No such file or directory", path)
    best = max(found)[1]
    (warn or logger.warning)(f"{path} is missing: loading the newest complete copy that an interrupted save "
                             f"left aside, {best}")
    return best


def read_native(path, mmap=True, check_values=True):
    """Read a native model: a directory, or one file.

    Every file (or member) is checked: ``meta.json``, the ``.npy`` header
    against the array's size, the vectors' shape and dtype, that every value
    is finite (in bounded blocks when memory-mapped), and ``vocab.tsv``
    (non-empty words; counts in ASCII digits).

    Parameters
    ----------
    path : str or os.PathLike
        The directory or file written by :func:`write_native`.
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
        A file or member is missing, unreadable or corrupt, a vector holds
        NaN or infinity, or the shapes disagree; the message names the file
        (and the member).  A Python pickle (gensim's ``save``) is refused
        with a message saying how to convert it.
    FileNotFoundError
        ``path`` does not exist, nor a complete copy an interrupted save left
        (:func:`locate_model`, which logs a warning naming the copy it reads).
    """
    with open_model(locate_model(path)) as members:
        return read_native_members(members, mmap, check_values)


def read_native_members(members, mmap=True, check_values=True):
    """Read the native part of an open model (see :func:`read_native`).

    Parameters
    ----------
    members : w2v.formats.members.ModelMembers
        From :func:`open_model`.
    mmap, check_values : bool, optional

    Returns
    -------
    NativeVectors
    """
    count, dim, settings, has_counts = _read_meta(members)
    vectors = _read_vectors(members, count, dim, mmap)
    words, counts = members.read_vocab("vocab.tsv", count)
    if check_values:
        check_finite(vectors, members.label("vectors.npy"), words)
    return NativeVectors(words, vectors, counts if has_counts else None, settings, members.label("vocab.tsv"))


def _read_meta(members):
    """``(count, dim, settings, has_counts)`` from a native model's ``meta.json``."""
    meta = members.read_json("meta.json", "missing file (not a w2v native model)")
    meta_path = members.label("meta.json")
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


def _read_vectors(members, count, dim, mmap):
    """``vectors.npy`` as C-contiguous float32 of shape ``(count, dim)`` (mapped when ``mmap``)."""
    vec_path = members.label("vectors.npy")
    vectors = members.load_npy("vectors.npy", mmap, missing=MISSING)
    if vectors.shape != (count, dim):
        raise FormatError(f"{vec_path}: array shape {vectors.shape} does not match meta.json ({count}, {dim})")
    if not np.issubdtype(vectors.dtype, np.floating):
        raise FormatError(f"{vec_path}: array dtype {vectors.dtype} is not floating point")
    if vectors.dtype != np.float32 or not vectors.flags.c_contiguous:
        with np.errstate(over="ignore"):
            vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    return vectors


def inspect_native(path):
    """Describe a native model (see :func:`w2v.formats.inspect`) without scanning its values.

    Parameters
    ----------
    path : str

    Returns
    -------
    dict
        ``format`` (``'native'``), ``count``, ``dim``, ``settings``,
        ``compression`` (None), ``path``, ``has_counts``, ``single_file``
        (saved as one file) and ``full_model`` (the JSON header
        ``model.json`` of a full model, else None).
    """
    with open_model(locate_model(path)) as members:
        data = read_native_members(members, mmap=True, check_values=False)
        header = members.read_json(_MODEL_FILE, "missing") if members.has(_MODEL_FILE) else None
        single = not isinstance(members, FolderMembers)
    return {"format": "native", "count": len(data.words), "dim": int(data.vectors.shape[1]),
            "settings": data.settings, "compression": None, "path": path, "has_counts": data.counts is not None,
            "single_file": single, "full_model": header if isinstance(header, dict) else None}
