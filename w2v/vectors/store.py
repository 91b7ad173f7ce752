"""The storage of :class:`w2v.vectors.keyed.KeyedVectors`: words, vectors, word index, norms and per-word attributes.

A :class:`VectorStore` owns every piece of state that the query methods read:
the words in row order (``index_to_key``), the float32 matrix with one row
per word, the word index (built on first use when a loader did not give one),
the norms with their divisors and the cached unit vectors, and the per-word
attributes (``expandos``, the counts among them).  Its methods are the only
writers of that state, and each keeps the parts consistent: one row and one
attribute value per word, an index that follows the words, the cached norms
dropped whenever the vectors change.

The matrix has one float type for the store's life: float32 (the default,
the type of the training kernels and of the native format), or float16 or
float64 when asked for (gensim's ``dtype`` and ``datatype``); values given
later are cast to it.

Rows may be reserved ahead of their words, as gensim's
``KeyedVectors(vector_size, count)`` reserves them: such a row holds zeros
under the key ``None`` until :meth:`VectorStore.add_rows` gives it a word,
from :attr:`VectorStore.next_index` on.

The store checks what its consistency needs (shapes, dtypes); whoever builds
it checks the words (distinct str) and, when ``check_values`` is off, the
values: :class:`~w2v.vectors.keyed.KeyedVectors`' constructor does, with
:func:`as_keys`, :func:`as_matrix` and :func:`as_counts`, and so does a loader
for the file it read.
"""
import numpy as np

from ..errors import FormatError, ParameterError
from ..util.arrays import check_finite, row_norms

__all__ = ["VectorStore", "as_counts", "as_keys", "as_matrix"]


def as_keys(index_to_key):
    """``index_to_key`` as a list of distinct str, and its word index.

    Raises
    ------
    ParameterError
        A word is not a str, or is there twice.
    """
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
    return keys, key_to_index


def as_matrix(value, dtype=np.float32):
    """``value`` as a C-contiguous 2-D array of ``dtype`` (no copy when it already is one).

    Parameters
    ----------
    value : array_like
    dtype : numpy.dtype, optional
        float32, float16 or float64 (checked by the caller).

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ParameterError
        ``value`` is not numeric, not 2-D or has no columns.
    """
    arr = value
    if not (isinstance(arr, np.ndarray) and arr.dtype == dtype and arr.flags.c_contiguous):
        try:
            arr = np.asarray(arr)
            if arr.dtype.kind not in "fiuO":    # bool, complex, str, bytes, dates ...
                raise TypeError(f"dtype {arr.dtype}")
            with np.errstate(over="ignore"):  # a value beyond the range of dtype: inf, reported below
                arr = np.ascontiguousarray(arr, dtype=dtype)
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"vectors must be a numeric 2-D array: {exc}") from None
    if arr.ndim != 2:
        raise ParameterError(f"vectors must be 2-D, got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise ParameterError(f"vectors must have at least one dimension, got shape {arr.shape}")
    return arr


def as_counts(counts, n):
    """``counts`` as a C-contiguous int64 array of ``n`` integers.

    Raises
    ------
    ParameterError
        Another shape, or values that are not integers.
    """
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.shape[0] != n:
        raise ParameterError(f"counts has shape {counts.shape}, expected ({n},)")
    if counts.size and not np.issubdtype(counts.dtype, np.integer):
        if counts.dtype.kind not in "fb" or not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)):
            raise ParameterError("counts must be integers")
    return np.ascontiguousarray(counts, dtype=np.int64)


class VectorStore:
    """Words, one vector per word, the word index, the norms and the per-word attributes.

    Parameters
    ----------
    index_to_key : list of str
        The words in row order, distinct (not checked here); ``None`` for a
        row reserved ahead of its word.
    vectors : array_like, shape (len(index_to_key), dim)
        Stored as C-contiguous ``dtype`` (without a copy when it already is).
    key_to_index : dict of str to int, optional
        The word index; built from ``index_to_key`` on first use when None
        (reserved rows left out).
    attributes : dict of str to numpy.ndarray, optional
        Per-word attributes, one value per word (``'count'``: the counts).
    source : str, optional
        Where the words were read from: named when the index, built on first
        use, finds a duplicate word.
    check_values : bool, optional
        Refuse NaN and infinity in ``vectors`` (a loader that checked the
        file passes False, which skips a pass over a memory map).
    dtype : numpy.dtype, optional
        The matrix's type for the store's life: float32, float16 or float64
        (checked by the caller, see :func:`w2v.formats.check_datatype`).
    next_index : int, optional
        The first row reserved ahead of its word (gensim's ``next_index``);
        by default ``len(index_to_key)``: none is reserved.

    Raises
    ------
    ParameterError
        ``vectors`` is not a numeric 2-D array with one row per word and at
        least one column, or (``check_values``) holds NaN or infinity.
    """

    def __init__(self, index_to_key, vectors, key_to_index=None, attributes=None, source=None, check_values=False,
                 dtype=np.float32, next_index=None):
        self._dtype = np.dtype(dtype)
        self._index_to_key = index_to_key
        self._next = len(index_to_key) if next_index is None else next_index
        self._key_to_index = key_to_index
        self._scanned = None       # rows found by scanning the words while there is no index (see find)
        self._source = source
        self._vectors = None
        self._norms = None
        self._div = None           # the norms as divisors of the scores (see w2v.util.arrays.row_norms)
        self._normed = None
        self._attributes = {}
        self.set_vectors(vectors, check_values=check_values)
        for attr, values in (attributes or {}).items():
            self.set_attribute(attr, values)

    # ------------------------------------------------------------------ words and their index
    @property
    def index_to_key(self):
        """The words, in row order (list of str)."""
        return self._index_to_key

    @property
    def key_to_index(self):
        """Dict mapping each word to its row, built on first use.

        Raises
        ------
        FormatError
            Building it finds a word twice (the message names ``source``).
        """
        k2i = self._key_to_index
        if k2i is None:
            keys = self._index_to_key
            k2i = dict(zip(keys, range(len(keys))))
            if None in k2i:                   # rows reserved ahead of their words
                del k2i[None]
                keys = [k for k in keys if k is not None]
            if len(k2i) != len(keys):
                seen = set()
                dup = next(k for k in keys if k in seen or seen.add(k))
                raise FormatError(f"{self._source or 'vocabulary'}: duplicate word {dup!r}")
            self._key_to_index = k2i
        return k2i

    @property
    def built_key_to_index(self):
        """The word index if built, else None (reading it builds nothing)."""
        return self._key_to_index

    def find(self, key, scans=0):
        """Row of the word ``key``, or -1.

        Without a built index, up to ``scans`` distinct words are found by a
        linear scan of the words (each answer remembered) before the index is
        built: a few lookups in a large vocabulary pay no index.

        Parameters
        ----------
        key : str
        scans : int, optional
            How many distinct words may be scanned for in all.

        Returns
        -------
        int
        """
        k2i = self._key_to_index
        if k2i is not None:
            return k2i.get(key, -1)
        if self._scanned is None:
            self._scanned = {}
        found = self._scanned.get(key)
        if found is not None:
            return found
        if len(self._scanned) >= scans:
            return self.key_to_index.get(key, -1)
        try:
            found = self._index_to_key.index(key)
        except ValueError:
            found = -1
        self._scanned[key] = found
        return found

    @property
    def next_index(self):
        """The row the next new word takes when it is reserved (``None`` in :attr:`index_to_key`); gensim's name."""
        return self._next

    def replace_keys(self, index_to_key):
        """Take ``index_to_key`` as the words, as it is.

        The rows, the attributes and the word index are left as they are
        (gensim lets a caller set the words, the index and the vectors one by
        one: :meth:`set_key_index`, :meth:`rebuild_index`, :meth:`set_vectors`).
        """
        self._index_to_key = index_to_key
        self._scanned = None

    def set_key_index(self, key_to_index):
        """Take ``key_to_index`` as the word index, as it is."""
        self._key_to_index = key_to_index
        self._scanned = None

    def rebuild_index(self):
        """Drop the word index: it is built again from the words on first use."""
        self._key_to_index = None
        self._scanned = None

    # ------------------------------------------------------------------ vectors
    @property
    def vectors(self):
        """The (number of words, dim) matrix of :attr:`dtype`, C-contiguous."""
        return self._vectors

    @property
    def dtype(self):
        """The type of the matrix (float32 unless another float type was asked for)."""
        return self._dtype

    def set_vectors(self, value, check_values=True):
        """Take ``value`` as the vectors, one row per word, and drop the cached norms.

        Parameters
        ----------
        value : array_like
            Stored as C-contiguous :attr:`dtype`, without a copy when it already is.
        check_values : bool, optional
            Refuse NaN and infinity.

        Raises
        ------
        ParameterError
            ``value`` is not a numeric 2-D array of one row per word and at
            least one column, or (``check_values``) holds NaN or infinity.
        """
        arr = as_matrix(value, self._dtype)
        if arr.shape[0] != len(self._index_to_key):
            raise ParameterError(
                f"vectors has {arr.shape[0]} rows but the vocabulary has {len(self._index_to_key)} words"
            )
        if check_values:
            check_finite(arr, words=self._index_to_key, error=ParameterError)
        self._vectors = arr
        self.forget_norms()

    def set_rows(self, rows, values):
        """Write ``values`` into the vectors of ``rows`` and drop the cached norms.

        A read-only matrix (a memory map) is copied first.  ``values`` are
        not checked for NaN and infinity.
        """
        vectors = self._vectors if self._vectors.flags.writeable else np.array(self._vectors)
        vectors[rows] = values
        self.set_vectors(vectors, check_values=False)

    def add_rows(self, keys, rows):
        """Add words that are not in the vocabulary, with their vectors; return their rows.

        The words take the rows reserved ahead of them first (from
        :attr:`next_index` on, while the row's key is ``None``), then go after
        the last row; the index learns them, and every attribute gets a 0 for
        each appended word.

        Parameters
        ----------
        keys : list of str
            New words, distinct (not checked here).
        rows : numpy.ndarray
            One row of ``dim`` values per word (cast to :attr:`dtype`).

        Returns
        -------
        numpy.ndarray
            The row of each word (intp).
        """
        k2i = self.key_to_index
        keys = list(keys)
        words = self._index_to_key
        start = self._next
        stop = start
        while stop < len(words) and stop - start < len(keys) and words[stop] is None:
            stop += 1
        placed = np.arange(start, stop, dtype=np.intp)
        if stop > start:
            words[start:stop] = keys[:stop - start]
            for row, key in zip(range(start, stop), keys):
                k2i[key] = row
            self.set_rows(placed, rows[:stop - start])
        rest = keys[stop - start:]
        n0 = len(words)
        if rest:
            self._index_to_key = words + rest
            for offset, key in enumerate(rest):
                k2i[key] = n0 + offset
            with np.errstate(over="ignore"):   # the caller checked the values against dtype
                grown = np.concatenate([self._vectors, rows[stop - start:].astype(self._dtype, copy=False)])
            self.set_vectors(grown, check_values=False)
            for attr in list(self._attributes):
                self.fit_attribute(attr)
            stop = len(self._index_to_key)
        self._next = max(stop, self._next)
        self._scanned = None
        return np.concatenate([placed, np.arange(n0, n0 + len(rest), dtype=np.intp)])

    def reorder(self, order):
        """Put the words in the order of the rows ``order`` (a permutation): vectors, attributes and index follow."""
        self._index_to_key = [self._index_to_key[i] for i in order.tolist()]
        for attr in list(self._attributes):
            self._attributes[attr] = self._attributes[attr][order]
        k2i = dict(zip(self._index_to_key, range(len(self._index_to_key))))
        if k2i.pop(None, None) is not None:   # rows reserved ahead of their words: the next is the first
            self._next = self._index_to_key.index(None)
        self.set_key_index(k2i)
        self.set_vectors(self._vectors[order], check_values=False)

    # ------------------------------------------------------------------ norms
    @property
    def norms(self):
        """The L2 norm of every vector (float32), or None until :meth:`fill_norms`."""
        return self._norms

    @property
    def divisors(self):
        """The norms as divisors of the scores (1 for a zero row), or None until :meth:`fill_norms`."""
        return self._div

    def forget_norms(self):
        """Drop the cached norms and unit vectors (for vectors changed in place)."""
        self._norms = None
        self._div = None
        self._normed = None

    def fill_norms(self, force=False, source=None):
        """Compute and cache the norms, unless cached (see :meth:`KeyedVectors.fill_norms`).

        Parameters
        ----------
        force : bool, optional
            Recompute even if cached.
        source : str, optional
            The file the vectors came from, which the error names.

        Raises
        ------
        FormatError
            With ``source``: a row holds NaN or infinity, or its norm passes
            half the float32 range.
        ParameterError
            The same without ``source``.
        """
        if self._norms is None or force:
            vectors = self._vectors
            if vectors.dtype == np.float16:    # float16 squares overflow from 256 on: the norms in float32
                vectors = vectors.astype(np.float32)
            norms, div, bad = row_norms(vectors)
            if bad >= 0:
                what = (f"the vector of {self._index_to_key[bad]!r} (row {bad}) holds NaN or infinity, "
                        "or its norm passes half the float32 range")
                if source:
                    raise FormatError(f"{source}: {what}")
                raise ParameterError(what)
            self._norms, self._div = norms, div
            self._normed = None

    def unit_vectors(self):
        """Every vector scaled to unit length (zero rows stay zero), computed once and cached."""
        self.fill_norms()
        if self._normed is None:
            # zero rows are divided by 1 (see row_norms): they stay zero, without a warning
            self._normed = np.ascontiguousarray(self._vectors / self._div[:, None], dtype=self._dtype)
        return self._normed

    def normalize_rows(self):
        """Scale every vector to unit length, in place when the matrix is writable (a zero row stays zero).

        The norms become 1 (0 for a zero row) without another pass.
        """
        self.fill_norms()
        div = self._div[:, None]
        if self._vectors.flags.writeable:
            np.divide(self._vectors, div, out=self._vectors)
            vectors = self._vectors
        else:
            vectors = np.ascontiguousarray(self._vectors / div, dtype=self._dtype)
        norms = np.where(self._norms == 0, np.float32(0), np.float32(1)).astype(np.float32)
        self.set_vectors(vectors, check_values=False)
        self._norms, self._div = norms, np.ones_like(norms)

    # ------------------------------------------------------------------ per-word attributes
    @property
    def attributes(self):
        """Per-word attributes: dict of name to an array of one value per word (gensim's ``expandos``)."""
        return self._attributes

    def replace_attributes(self, attributes):
        """Take the dict ``attributes`` as the per-word attributes, as it is."""
        self._attributes = attributes

    def set_attribute(self, attr, values):
        """Set attribute ``attr`` to the array ``values`` (one value per word; not copied)."""
        if len(values) != len(self._index_to_key):
            raise ParameterError(f"attribute {attr!r} must hold one value per word ({len(self._index_to_key)}), "
                                 f"got {len(values)}")
        self._attributes[attr] = values

    def set_attribute_values(self, attr, rows, values):
        """Write ``values`` into attribute ``attr`` at ``rows`` (an index, a slice or an array of rows)."""
        self._attributes[attr][rows] = values

    def drop_attribute(self, attr):
        """Remove attribute ``attr`` (nothing happens when there is none)."""
        self._attributes.pop(attr, None)

    def fit_attribute(self, attr):
        """Give attribute ``attr`` one value per word: cut, or grown with zeros."""
        values = self._attributes[attr]
        n = len(self._index_to_key)
        if len(values) != n:
            grown = np.zeros(n, dtype=values.dtype)
            k = min(n, len(values))
            grown[:k] = values[:k]
            self._attributes[attr] = grown
