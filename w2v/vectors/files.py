"""Files of :class:`w2v.vectors.keyed.KeyedVectors`, under gensim's names and parameters.

These methods load and save word2vec.c's formats (with gensim's ``fvocab``,
``total_vec``, ``write_header``, ``prefix``, ``append``, ``sort_attr``,
``encoding`` and ``no_header``), the native folder (``save`` / ``load``), and
merge a word2vec file into the vectors (``intersect_word2vec_format``).  The
codecs are those of :mod:`w2v.formats`; what they read is checked, so the
loaders build the vectors with :meth:`KeyedVectors.from_trusted`, which checks
nothing again.  The functions are bound in the class body of
:class:`~w2v.vectors.keyed.KeyedVectors` (their first parameter is ``self``,
or ``cls`` for the loaders, bound as classmethods; see :mod:`w2v.vectors.keyed`).
"""
import logging
import os

import numpy as np

from ..util.arrays import check_finite
from ..util.checks import is_finite_real, is_integer
from ..util.aliases import renamed
from ..errors import ParameterError
from ..formats import (check_limit, check_unicode_errors, read_native, read_vocab_counts, read_word2vec, refuse_pickle,
                       write_native, write_vocab_counts, write_word2vec)
from ..formats.archive import is_archive
from .vecattrs import made_up_counts

logger = logging.getLogger(__name__)

__all__ = ["check_words", "float32_vectors", "from_native", "intersect_word2vec_format", "load",
           "load_word2vec_format", "save", "save_word2vec_format"]

_ASCII_SPACE = " \t\n\r\v\f"


def _check_file_arg(value, name):
    """A path (or None): a bool here is w2v's former positional ``binary``, now the third argument."""
    if isinstance(value, (bool, np.bool_)):
        raise ParameterError(f"{name} must be a path or None, got {value!r} (binary is the third argument, "
                             "as in gensim)")


def _mmap_flag(mmap):
    """``mmap`` as a bool: None (the default), True or ``'r'`` map a native folder read-only."""
    if mmap is None or mmap is True or (isinstance(mmap, str) and mmap == "r"):
        return True
    if mmap is False:
        return False
    raise ParameterError(f"mmap must be None or 'r' (memory-map the native vectors read-only) or False "
                         f"(read them into memory), got {mmap!r}")


def _descending(values):
    """The order of ``values`` from largest to smallest, ties in row order (a stable sort)."""
    n = len(values)
    return (n - 1) - np.argsort(values[::-1], kind="stable")[::-1]


@renamed(path="fname")
def load(cls, fname, mmap=None, binary=None, limit=None, unicode_errors="strict"):
    """Load vectors from any supported format (gensim's name; ``path`` is an alias of ``fname``).

    Parameters
    ----------
    fname : str or os.PathLike
        A native model (written by :meth:`save`: a folder, or one file), or
        a word2vec binary or text file, optionally compressed.  A pickle written by gensim's
        ``save`` is refused with a message saying how to convert it.
    mmap : {None, 'r', False}, optional
        For a native folder: None (the default) and ``'r'`` memory-map the
        vectors read-only, False reads them into memory.  (gensim reads
        into memory unless ``mmap='r'``.)  A word2vec file is always read
        into memory, as gensim reads arrays it did not store separately,
        and as :func:`w2v.load` reads it: without counts (the file has
        none; :meth:`load_word2vec_format` makes up gensim's).
    binary : bool, optional
        For word2vec files: binary or text; detected when None.
    limit : int, optional
        Keep only the first ``limit`` vectors.
    unicode_errors : str, optional
        For word2vec files: how words that are not UTF-8 are decoded.

    Returns
    -------
    KeyedVectors

    Raises
    ------
    FormatError
        The file is corrupt, truncated, a pickle or of no supported format.
    ParameterError
        ``mmap`` is another mode, ``limit`` is not a positive integer, or
        ``unicode_errors`` is not an error handler.
    FileNotFoundError
        ``fname`` does not exist.
    """
    flag = _mmap_flag(mmap)
    limit = check_limit(limit)
    check_unicode_errors(unicode_errors)
    path = os.fspath(fname)
    # a missing path is looked up as a native folder: a save killed midway leaves a copy of it
    if os.path.lexists(path) and not os.path.isdir(path) and not is_archive(path):
        refuse_pickle(path)
        return _from_word2vec(cls, path, binary=binary, limit=limit, unicode_errors=unicode_errors)
    kv = from_native(cls, path, mmap=flag)
    if limit is not None and limit < len(kv):
        sub = cls(kv.index_to_key[:limit], kv.vectors[:limit],
                  counts=None if kv.counts is None else kv.counts[:limit], settings=kv.settings)
        sub.source_format, sub.source_path = kv.source_format, kv.source_path
        kv = sub
    return kv


def from_native(cls, path, mmap=True, check_values=True):
    """Load a native folder as an instance of ``cls``; see :func:`w2v.vectors.keyed.load_native`.

    Parameters
    ----------
    cls : type
        :class:`~w2v.vectors.keyed.KeyedVectors` or a subclass.
    path : str or os.PathLike
    mmap : bool, optional
    check_values : bool, optional

    Returns
    -------
    KeyedVectors
    """
    data = read_native(path, mmap=mmap, check_values=check_values)
    kv = cls.from_trusted(data.words, data.vectors, counts=data.counts, settings=data.settings,
                      source=data.vocab_path)
    kv.source_format = "native"
    kv.source_path = os.fspath(path)
    return kv


@renamed(path="fname")
def load_word2vec_format(cls, fname, fvocab=None, binary=None, encoding="utf8", unicode_errors="strict",
                         limit=None, datatype=np.float32, no_header=False):
    """Load word2vec.c's binary or text format, as gensim's method of that name.

    Parameters
    ----------
    fname : str or os.PathLike
        The file (``path`` is an alias); gzip, bzip2 and xz files are
        decompressed, recognised by their first bytes.
    fvocab : str or os.PathLike, optional
        A vocabulary file of ``word count`` lines (word2vec.c's
        ``-save-vocab``): the words' counts (:attr:`counts`, the ``'count'``
        attribute).  A word it does not list gets count 0, with a warning
        (gensim fails with a TypeError).  Without it every word gets
        gensim's made-up count: ``records - row``, descending, where
        ``records`` is the number of records read (the header's count, at
        most ``limit``, duplicates included).
    binary : bool, optional
        Binary (True) or text (False); detected from the first record when
        None, the default (gensim's default is False: text).
    encoding : str, optional
        The words' encoding, ASCII-compatible.
    unicode_errors : str, optional
        How words that do not decode are handled: ``'strict'`` raises
        FormatError; ``'replace'``, ``'ignore'``... are passed on to
        :meth:`bytes.decode`.
    limit : int, optional
        Read only the first ``limit`` vectors.
    datatype : numpy dtype, optional
        The type of :attr:`vectors`: float32 (the default), float16 or
        float64, as gensim casts them (binary values are float32 in the
        file; text numbers are parsed as float64 for float16 and float64).
    no_header : bool, optional
        A text file without the ``"<count> <dim>"`` line (GloVe's files).

    Returns
    -------
    KeyedVectors
        With ``source_format`` ``'word2vec-binary'`` or ``'word2vec-text'``.
        Duplicate words keep their first vector (with a warning), as gensim does.

    Raises
    ------
    FormatError
        Empty, truncated, corrupt or foreign file, a NaN/infinite value
        (or one beyond ``datatype``'s range), or a malformed vocabulary file.
    WordDecodeError
        With ``unicode_errors='strict'``, a word (or a line of ``fvocab``)
        that does not decode: a FormatError that is also the
        :class:`UnicodeDecodeError` gensim raises.
    ParameterError
        ``datatype`` is not float32, float16 or float64, ``no_header`` with
        ``binary=True``, ``limit`` not a positive integer, an unknown
        ``encoding`` or ``unicode_errors``, or ``fvocab`` given a bool.
    FileNotFoundError
        ``fname`` or ``fvocab`` does not exist.
    """
    _check_file_arg(fvocab, "fvocab")
    return _from_word2vec(cls, fname, fvocab=fvocab, binary=binary, encoding=encoding, unicode_errors=unicode_errors,
                          limit=limit, datatype=datatype, no_header=no_header, made_up=True)


def _from_word2vec(cls, fname, fvocab=None, made_up=False, **options):
    """Read a word2vec file as ``cls``: counts from ``fvocab``, else gensim's made up ones or none."""
    data = read_word2vec(fname, **options)
    path = os.fspath(fname)
    counts = made_up_counts(len(data.words), data.records) if made_up else None
    if fvocab is not None:
        listed = read_vocab_counts(fvocab, options.get("unicode_errors", "strict"))
        counts = np.array([listed.get(w, 0) for w in data.words], dtype=np.int64)
        missing = [w for w in data.words if w not in listed]
        if missing:
            logger.warning("%s: %d words of %s are not listed (count 0), e.g. %r", os.fspath(fvocab),
                           len(missing), path, missing[0])
    kv = cls.from_trusted(data.words, data.vectors, counts=counts, key_to_index=data.key_to_index, source=path,
                          dtype=data.vectors.dtype)
    kv.source_format = "word2vec-binary" if data.binary else "word2vec-text"
    kv.source_path = path
    return kv


@renamed(path="fname")
def save(self, fname, **options):
    """Save in the native format, which :meth:`load` and :func:`w2v.load` read (``path`` is an alias).

    gensim's ``save`` pickles the object into one file; w2v writes
    ``vectors.npy``, ``vocab.tsv`` and ``meta.json`` and pickles nothing:
    as one file (an uncompressed zip archive) where ``fname`` is an existing
    file or ends in ``.w2v``, else as a folder
    (:func:`w2v.formats.writes_single_file`).  The ``'count'`` attribute is
    saved; other attributes set with :meth:`set_vecattr` are not.
    ``vectors.npy`` holds float32: float16 vectors are saved exactly, float64
    ones rounded to float32, and both load as float32.  See
    :func:`w2v.vectors.keyed.save_native`.

    Parameters
    ----------
    fname : str or os.PathLike
        The folder or file.
    **options
        gensim's pickle options (``separately``, ``sep_limit``, ``ignore``,
        ``pickle_protocol``) have no meaning here and raise ParameterError.

    Raises
    ------
    ParameterError
        An option is given, ``fname`` is an open file rather than a path,
        or a row reserved by ``KeyedVectors(vector_size, count)`` has no word yet.
    FormatError, OutputError
        As :func:`w2v.vectors.keyed.save_native`; also a float64 value
        beyond the float32 range.
    """
    if options:
        raise ParameterError(f"{', '.join(sorted(options))}: gensim's pickle options; w2v saves a native "
                             "folder and pickles nothing")
    if not isinstance(fname, (str, os.PathLike)):
        raise ParameterError(f"fname must be a path (w2v saves a folder), got {type(fname).__name__}")
    check_words(self, fname)
    write_native(fname, self.index_to_key, float32_vectors(self, fname), counts=self.counts, settings=self.settings)


def float32_vectors(kv, path):
    """The vectors of ``kv`` as the float32 a binary or native file stores.

    Raises
    ------
    FormatError
        A float64 value beyond the float32 range (naming ``path`` and the word).
    """
    vectors = kv.vectors
    if vectors.dtype == np.float64:
        with np.errstate(over="ignore"):
            vectors = vectors.astype(np.float32)
        check_finite(vectors, os.fspath(path), kv.index_to_key, where="cannot save")
    return vectors


def check_words(kv, path):
    """Refuse to save rows reserved by ``KeyedVectors(vector_size, count)`` that have no word yet.

    Raises
    ------
    ParameterError
        Such a row (gensim writes it under the word ``None``).
    """
    keys = kv.index_to_key
    if None in keys:
        raise ParameterError(f"cannot save {os.fspath(path)}: row {keys.index(None)} is reserved for a word to "
                             f"come (KeyedVectors(vector_size, count={len(keys)})) and has none yet; add the "
                             "words with add_vector or add_vectors first")


@renamed(path="fname")
def save_word2vec_format(self, fname, fvocab=None, binary=False, total_vec=None, write_header=True, prefix="",
                         append=False, sort_attr="count"):
    """Save in word2vec.c's format, as gensim's method of that name (``path`` is an alias of ``fname``).

    The file is written atomically; :func:`w2v.vectors.keyed.save_word2vec_format`
    describes the checks.  Binary records end with a newline, as
    word2vec.c writes them (gensim writes none; every reader takes both).

    Parameters
    ----------
    fname : str or os.PathLike
        Target file; a ``.gz``, ``.bz2``, ``.xz`` or ``.lzma`` suffix compresses.
    fvocab : str or os.PathLike, optional
        Also write ``word count`` lines (``sort_attr``'s values) there.
    binary : bool, optional
        Binary (little-endian float32) if True, else text (the default, as
        gensim), with 9 significant digits (17 for float64 vectors).
    total_vec : int, optional
        The count the header declares (default: the number of vectors
        written); larger when more vectors are appended later.
    write_header : bool, optional
        Write the ``"<count> <dim>"`` line.
    prefix : str, optional
        Put in front of every word written (no whitespace).
    append : bool, optional
        Add to the end of an existing file (and of ``fvocab``).
    sort_attr : str or None, optional
        Write the words by descending value of this attribute, ties in row
        order (``'count'``: most frequent first); in row order when the
        vectors have no such attribute, or when None.

    Raises
    ------
    ParameterError
        ``fvocab`` without ``sort_attr`` values, a ``prefix`` holding
        whitespace, a non-numeric ``sort_attr``, a ``total_vec`` that is
        not an integer or, with a header, below the vectors written, or a
        row reserved by ``KeyedVectors(vector_size, count)`` without a word yet.
    FormatError
        A word cannot be written (empty, whitespace), a vector holds
        NaN/inf, or (binary) a float64 value is beyond the float32 range.
    OutputError
        A file cannot be written.
    """
    _check_file_arg(fvocab, "fvocab")
    check_words(self, fname)
    if not isinstance(prefix, str) or any(c in _ASCII_SPACE for c in prefix):
        raise ParameterError(f"prefix must be a str without whitespace, got {prefix!r}")
    order, values = _write_order(self.expandos, sort_attr, fvocab is not None)
    words = self.index_to_key if order is None else [self.index_to_key[i] for i in order.tolist()]
    if prefix:
        words = [prefix + w for w in words]
    total = _header_count(total_vec, len(words), write_header, append)
    vectors = float32_vectors(self, fname) if binary else self.vectors   # the binary format holds float32
    write_word2vec(fname, words, vectors, binary=bool(binary), rows=order, header_count=total,
                   write_header=bool(write_header), append=bool(append))
    if fvocab is not None:
        write_vocab_counts(fvocab, words, values.tolist(), append=bool(append))


def _write_order(expandos, sort_attr, for_vocab):
    """The rows in the order written (None: row order) and ``sort_attr``'s values in that order."""
    values = expandos.get(sort_attr) if isinstance(sort_attr, str) else None
    if sort_attr is not None and not isinstance(sort_attr, str):
        raise ParameterError(f"sort_attr must be an attribute name or None, got {sort_attr!r}")
    if values is None:
        if for_vocab:
            raise ParameterError(f"fvocab: cannot store the vocabulary with {sort_attr!r}: these vectors "
                                 "have no such attribute (no word counts)")
        return None, None
    if values.dtype.kind not in "biuf":
        raise ParameterError(f"sort_attr {sort_attr!r} holds {values.dtype} values, not numbers")
    order = _descending(values)
    if np.array_equal(order, np.arange(len(order))):
        return None, values
    return order, values[order]


def _header_count(total_vec, n, write_header, append):
    """The count the header declares: ``total_vec`` (checked) or the ``n`` vectors written."""
    if total_vec is None:
        return n
    if not is_integer(total_vec) or total_vec < 0:
        raise ParameterError(f"total_vec must be a non-negative integer or None, got {total_vec!r}")
    if write_header and not append and total_vec < n:
        raise ParameterError(f"total_vec ({total_vec}) is below the {n} vectors written: no reader "
                             "could read the file")
    return int(total_vec)


@renamed(path="fname")
def intersect_word2vec_format(self, fname, lockf=0.0, binary=None, encoding="utf8", unicode_errors="strict"):
    """Take the vectors of a word2vec file for the words both hold, as gensim's method of that name.

    No word is added: a word of the vocabulary that the file holds gets
    the file's vector, and ``lockf`` in :attr:`vectors_lockf` (one float32
    per word, created with 1.0 for every word when missing; gensim's
    training scales a word's updates by it, 0.0 freezing the word).
    :attr:`vectors_lockf` is not saved with the vectors.

    Parameters
    ----------
    fname : str or os.PathLike
        A word2vec binary or text file (``path`` is an alias).
    lockf : float, optional
        The lock factor of the words taken from the file.
    binary : bool, optional
        Binary or text; detected when None, the default (gensim's is False).
    encoding : str, optional
        The words' encoding, ASCII-compatible.
    unicode_errors : str, optional
        How words that do not decode are handled.

    Returns
    -------
    int
        How many vectors were taken (gensim returns None and logs it).

    Raises
    ------
    ParameterError
        The file's vectors have another dim, or ``lockf`` is not a finite number.
    FormatError
        The file is corrupt (see :meth:`load_word2vec_format`).
    """
    if not is_finite_real(lockf):
        raise ParameterError(f"lockf must be a finite number, got {lockf!r}")
    data = read_word2vec(fname, binary=binary, unicode_errors=unicode_errors, encoding=encoding)
    if data.vectors.shape[1] != self.vector_size:
        raise ParameterError(f"{os.fspath(fname)}: vectors of dim {data.vectors.shape[1]}, these vectors "
                             f"have dim {self.vector_size}")
    k2i = self.key_to_index
    pairs = [(k2i[w], j) for j, w in enumerate(data.words) if w in k2i]
    if pairs:
        ours, theirs = np.array(pairs, dtype=np.intp).T
        self.store.set_rows(ours, data.vectors[theirs])    # the reader checked the file's values
        self.vectors_lockf = _lock_factors(self)
        self.vectors_lockf[ours] = lockf
    logger.info("merged %d vectors into a %s matrix from %s", len(pairs), self.vectors.shape, fname)
    return len(pairs)


def _lock_factors(kv):
    """:attr:`vectors_lockf` of ``kv`` with one value per word (gensim's one-value array spread to all)."""
    old = getattr(kv, "vectors_lockf", None)
    n = len(kv)
    if old is None:
        return np.ones(n, dtype=np.float32)
    old = np.asarray(old, dtype=np.float32).ravel()
    if len(old) == 1:
        return np.full(n, old[0], dtype=np.float32)
    grown = np.ones(n, dtype=np.float32)
    grown[:min(n, len(old))] = old[:n]
    return grown
