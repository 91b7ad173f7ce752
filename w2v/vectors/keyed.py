"""Trained word vectors: :class:`KeyedVectors`, and loading and saving them.

:class:`KeyedVectors` holds a vocabulary (``index_to_key``) and a float32
matrix with one row per word.  Its query methods follow gensim's
``KeyedVectors`` semantics (cosine similarity, the mean of unit vectors with
weights +1/-1, input words excluded from the answers), so results can be
compared one to one.  The class is assembled from mixins, one per concept:
lookups (:mod:`w2v.vectors.lookup`), similarities of given words
(:mod:`w2v.vectors.similarity`), nearest-neighbour queries (:mod:`w2v.vectors.neighbours`),
ranks and document distances (:mod:`w2v.vectors.ranking`), per-word attributes
(:mod:`w2v.vectors.vecattrs`), adding and changing vectors (:mod:`w2v.vectors.editing`),
files (:mod:`w2v.vectors.files`), evaluation (:mod:`w2v.vectors.intrinsic`) and
gensim's deprecated names (:mod:`w2v.vectors.legacy`).  Together they give every
public method of gensim 4.4's ``KeyedVectors``, with its parameter names.
This module keeps the storage, the norms, and :func:`load` / :func:`save`.

Using the vectors in PyTorch::

    import torch
    emb = torch.nn.Embedding.from_pretrained(torch.from_numpy(kv.vectors))
    ids = torch.from_numpy(kv.encode(["king", "queen"]))
    emb(ids)

(``torch.from_numpy`` shares memory; for a read-only memory map, pass
``np.array(kv.vectors)`` to get a writable copy first.)
"""
from __future__ import annotations

import os
from numbers import Integral

import numpy as np

from ..util.arrays import check_finite, row_norms
from .editing import EditingMixin
from ..errors import FormatError, ParameterError
from ..formats import write_native, write_word2vec
from .intrinsic import IntrinsicMixin
from .legacy import LegacyMixin
from .lookup import LookupMixin
from .neighbours import NeighboursMixin
from ..util.opener import strip_compression_suffix
from .ranking import RankingMixin
from .similarity import SimilarityMixin
from .vecattrs import VecattrsMixin
from .files import FilesMixin

__all__ = ["KeyedVectors", "load", "load_native", "load_word2vec_format", "save", "save_native",
           "save_word2vec_format"]


def _as_matrix(value):
    """``value`` as a C-contiguous float32 2-D array (no copy when it already is one).

    Raises
    ------
    ParameterError
        ``value`` is not numeric, not 2-D or has no columns.
    """
    arr = value
    if not (isinstance(arr, np.ndarray) and arr.dtype == np.float32 and arr.flags.c_contiguous):
        try:
            arr = np.asarray(arr)
            if arr.dtype.kind not in "fiuO":    # bool, complex, str, bytes, dates ...
                raise TypeError(f"dtype {arr.dtype}")
            with np.errstate(over="ignore"):  # a float64 beyond the float32 range: inf, reported below
                arr = np.ascontiguousarray(arr, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"vectors must be a numeric 2-D array: {exc}") from None
    if arr.ndim != 2:
        raise ParameterError(f"vectors must be 2-D, got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise ParameterError(f"vectors must have at least one dimension, got shape {arr.shape}")
    return arr


def _check_counts(counts, n):
    """``counts`` as a C-contiguous int64 array of ``n`` integers (ParameterError otherwise)."""
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.shape[0] != n:
        raise ParameterError(f"counts has shape {counts.shape}, expected ({n},)")
    if counts.size and not np.issubdtype(counts.dtype, np.integer):
        if counts.dtype.kind not in "fb" or not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)):
            raise ParameterError("counts must be integers")
    return np.ascontiguousarray(counts, dtype=np.int64)


class KeyedVectors(LookupMixin, SimilarityMixin, NeighboursMixin, RankingMixin, VecattrsMixin, EditingMixin,
                   FilesMixin, IntrinsicMixin, LegacyMixin):
    """A vocabulary and one float32 vector per word.

    Parameters
    ----------
    index_to_key : list of str, or int
        The words, in row order (usually by descending frequency).  An
        integer is a vector size, as gensim's ``KeyedVectors(vector_size)``:
        empty vectors of that dim, to fill with :meth:`add_vectors`.
    vectors : array_like, shape (len(index_to_key), dim)
        The vectors.  Stored as C-contiguous float32; an array that already
        is float32 and C-contiguous (a read-only ``np.memmap`` included) is
        kept as is, without a copy.
    counts : array_like of int, optional
        Corpus frequency of each word (stored as int64).
    settings : dict, optional
        The training settings that produced the vectors (informational).

    Attributes
    ----------
    index_to_key : list of str
    key_to_index : dict of str to int
    vectors : numpy.ndarray
    counts : numpy.ndarray or None
        The ``'count'`` entry of :attr:`expandos`.
    expandos : dict of str to numpy.ndarray
        Per-word attributes, one value per word (gensim's; see :meth:`set_vecattr`).
    settings : dict
    vector_size, dim : int

    Raises
    ------
    ParameterError
        ``index_to_key`` is not a list of distinct str, or ``vectors`` is not
        a numeric 2-D array with one row per word and at least one column, or
        holds NaN or infinity (checked once, here and when :attr:`vectors`
        is assigned; the loaders, which check what they read, skip it).

    Notes
    -----
    The query methods (:meth:`most_similar`, :meth:`similarity`, ...) follow
    gensim's ``KeyedVectors``.  Unit-normalised vectors are computed once and
    cached; assigning a new array to :attr:`vectors` drops the cache (after
    modifying the array in place, call :meth:`fill_norms` with
    ``force=True``).

    Norms and unit vectors are right for any finite float32 row whose norm
    stays below half the float32 range (about 1.7e38); a larger row is refused
    (see :meth:`fill_norms`).

    **Zero vectors.**  The unit vector of a zero row is the zero vector, so
    its cosine with anything is 0.0 (never NaN, and no numpy warning): it
    scores 0.0 in :meth:`most_similar` and friends, and :meth:`similarity`,
    :meth:`distances` and :meth:`n_similarity` give cosine 0 (distance 1)
    for it.  A ranking query whose direction is a zero vector (e.g.
    ``most_similar('a')`` where ``'a'`` has a zero vector) has nothing to rank
    by and raises :class:`ParameterError` naming the word (gensim returns NaN
    scores).

    **Keys.**  A key is a word (str) or a row index (int).  ``kv[key]``,
    :meth:`get_index` and :meth:`get_vector` raise :class:`ParameterError` for
    any other type (float, None, bytes, ...); ``key in kv`` and
    :meth:`has_index_for` answer False for it instead (a membership test does
    not raise), e.g. ``['a'] in kv`` is False.

    To feed the vectors to PyTorch::

        torch.nn.Embedding.from_pretrained(torch.from_numpy(kv.vectors))
    """

    def __init__(self, index_to_key, vectors=None, counts=None, settings=None):
        if isinstance(index_to_key, str):
            raise ParameterError("index_to_key must be a list of str, not a str")
        if isinstance(index_to_key, Integral) and not isinstance(index_to_key, bool) and vectors is None:
            if index_to_key < 1:
                raise ParameterError(f"vector_size must be a positive integer, got {index_to_key!r}")
            index_to_key, vectors = [], np.zeros((0, int(index_to_key)), dtype=np.float32)
        if vectors is None:
            raise ParameterError("vectors must be given with the words (or pass a vector size alone)")
        keys = list(index_to_key)
        key_to_index = dict(zip(keys, range(len(keys))))
        if len(key_to_index) != len(keys) or not all(issubclass(t, str) for t in set(map(type, keys))):
            seen = {}
            for i, key in enumerate(keys):
                if not isinstance(key, str):
                    raise ParameterError(f"index_to_key[{i}] is {type(key).__name__}, expected str")
                if key in seen:
                    raise ParameterError(f"duplicate word {key!r} at rows {seen[key]} and {i}")
                seen[key] = i
        self.index_to_key = keys
        self._key_to_index = key_to_index
        self.vectors = vectors
        self.expandos = {}
        self.counts = counts
        self.settings = dict(settings) if settings else {}
        #: where the vectors were loaded from and in which format (set by the loaders)
        self.source_format = None
        self.source_path = None

    @classmethod
    def _trusted(cls, index_to_key, vectors, counts=None, settings=None, key_to_index=None, source=None):
        """Build without re-validating the vocabulary (for the loaders).

        ``index_to_key`` must be a list of distinct str; ``key_to_index`` is
        built on first use when not given (duplicates then raise FormatError
        naming ``source``).  The values of ``vectors`` are not checked for
        NaN/inf (no pass over a memory-mapped file at load time); a row
        holding one raises FormatError when the norms are computed.
        """
        self = cls.__new__(cls)
        self.index_to_key = index_to_key
        self._key_to_index = key_to_index
        self._source_for_errors = source
        self._set_vectors(vectors, check_values=False)   # the loaders checked the values
        self.expandos = {}
        if counts is not None:
            self.expandos["count"] = np.ascontiguousarray(counts, dtype=np.int64)
        self.settings = dict(settings) if settings else {}
        self.source_format = None
        self.source_path = None
        return self

    @property
    def key_to_index(self):
        """Dict mapping each word to its row index."""
        k2i = self._key_to_index
        if k2i is None:
            keys = self.index_to_key
            k2i = dict(zip(keys, range(len(keys))))
            if len(k2i) != len(keys):
                seen = set()
                dup = next(k for k in keys if k in seen or seen.add(k))
                src = getattr(self, "_source_for_errors", None) or "vocabulary"
                raise FormatError(f"{src}: duplicate word {dup!r}")
            self._key_to_index = k2i
        return k2i

    @key_to_index.setter
    def key_to_index(self, value):
        self._key_to_index = value
        self._scanned = None

    @property
    def counts(self):
        """Corpus frequency of each word (int64), or None: the ``'count'`` entry of :attr:`expandos`."""
        return self.expandos.get("count")

    @counts.setter
    def counts(self, value):
        if value is None:
            self.expandos.pop("count", None)
        else:
            self.expandos["count"] = _check_counts(value, len(self.index_to_key))

    # ------------------------------------------------------------------ storage
    @property
    def vectors(self):
        """The (vocabulary size, dim) float32 matrix, C-contiguous."""
        return self._vectors

    @vectors.setter
    def vectors(self, value):
        self._set_vectors(value, check_values=True)

    def _set_vectors(self, value, check_values):
        arr = _as_matrix(value)
        if arr.shape[0] != len(self.index_to_key):
            raise ParameterError(
                f"vectors has {arr.shape[0]} rows but the vocabulary has {len(self.index_to_key)} words"
            )
        if check_values:
            check_finite(arr, words=self.index_to_key, error=ParameterError)
        self._vectors = arr
        self._forget_norms()

    def _forget_norms(self):
        """Drop the cached norms and unit vectors (the vectors changed in place)."""
        self._norms = None
        self._div = None     # the norms as divisors of the scores (see w2v.util.arrays.row_norms)
        self._normed = None

    @property
    def vector_size(self):
        """Dimensionality of the vectors."""
        return int(self._vectors.shape[1])

    dim = vector_size

    @property
    def norms(self):
        """L2 norm of every vector (float32, cached)."""
        self.fill_norms()
        return self._norms

    def fill_norms(self, force=False):
        """Compute and cache the vector norms.

        The norms are ``np.linalg.norm(vectors, axis=1)`` (gensim's, bit for
        bit) for ordinary rows.  A row whose float32 squares would overflow
        (a value above ~1.8e19) or go subnormal (a norm below 1e-15) is
        recomputed in float64 from the row scaled by its largest absolute
        value.  A row whose norm passes half the float32 range (values near
        the float32 maximum) is refused, as NaN and infinity are: its float32
        dot products could overflow.

        Parameters
        ----------
        force : bool, optional
            Recompute even if cached (needed after modifying :attr:`vectors`
            in place).

        Raises
        ------
        FormatError
            A row of vectors loaded from a file has a norm beyond half the
            float32 range (or NaN or infinity written into it after loading).
        ParameterError
            The same for vectors not loaded from a file.
        """
        if self._norms is None or force:
            norms, div, bad = row_norms(self._vectors)
            if bad >= 0:
                what = (f"the vector of {self.index_to_key[bad]!r} (row {bad}) holds NaN or infinity, "
                        "or its norm passes half the float32 range")
                if self.source_path:
                    raise FormatError(f"{self.source_path}: {what}")
                raise ParameterError(what)
            self._norms, self._div = norms, div
            self._normed = None

    def get_normed_vectors(self):
        """All vectors scaled to unit length (computed once and cached; do not modify).

        Zero vectors stay zero.

        Returns
        -------
        numpy.ndarray
            float32 array of shape ``(len(self), dim)``.
        """
        self.fill_norms()
        if self._normed is None:
            # zero rows are divided by 1 (see row_norms): they stay zero, without a warning
            self._normed = np.ascontiguousarray(self._vectors / self._div[:, None], dtype=np.float32)
        return self._normed

    def __len__(self):
        return len(self.index_to_key)

    def __repr__(self):
        return f"<KeyedVectors: {len(self)} words x {self.vector_size} dims>"


# --------------------------------------------------------------------------- loading and saving
def load_word2vec_format(path, binary=None, limit=None, unicode_errors="strict"):
    """Load vectors in word2vec.c's binary or text format (also fastText ``.vec``).

    Parameters
    ----------
    path : str or os.PathLike
        The file; gzip, bzip2 and xz files are decompressed (recognised by
        their first bytes).
    binary : bool, optional
        Binary (True) or text (False) format; detected from the first record
        when None.
    limit : int, optional
        Read only the first ``limit`` vectors.
    unicode_errors : str, optional
        How to handle words that are not valid UTF-8: ``'strict'`` (the
        default, as gensim) raises FormatError; ``'replace'`` or ``'ignore'``
        are passed on to :meth:`bytes.decode`.

    Returns
    -------
    KeyedVectors
        With ``source_format`` set to ``'word2vec-binary'`` or
        ``'word2vec-text'``.  Duplicate words keep their first vector (with a
        warning), as gensim does.

    Raises
    ------
    FormatError
        Empty, truncated, corrupt or foreign file, or a NaN/infinite value.
    ParameterError
        ``limit`` is not a positive integer, or ``unicode_errors`` is not
        the name of an error handler.
    FileNotFoundError
        ``path`` does not exist.
    """
    return KeyedVectors.load_word2vec_format(path, binary=binary, limit=limit, unicode_errors=unicode_errors)


def load_native(path, mmap=True, check_values=True):
    """Load a native-format model directory.

    Every file is checked (see :func:`w2v.formats.read_native`).  Where
    ``path`` is missing because a save of it was killed midway, the newest
    complete copy that save left is loaded, with a logged warning naming it
    (:func:`w2v.formats.locate_model`).

    Parameters
    ----------
    path : str or os.PathLike
        The directory written by :func:`save_native`.
    mmap : bool, optional
        Memory-map ``vectors.npy`` read-only (``np.load(..., mmap_mode='r',
        allow_pickle=False)``) instead of reading it into memory.
    check_values : bool, optional
        Check every value for NaN and infinity (a caller that reads the
        vectors again, as a full model's loader does, checks that copy).

    Returns
    -------
    KeyedVectors
        ``vectors`` is a read-only ``np.memmap`` when ``mmap`` is True.

    Raises
    ------
    FormatError
        A file is missing, unreadable or corrupt, a vector holds NaN or
        infinity, or the shapes of the files disagree; the message names
        the file.
    FileNotFoundError
        ``path`` does not exist, nor a complete copy of it.
    """
    return KeyedVectors._from_native(path, mmap=mmap, check_values=check_values)


def load(path, binary=None, limit=None, mmap=True, unicode_errors="strict"):
    """Load vectors from any supported format.

    Parameters
    ----------
    path : str or os.PathLike
        A native model directory, or a word2vec binary/text file (optionally
        ``.gz``/``.bz2``/``.xz`` compressed; fastText ``.vec`` included).
    binary : bool, optional
        For word2vec files: binary or text; auto-detected when None.
    limit : int, optional
        Keep only the first ``limit`` vectors.
    mmap : bool, optional
        For native models: memory-map the vectors read-only.
    unicode_errors : str, optional
        For word2vec files: how words that are not valid UTF-8 are decoded
        (``'strict'``, ``'replace'``, ``'ignore'``; see
        :func:`load_word2vec_format`).  word2vec.c cuts words at 100 bytes,
        which can split a multi-byte character.  A native model's
        ``vocab.tsv`` is always read as strict UTF-8.

    Returns
    -------
    KeyedVectors

    Raises
    ------
    FormatError
        The file is corrupt, truncated or of no supported format.
    FileNotFoundError
        ``path`` does not exist, nor a complete copy of the model directory
        that an interrupted save left next to it (which is loaded instead,
        with a logged warning naming it; see :func:`w2v.formats.locate_model`).
    ParameterError
        ``limit`` is not a positive integer, or ``unicode_errors`` is not
        the name of an error handler.
    """
    return KeyedVectors.load(path, mmap=bool(mmap), binary=binary, limit=limit, unicode_errors=unicode_errors)


def save_word2vec_format(kv, path, binary=True):
    """Save vectors in word2vec.c's binary or text format, atomically.

    Parameters
    ----------
    kv : KeyedVectors
        The vectors.
    path : str or os.PathLike
        Target file; a ``.gz``, ``.bz2``, ``.xz`` or ``.lzma`` suffix compresses.
    binary : bool, optional
        Binary format (little-endian float32) if True, else text with
        ``'%.9g'`` numbers (float32 values round-trip exactly).

    Raises
    ------
    FormatError
        A word is empty or contains ASCII whitespace (space, tab, newline,
        carriage return, vertical tab, form feed), or a vector holds NaN/inf.
        Other whitespace (e.g. NO-BREAK SPACE) is written as it is: gensim,
        word2vec.c and fastText keep it inside a word, as the readers here do.
    OutputError
        ``path`` cannot be written.
    """
    write_word2vec(path, kv.index_to_key, kv.vectors, binary=binary)


def save_native(kv, path, extra=None):
    """Save vectors in the native format (a directory), atomically.

    See :func:`w2v.formats.write_native` for the files and how they are put
    in place; an existing native model at ``path`` is replaced.

    Parameters
    ----------
    kv : KeyedVectors
        The vectors, with their counts and settings.
    path : str or os.PathLike
        Target directory.
    extra : callable, optional
        ``extra(tmpdir)`` writes further files into the temporary directory
        before it is renamed into place (a full model's files).

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
    write_native(path, kv.index_to_key, kv.vectors, counts=kv.counts, settings=kv.settings, extra=extra)


def save(kv, path, format=None):
    """Save vectors, choosing the format from ``format`` or the path.

    Parameters
    ----------
    kv : KeyedVectors
    path : str or os.PathLike
    format : {'bin', 'text', 'native'}, optional
        When None: ``.bin`` (optionally compressed) is binary, ``.txt`` and
        ``.vec`` are text, anything else is a native directory.

    Raises
    ------
    ParameterError
        Unknown ``format``.
    """
    path = os.fspath(path)
    if format is None:
        name = strip_compression_suffix(path).lower()
        if name.endswith(".bin"):
            format = "bin"
        elif name.endswith((".txt", ".vec")):
            format = "text"
        else:
            format = "native"
    if format in ("bin", "binary"):
        save_word2vec_format(kv, path, binary=True)
    elif format in ("text", "txt", "vec"):
        save_word2vec_format(kv, path, binary=False)
    elif format == "native":
        save_native(kv, path)
    else:
        raise ParameterError(f"unknown format {format!r}; expected 'bin', 'text' or 'native'")
