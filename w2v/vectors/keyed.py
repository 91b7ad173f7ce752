"""Trained word vectors: :class:`KeyedVectors`, and loading and saving them.

:class:`KeyedVectors` holds a vocabulary (``index_to_key``) and a matrix
with one row per word (float32, or float16 or float64 when asked for).  Its
query methods follow gensim's ``KeyedVectors`` semantics (cosine similarity,
the mean of unit vectors with weights +1/-1, input words excluded from the
answers), so results can be compared one to one.

The class is built by composition.  One :class:`~w2v.vectors.store.VectorStore`
owns the state: the words, the vectors, the word index, the norms and the
per-word attributes; the storage attributes of :class:`KeyedVectors`
(``vectors``, ``index_to_key``, ``key_to_index``, ``expandos``, ``counts``,
``norms``) read and write it.  The methods are plain functions, one module per
concept, bound in the class body: lookups (:mod:`w2v.vectors.lookup`),
similarities of given words (:mod:`w2v.vectors.similarity`), nearest-neighbour
queries (:mod:`w2v.vectors.neighbours`), ranks and document distances
(:mod:`w2v.vectors.ranking`), per-word attributes (:mod:`w2v.vectors.vecattrs`),
adding and changing vectors (:mod:`w2v.vectors.editing`), files
(:mod:`w2v.vectors.files`), evaluation (:mod:`w2v.vectors.intrinsic`) and
gensim's deprecated names (:mod:`w2v.vectors.legacy`).  Together they give every
public method of gensim 4.4's ``KeyedVectors``, with its parameter names.

The first parameter of those functions is named ``self``: they are the methods
of :class:`KeyedVectors` (``KeyedVectors.most_similar`` *is*
``w2v.vectors.neighbours.most_similar``), so ``help()`` and
:func:`inspect.signature` show gensim's signatures, ``self`` included, and the
docstrings read as the methods' own.  They call each other through ``self``
(``self.most_similar(...)``), as methods do, and change the state only through
``self.store``.  This module keeps the constructor, the storage attributes, the
norms, and :func:`load` / :func:`save`.

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

import numpy as np

from ..errors import ParameterError
from ..formats import check_datatype, write_native, write_word2vec
from ..util.checks import is_integer, is_real
from ..util.opener import strip_compression_suffix
from . import editing, files, intrinsic, legacy, neighbours, ranking, vecattrs
from . import lookup as lookups, similarity as similarities   # the class binds methods named lookup, similarity
from .store import VectorStore, as_counts, as_keys

__all__ = ["KeyedVectors", "load", "load_native", "load_word2vec_format", "save", "save_native",
           "save_word2vec_format"]


class KeyedVectors:
    """A vocabulary and one vector per word.

    Two forms build one, told apart by the first argument::

        KeyedVectors(vector_size, count=0, dtype=np.float32, mapfile_path=None)   # gensim's
        KeyedVectors(index_to_key, vectors, *, counts=None, settings=None)        # w2v's

    An integer first is gensim's form: empty vectors of that size, with
    ``count`` rows reserved for words to come (as gensim's constructor,
    which its ``load_word2vec_format`` and users call).  A list of words
    first is w2v's form: the words and their vectors, the second argument.
    ``dtype`` applies to both.

    Parameters
    ----------
    vector_size : int, or list of str
        gensim's form: the dimension of the vectors.  w2v's form: the
        words (``index_to_key``), distinct str in row order (usually by
        descending frequency).
    count : int, or array_like of shape (len(index_to_key), dim)
        gensim's form: rows to reserve (0 by default).  Each holds zeros
        under the key ``None`` (in :attr:`index_to_key`, not in
        :attr:`key_to_index`) until :meth:`add_vector` or
        :meth:`add_vectors` gives it a word, from :attr:`next_index` on;
        queries see a reserved row as a zero vector.  w2v's form: the
        vectors, one row per word; an array that already is C-contiguous of
        ``dtype`` (a read-only ``np.memmap`` included) is kept as is,
        without a copy.
    dtype : numpy dtype, optional
        The type of :attr:`vectors`: float32 (the default, the type of the
        training kernels and of the native format), float16 (half the
        memory) or float64.  Values given later (:meth:`add_vectors`,
        assigning :attr:`vectors`) are cast to it.  Queries compute in it,
        except norms of float16 vectors, computed in float32.
    mapfile_path : str, optional
        Unused, as in gensim (kept as :attr:`mapfile_path`).
    counts : array_like of int, optional
        Keyword only.  Corpus frequency of each word (stored as int64).
    settings : dict, optional
        Keyword only.  The training settings that produced the vectors
        (informational).

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
    next_index : int
        The row the next new word takes while rows are reserved (gensim's).
    store : VectorStore
        The object that holds the words, vectors, word index, norms and
        attributes; every change of them goes through its methods.

    Raises
    ------
    ParameterError
        gensim's form: ``vector_size`` is not a positive integer or
        ``count`` not a non-negative one (or ``counts`` is given: no word
        is there to count).  w2v's form: ``index_to_key`` is not a list of
        distinct str, or the vectors are missing, not a numeric 2-D array
        with one row per word and at least one column, or hold NaN or
        infinity (checked once, here and when :attr:`vectors` is assigned;
        the loaders, which check what they read, skip it).  Both:
        ``dtype`` is not float32, float16 or float64 (gensim takes any
        NumPy type; w2v refuses integer and complex vectors, which no query
        could use), or is a list or array (counts given in its place).

    Notes
    -----
    The query methods (:meth:`most_similar`, :meth:`similarity`, ...) follow
    gensim's ``KeyedVectors``.  Unit-normalised vectors are computed once and
    cached; assigning a new array to :attr:`vectors` drops the cache (after
    modifying the array in place, call :meth:`fill_norms` with
    ``force=True``).

    Norms and unit vectors are right for any finite row whose norm stays
    below half the float32 range (about 1.7e38); a larger row is refused
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

    def __init__(self, vector_size, count=0, dtype=np.float32, mapfile_path=None, *, counts=None, settings=None):
        if isinstance(dtype, (list, tuple, np.ndarray)):
            raise ParameterError("the third argument is dtype, and counts are keyword-only: "
                                 "KeyedVectors(words, vectors, counts=...)")
        dtype = check_datatype(dtype, "dtype")
        if is_integer(vector_size):
            self._store = _reserved_store(vector_size, count, dtype, counts)
        else:
            keys, key_to_index = _words_of(vector_size, count)
            self._store = VectorStore(keys, count, key_to_index=key_to_index, check_values=True, dtype=dtype)
        self.counts = counts
        self.settings = dict(settings) if settings else {}
        self.mapfile_path = mapfile_path
        #: where the vectors were loaded from and in which format (set by the loaders)
        self.source_format = None
        self.source_path = None

    @classmethod
    def from_trusted(cls, index_to_key, vectors, counts=None, settings=None, key_to_index=None, source=None,
                     dtype=np.float32):
        """Vectors from words and values already checked: the loaders' constructor.

        The vocabulary is not checked again and the values are not checked
        for NaN/inf (no pass over a memory-mapped file at load time): a row
        holding one raises FormatError when the norms are computed.

        Parameters
        ----------
        index_to_key : list of str
            Distinct words, kept as the list given.
        vectors : array_like, shape (len(index_to_key), dim)
            Kept without a copy when C-contiguous of ``dtype``.
        counts : array_like of int, optional
        settings : dict, optional
        key_to_index : dict of str to int, optional
            The word index; built on first use when not given (a duplicate
            word then raises FormatError naming ``source``).
        source : str, optional
            The file the words were read from.
        dtype : numpy dtype, optional
            float32, float16 or float64 (not checked here).

        Returns
        -------
        KeyedVectors

        Raises
        ------
        ParameterError
            ``vectors`` is not a numeric 2-D array with one row per word.
        """
        attributes = None if counts is None else {"count": np.ascontiguousarray(counts, dtype=np.int64)}
        self = cls.__new__(cls)
        self._store = VectorStore(index_to_key, vectors, key_to_index=key_to_index, attributes=attributes,
                                  source=source, dtype=dtype)
        self.settings = dict(settings) if settings else {}
        self.mapfile_path = None
        self.source_format = None
        self.source_path = None
        return self

    _trusted = from_trusted   # the private name that tests/vectors/test_keyed.py calls

    @property
    def store(self):
        """The :class:`~w2v.vectors.store.VectorStore` holding the words, vectors, index, norms and attributes.

        Its methods are the only writers of that state: ``kv.store.forget_norms()`` drops the cached
        norms of vectors changed in place (they are computed again when next needed; :meth:`fill_norms`
        with ``force=True`` computes them at once).
        """
        return self._store

    # ------------------------------------------------------------------ storage (in the store)
    @property
    def index_to_key(self):
        """The words, in row order (list of str)."""
        return self._store.index_to_key

    @index_to_key.setter
    def index_to_key(self, value):
        self._store.replace_keys(value)

    @property
    def key_to_index(self):
        """Dict mapping each word to its row index."""
        return self._store.key_to_index

    @key_to_index.setter
    def key_to_index(self, value):
        self._store.set_key_index(value)

    @property
    def vectors(self):
        """The (vocabulary size, dim) matrix, C-contiguous: float32 unless another ``dtype`` was asked for."""
        return self._store.vectors

    @vectors.setter
    def vectors(self, value):
        self._store.set_vectors(value, check_values=True)

    @property
    def expandos(self):
        """Per-word attributes, one value per word (gensim's; see :meth:`set_vecattr`)."""
        return self._store.attributes

    @expandos.setter
    def expandos(self, value):
        self._store.replace_attributes(value)

    @property
    def counts(self):
        """Corpus frequency of each word (int64), or None: the ``'count'`` entry of :attr:`expandos`."""
        return self._store.attributes.get("count")

    @counts.setter
    def counts(self, value):
        if value is None:
            self._store.drop_attribute("count")
        else:
            self._store.set_attribute("count", as_counts(value, len(self._store.index_to_key)))

    # the store's caches, read-only under the names the fast-path tests inspect
    _key_to_index = property(lambda self: self._store.built_key_to_index)
    _norms = property(lambda self: self._store.norms)
    _div = property(lambda self: self._store.divisors)

    @property
    def vector_size(self):
        """Dimensionality of the vectors."""
        return int(self._store.vectors.shape[1])

    dim = vector_size

    @property
    def next_index(self):
        """The row the next new word takes while rows reserved by ``KeyedVectors(vector_size, count)`` are free."""
        return self._store.next_index

    @property
    def norms(self):
        """L2 norm of every vector (cached; of the vectors' type, float32 for float16 vectors)."""
        self.fill_norms()
        return self._store.norms

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
        self._store.fill_norms(force, source=self.source_path)

    def get_normed_vectors(self):
        """All vectors scaled to unit length (computed once and cached; do not modify).

        Zero vectors stay zero.

        Returns
        -------
        numpy.ndarray
            Array of shape ``(len(self), dim)``, of the vectors' type.
        """
        self.fill_norms()
        return self._store.unit_vectors()

    def __len__(self):
        return len(self._store.index_to_key)

    def __repr__(self):
        # gensim's str(); repr() gives the same (gensim's repr is object's)
        return f"{type(self).__name__}<vector_size={self.vector_size}, {len(self)} keys>"

    # ------------------------------------------------------------------ the methods, one module per concept
    __contains__ = lookups.__contains__
    __getitem__ = lookups.__getitem__
    has_index_for = lookups.has_index_for
    get_index = lookups.get_index
    get_vector = lookups.get_vector
    lookup = lookups.lookup
    encode = lookups.encode

    get_mean_vector = similarities.get_mean_vector
    cosine_similarities = staticmethod(similarities.cosine_similarities)
    similarity = similarities.similarity
    distance = similarities.distance
    distances = similarities.distances
    n_similarity = similarities.n_similarity
    rank_by_centrality = similarities.rank_by_centrality
    doesnt_match = similarities.doesnt_match

    most_similar = neighbours.most_similar
    most_similar_cosmul = neighbours.most_similar_cosmul
    similar_by_word = neighbours.similar_by_word
    similar_by_key = neighbours.similar_by_key
    similar_by_vector = neighbours.similar_by_vector
    most_similar_batch = neighbours.most_similar_batch

    closer_than = ranking.closer_than
    words_closer_than = ranking.words_closer_than
    rank = ranking.rank
    most_similar_to_given = ranking.most_similar_to_given
    relative_cosine_similarity = ranking.relative_cosine_similarity
    wmdistance = ranking.wmdistance

    allocate_vecattrs = vecattrs.allocate_vecattrs
    set_vecattr = vecattrs.set_vecattr
    get_vecattr = vecattrs.get_vecattr
    sort_by_descending_frequency = vecattrs.sort_by_descending_frequency
    vectors_for_all = vecattrs.vectors_for_all

    add_vector = editing.add_vector
    add_vectors = editing.add_vectors
    __setitem__ = editing.__setitem__
    resize_vectors = editing.resize_vectors
    unit_normalize_all = editing.unit_normalize_all

    load = classmethod(files.load)
    load_word2vec_format = classmethod(files.load_word2vec_format)
    save = files.save
    save_word2vec_format = files.save_word2vec_format
    intersect_word2vec_format = files.intersect_word2vec_format

    evaluate_word_analogies = intrinsic.evaluate_word_analogies
    evaluate_word_pairs = intrinsic.evaluate_word_pairs
    log_accuracy = staticmethod(intrinsic.log_accuracy)
    log_evaluate_word_pairs = staticmethod(intrinsic.log_evaluate_word_pairs)

    add_lifecycle_event = legacy.add_lifecycle_event
    init_sims = legacy.init_sims
    word_vec = legacy.word_vec
    similarity_unseen_docs = legacy.similarity_unseen_docs
    vocab = legacy.vocab
    index2word = legacy.index2word
    index2entity = legacy.index2entity
    vectors_norm = legacy.vectors_norm


def _reserved_store(vector_size, count, dtype, counts):
    """gensim's ``KeyedVectors(vector_size, count)``: a store of ``count`` zero rows reserved for words to come."""
    if vector_size < 1:
        raise ParameterError(f"vector_size must be a positive integer, got {vector_size!r}")
    if not is_integer(count) or count < 0:
        raise ParameterError(f"count must be a non-negative integer (rows to reserve), got {type(count).__name__}; "
                             "w2v's form takes the words first: KeyedVectors(words, vectors)")
    if counts is not None:
        raise ParameterError("counts go with the words: KeyedVectors(words, vectors, counts=...), or set them "
                             "with set_vecattr(word, 'count', n)")
    count, vector_size = int(count), int(vector_size)
    return VectorStore([None] * count, np.zeros((count, vector_size), dtype=dtype), key_to_index={}, dtype=dtype,
                       next_index=0)


def _words_of(index_to_key, vectors):
    """w2v's ``KeyedVectors(index_to_key, vectors)``: the words checked, and their index."""
    if isinstance(index_to_key, str):
        raise ParameterError("index_to_key must be a list of str, not a str")
    if is_real(index_to_key) or isinstance(index_to_key, bool):
        raise ParameterError(f"vector_size must be a positive integer, got {index_to_key!r}")
    if is_integer(vectors):
        raise ParameterError("vectors must be given with the words: KeyedVectors(words, vectors) "
                             "(or pass a vector size alone: KeyedVectors(vector_size))")
    try:
        return as_keys(index_to_key)
    except TypeError:
        raise ParameterError(f"the first argument must be a vector size (int) or the words (a list of str), "
                             f"got {type(index_to_key).__name__}") from None


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
        ``'word2vec-text'``, and gensim's made-up descending counts (see
        :meth:`KeyedVectors.load_word2vec_format`).  Duplicate words keep
        their first vector (with a warning), as gensim does.

    Raises
    ------
    FormatError
        Empty, truncated, corrupt or foreign file, or a NaN/infinite value
        (a word that is not UTF-8 with ``'strict'``: a
        :class:`~w2v.errors.WordDecodeError`, also a UnicodeDecodeError).
    ParameterError
        ``limit`` is not a positive integer, or ``unicode_errors`` is not
        the name of an error handler.
    FileNotFoundError
        ``path`` does not exist.
    """
    return KeyedVectors.load_word2vec_format(path, binary=binary, limit=limit, unicode_errors=unicode_errors)


def load_native(path, mmap=True, check_values=True):
    """Load a native-format model (a directory, or one file).

    Every file is checked (see :func:`w2v.formats.read_native`).  Where
    ``path`` is missing because a save of it was killed midway, the newest
    complete copy that save left is loaded, with a logged warning naming it
    (:func:`w2v.formats.locate_model`).

    Parameters
    ----------
    path : str or os.PathLike
        The directory or file written by :func:`save_native`.
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
    return files.from_native(KeyedVectors, path, mmap=mmap, check_values=check_values)


def load(path, binary=None, limit=None, mmap=True, unicode_errors="strict"):
    """Load vectors from any supported format.

    Parameters
    ----------
    path : str or os.PathLike
        A native model (a directory, or one file), or a word2vec binary/text
        file (optionally ``.gz``/``.bz2``/``.xz`` compressed; fastText
        ``.vec`` included).
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
        float32.  A native model's counts are its own; a word2vec file holds
        none, and its vectors come without (:meth:`KeyedVectors.load_word2vec_format`,
        gensim's loader, makes up gensim's descending counts).

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
        ``'%.9g'`` numbers (float32 values round-trip exactly; float64
        vectors are written with ``'%.17g'``).

    Raises
    ------
    FormatError
        A word is empty or contains ASCII whitespace (space, tab, newline,
        carriage return, vertical tab, form feed), or a vector holds NaN/inf
        (or, binary, a float64 value beyond the float32 range).
        Other whitespace (e.g. NO-BREAK SPACE) is written as it is: gensim,
        word2vec.c and fastText keep it inside a word, as the readers here do.
    ParameterError
        A row reserved by ``KeyedVectors(vector_size, count)`` has no word yet.
    OutputError
        ``path`` cannot be written.
    """
    files.check_words(kv, path)
    write_word2vec(path, kv.index_to_key, files.float32_vectors(kv, path) if binary else kv.vectors, binary=binary)


def save_native(kv, path, extra=None):
    """Save vectors in the native format (a directory, or one file), atomically.

    See :func:`w2v.formats.write_native` for the files, which form a path
    gets, and how they are put in place; an existing native model at
    ``path`` is replaced.

    Parameters
    ----------
    kv : KeyedVectors
        The vectors, with their counts and settings.
    path : str or os.PathLike
        Target directory or file.
    extra : callable, optional
        ``extra(writer)`` writes further members (a full model's) before the
        model is put in place (see :func:`w2v.formats.write_native`).

    Raises
    ------
    FormatError
        A word is empty or contains a tab, newline or carriage return
        (``vocab.tsv`` cannot hold it), a count is negative, the settings
        are not JSON-serialisable, or a float64 value is beyond the float32
        range of ``vectors.npy``; nothing is written.
    ParameterError
        A row reserved by ``KeyedVectors(vector_size, count)`` has no word yet.
    OutputError
        ``path`` cannot be written, or is an existing file or a directory
        that is not an (empty or) native model, or a full model (holding
        ``model.json``) that ``extra`` would not replace with one.
    """
    files.check_words(kv, path)
    write_native(path, kv.index_to_key, files.float32_vectors(kv, path), counts=kv.counts, settings=kv.settings,
                 extra=extra)


def save(kv, path, format=None):
    """Save vectors, choosing the format from ``format`` or the path.

    Parameters
    ----------
    kv : KeyedVectors
    path : str or os.PathLike
    format : {'bin', 'text', 'native'}, optional
        When None: ``.bin`` (optionally compressed) is binary, ``.txt`` and
        ``.vec`` are text, anything else is the native format (one file
        or a directory: :func:`w2v.formats.writes_single_file`).

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
