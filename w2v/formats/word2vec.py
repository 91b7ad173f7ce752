"""word2vec.c's vector files: binary and text, read and written as plain data.

binary
    word2vec.c's ``-binary 1`` output: a header line ``"<count> <dim>\\n"``,
    then per word its UTF-8 bytes, a space, ``dim`` little-endian float32
    values and a newline.
text
    The same header, then one line per word: ``word v1 v2 ... vd``.  fastText
    ``.vec`` files are this format.  Lines may end with a space or ``\\r\\n``.

A file's compression (gzip, bzip2, xz) is recognised from its first bytes
when reading (:mod:`w2v.util.opener`) and follows the suffix when writing.
Writers are atomic: the data go to a temporary file next to the target,
renamed over it only when complete.
"""
from __future__ import annotations

import codecs
import os
import re
import shutil
from typing import NamedTuple

import numpy as np

from ..util.checks import is_integer
from ..util.arrays import check_finite
from ..util.atomic import atomic_write
from ..errors import FormatError, ParameterError, WordDecodeError
from ..util.opener import compression_for_suffix, open_compressed_writer
from . import word2vec_stream as stream
from .word2vec_binary import read_binary_records
from .word2vec_text import check_text_dim, read_text_records, text_sizes
from .files import check_utf8

__all__ = ["FLOAT_TYPES", "Word2VecVectors", "check_datatype", "check_encoding", "check_limit", "check_unicode_errors",
           "inspect_word2vec", "read_vocab_counts", "read_word2vec", "write_vocab_counts", "write_word2vec"]

_WRITE_ROWS = 8192        # rows formatted per write call

#: the types a matrix of vectors may have: float32, w2v's own (the training kernels', the native
#: format's), and gensim's ``datatype`` choices float16 (half the memory) and float64
FLOAT_TYPES = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64))

# What the word2vec writers refuse inside a word: ASCII whitespace, where word2vec.c, gensim,
# fastText and C readers (``isspace``, ``bytes.split``) end a word or a line.  Other whitespace
# (NO-BREAK SPACE, IDEOGRAPHIC SPACE, U+2028, ...) stays inside a word in every one of them, as
# it does in w2v's readers: fastText and gensim files hold such words, and converting them works.
_WHITESPACE = re.compile(r"[ \t\n\r\v\f]")


class Word2VecVectors(NamedTuple):
    """What :func:`read_word2vec` reads from a word2vec file."""

    #: the words, in row order (duplicates dropped: the first vector of a word is kept)
    words: list
    #: float32, C-contiguous, shape ``(len(words), dim)``
    vectors: np.ndarray
    #: each word's row
    key_to_index: dict
    #: whether the file is in the binary format (else text)
    binary: bool
    #: the records read, duplicates included: the header's count (or the lines of a file without a
    #: header), at most ``limit``; gensim makes up the counts ``records - row`` from it
    records: int


def check_limit(limit):
    """``limit`` as an int, or None.

    Raises
    ------
    ParameterError
        ``limit`` is neither None nor a positive integer.
    """
    if limit is None:
        return None
    if not is_integer(limit) or limit < 1:
        raise ParameterError(f"limit must be a positive integer or None, got {limit!r}")
    return int(limit)


def check_unicode_errors(unicode_errors):
    """``unicode_errors`` itself, when it names a codec error handler (``'strict'``, ``'replace'``, ...).

    Raises
    ------
    ParameterError
        No error handler has that name.
    """
    try:
        codecs.lookup_error(unicode_errors)
    except (LookupError, TypeError):
        raise ParameterError(f"unicode_errors must be an error handler such as 'strict', 'replace' or "
                             f"'ignore', got {unicode_errors!r}") from None
    return unicode_errors


def check_datatype(datatype, name="datatype"):
    """``datatype`` as a NumPy dtype: float32, float16 or float64 (:data:`FLOAT_TYPES`).

    Parameters
    ----------
    datatype : numpy dtype or type or str
    name : str, optional
        What the message calls it.

    Raises
    ------
    ParameterError
        Any other type (integers, complex, extended precision, None, ...).
    """
    try:
        dtype = None if datatype is None else np.dtype(datatype)
    except (TypeError, ValueError):
        dtype = None
    if dtype is None or not any(dtype == t for t in FLOAT_TYPES):
        raise ParameterError(f"{name} must be float32 (the default), float16 or float64, got {datatype!r}")
    return next(t for t in FLOAT_TYPES if dtype == t)


def check_encoding(encoding):
    """The codec name of ``encoding``, which must be ASCII-compatible (the header and separators are ASCII).

    Raises
    ------
    ParameterError
        No codec has that name, or it does not encode ASCII as ASCII (UTF-16, UTF-32...).
    """
    try:
        name = codecs.lookup(encoding).name
        ascii_compatible = "0 1\n w".encode(name) == b"0 1\n w"
    except (LookupError, TypeError, ValueError):
        raise ParameterError(f"encoding must be the name of a text encoding, got {encoding!r}") from None
    if not ascii_compatible:
        raise ParameterError(f"encoding {encoding!r} is not ASCII-compatible: word2vec files are read as bytes "
                             "whose spaces and newlines are ASCII")
    return name


def read_word2vec(path, binary=None, limit=None, unicode_errors="strict", encoding="utf-8", no_header=False,
                  datatype=np.float32):
    """Read vectors in word2vec.c's binary or text format (also fastText ``.vec``).

    Parameters
    ----------
    path : str or os.PathLike
        The file; gzip, bzip2 and xz files are decompressed.
    binary : bool, optional
        Binary (True) or text (False) format; detected from the first record
        when None.
    limit : int, optional
        Read only the first ``limit`` vectors.
    unicode_errors : str, optional
        How to handle words that are not valid UTF-8: ``'strict'`` (the
        default, as gensim) raises FormatError; ``'replace'`` or ``'ignore'``
        are passed on to :meth:`bytes.decode`.
    encoding : str, optional
        The words' encoding: UTF-8 unless word2vec.c was run on text in
        another ASCII-compatible encoding (Latin-1...).
    no_header : bool, optional
        The file is in the text format without the ``"<count> <dim>"`` line
        (GloVe's files): a first pass counts the lines and takes the dim from
        the first one.
    datatype : numpy dtype, optional
        The type of the matrix: float32, or float16 or float64 (gensim's
        ``datatype``).  Binary values are read as float32 and cast; text
        numbers are parsed as float64 and cast for float16 and float64.

    Returns
    -------
    Word2VecVectors
        Duplicate words keep their first vector (with a warning), as gensim does.

    Raises
    ------
    FormatError
        Empty, truncated, corrupt or foreign file, or a NaN/infinite value
        (or one beyond the range of ``datatype``).
    WordDecodeError
        A word is not valid in ``encoding`` with ``unicode_errors='strict'``:
        a FormatError that is also a :class:`UnicodeDecodeError`.
    ParameterError
        ``limit`` is not a positive integer, ``unicode_errors`` is not the
        name of an error handler, ``encoding`` is not an ASCII-compatible
        encoding, ``datatype`` is not float16, float32 or float64, or
        ``no_header`` is given with ``binary=True``.
    FileNotFoundError
        ``path`` does not exist.
    """
    limit = check_limit(limit)
    check_unicode_errors(unicode_errors)
    encoding = check_encoding(encoding)
    dtype = check_datatype(datatype)
    if no_header and binary:
        raise ParameterError("no_header: only the text format can be read without a header (binary=True given)")
    path = os.fspath(path)
    if os.path.isdir(path):
        raise FormatError(f"{path}: is a directory, not a word2vec file")
    sizes = text_sizes(path, limit, (encoding, unicode_errors)) if no_header else None
    with stream.open_input(path) as fin:
        reader = stream.BlockReader(fin, path)
        reader.more()
        if no_header:
            (count, dim), binary = sizes, False
            words, vectors, key_to_index = read_text_records(reader, path, count, dim, unicode_errors, encoding,
                                                             header_lines=0, dtype=dtype)
        else:
            count, dim = stream.parse_header(reader, path)
            declared = count
            if limit is not None:
                count = min(count, limit)
            if binary is None:
                binary = False if count == 0 else not stream.looks_text(reader, dim)
            read = read_binary_records if binary else read_text_records
            words, vectors, key_to_index = read(reader, path, count, dim, unicode_errors, encoding, dtype=dtype)
        if limit is None and not no_header:
            stream.check_nothing_follows(reader, path, declared)
    return Word2VecVectors(words, vectors, key_to_index, bool(binary), count)


def inspect_word2vec(path):
    """Describe a word2vec file from its header and first record (see :func:`w2v.formats.inspect`).

    Parameters
    ----------
    path : str

    Returns
    -------
    dict
        ``format`` (``'word2vec-binary'`` or ``'word2vec-text'``), ``count``
        and ``dim`` (the header's), ``settings`` (empty), ``compression``,
        ``path`` and ``has_counts`` (False).

    Raises
    ------
    FormatError
        Not a word2vec file, or an uncompressed one smaller than its header's
        count and dim need.
    """
    with stream.open_input(path) as fin:
        reader = stream.BlockReader(fin, path)
        reader.more()
        count, dim = stream.parse_header(reader, path)
        header_bytes = reader.offset()
        binary = False if count == 0 else not stream.looks_text(reader, dim)
    if not binary:
        check_text_dim(dim, path)
    compression = stream.compression(path)
    if compression is None:
        least = stream.least_bytes(count, dim, binary)
        size = os.path.getsize(path)
        if size < header_bytes + least:
            raise FormatError(f"{path}: truncated file: the header declares {count:,} vectors of dim {dim}, "
                              f"which need at least {header_bytes + least:,} bytes; the file has {size:,}")
    return {"format": "word2vec-binary" if binary else "word2vec-text", "count": count, "dim": dim,
            "settings": {}, "compression": compression, "path": path, "has_counts": False}


# --------------------------------------------------------------------------- writing
def _check_words(words, path, forbid):
    """Refuse, before anything is written, a word the word2vec readers could not read back."""
    max_word = stream.MAX_WORD
    longest = max_word // 4          # a word of fewer characters cannot exceed MAX_WORD bytes
    for i, word in enumerate(words):
        if not word or forbid.search(word):
            raise FormatError(
                f"{path}: cannot save word {word!r} (row {i}): the format cannot represent "
                "empty words or words containing whitespace (space, tab, newline, CR, VT, FF)"
            )
        if len(word) > longest and len(word.encode("utf-8", "surrogatepass")) > max_word:
            raise FormatError(
                f"{path}: cannot save word {word[:20]!r}... (row {i}): it is longer than "
                f"{max_word:,} bytes, the longest word the word2vec readers accept"
            )
    check_utf8(words, path)


def _atomic_write(path, write, append=False):
    """Call ``write(fileobj)`` on a temp file next to ``path`` (compressed by suffix), then rename.

    With ``append``, the temp file starts as a copy of the existing file,
    and a compressed one gets a further compressed stream (gzip, bzip2
    and xz readers read concatenated streams as one).
    """
    kind = compression_for_suffix(path)
    with atomic_write(path, "wb") as raw:
        if append and os.path.isfile(path):
            with open(path, "rb") as old:
                shutil.copyfileobj(old, raw, 1 << 20)
        if kind is None:
            write(raw)
        else:
            with open_compressed_writer(raw, kind) as out:
                write(out)


def write_word2vec(path, words, vectors, binary=True, rows=None, header_count=None, write_header=True,
                   append=False):
    """Write vectors in word2vec.c's binary or text format, atomically.

    Parameters
    ----------
    path : str or os.PathLike
        Target file; a ``.gz``, ``.bz2``, ``.xz`` or ``.lzma`` suffix compresses.
    words : list of str
        The words, in the order written.
    vectors : numpy.ndarray
        float32 (or float16, float64), shape ``(n, dim)``.
    binary : bool, optional
        Binary format (little-endian float32) if True, else text with
        ``'%.9g'`` numbers (float32 and float16 values round-trip exactly;
        float64 values are written with ``'%.17g'``, which round-trips them).
    rows : numpy.ndarray of int, optional
        The row of ``vectors`` of each word (by default the words' own rows);
        gathered block by block, without a copy of the matrix.
    header_count : int, optional
        The count the header declares (default ``len(words)``): more when
        further vectors are appended later.
    write_header : bool, optional
        Write the ``"<count> <dim>"`` line.
    append : bool, optional
        Add to the end of an existing file (still atomically: the file is
        replaced by a copy that holds the old and the new records).

    Raises
    ------
    FormatError
        A word is empty or contains ASCII whitespace (space, tab, newline,
        carriage return, vertical tab, form feed), a vector holds NaN/inf, or
        text vectors have more than ``MAX_TEXT_DIM`` (1,048,576) dimensions.
        Other whitespace (e.g. NO-BREAK SPACE) is written as it is: gensim,
        word2vec.c and fastText keep it inside a word, as the readers here do.
    OutputError
        ``path`` cannot be written.
    """
    path = os.fspath(path)
    _check_words(words, path, _WHITESPACE)
    if rows is None:
        check_finite(vectors, path, words, where="cannot save")
    else:
        check_finite(vectors, path, None, where="cannot save")
    dim = int(vectors.shape[1])
    count = len(words) if header_count is None else header_count
    if not binary and dim > stream.MAX_TEXT_DIM:
        raise FormatError(f"{path}: cannot save vectors of dim {dim:,} as text: the text format allows at most "
                          f"{stream.MAX_TEXT_DIM:,} (save them as binary)")

    def write(out):
        if write_header:
            out.write(f"{count} {dim}\n".encode("ascii"))
        for start in range(0, len(words), _WRITE_ROWS):
            if rows is None:
                block = np.asarray(vectors[start:start + _WRITE_ROWS])
            else:
                block = np.asarray(vectors[rows[start:start + _WRITE_ROWS]])
            names = words[start:start + _WRITE_ROWS]
            if binary:
                raw = block.astype("<f4", copy=False).tobytes()
                nb = 4 * dim
                out.write(b"".join(
                    w.encode("utf-8") + b" " + raw[k * nb:(k + 1) * nb] + b"\n"
                    for k, w in enumerate(names)
                ))
            else:
                template = "%s" + (" %.17g" if vectors.dtype == np.float64 else " %.9g") * dim + "\n"
                out.write("".join(template % (w, *r) for w, r in zip(names, block.tolist())).encode("utf-8"))

    _atomic_write(path, write, append)


# --------------------------------------------------------------------------- vocabulary counts
def read_vocab_counts(path, unicode_errors="strict"):
    """Read a vocabulary file of ``word count`` lines (word2vec.c's ``-save-vocab``).

    Parameters
    ----------
    path : str or os.PathLike
        The file (compression recognised from its first bytes).
    unicode_errors : str, optional
        How bytes that are not UTF-8 are decoded.

    Returns
    -------
    dict of str to int
        A word listed twice keeps its last count, as gensim reads it.

    Raises
    ------
    FormatError
        A line is not a word and a non-negative integer, or not UTF-8.
    FileNotFoundError
        ``path`` does not exist.
    """
    path = os.fspath(path)
    check_unicode_errors(unicode_errors)
    counts = {}
    with stream.open_input(path) as fin:
        reader = stream.BlockReader(fin, path)
        line_no = 0
        while True:
            raw = reader.readline(stream.MAX_WORD + 64)
            line_no += 1
            if raw is None:
                raise FormatError(f"{path}: line {line_no}: line too long; not a vocabulary file?")
            if not raw:
                return counts
            try:
                fields = raw.decode("utf-8", unicode_errors).split()
            except UnicodeDecodeError as exc:
                raise WordDecodeError.from_error(f"{path}: line {line_no}: not valid UTF-8 ({exc.reason})",
                                                 exc) from None
            if not fields:
                continue
            if len(fields) != 2 or not (fields[1].isascii() and fields[1].isdigit()):
                raise FormatError(f"{path}: line {line_no}: expected 'word count', got {raw[:60]!r}")
            counts[fields[0]] = int(fields[1])


def write_vocab_counts(path, words, counts, append=False):
    """Write ``word count`` lines (word2vec.c's ``-save-vocab`` format), atomically.

    Parameters
    ----------
    path : str or os.PathLike
        Target file; a ``.gz``, ``.bz2``, ``.xz`` or ``.lzma`` suffix compresses.
    words : list of str
        The words, already checked (see :func:`write_word2vec`).
    counts : sequence of int
        One count per word.
    append : bool, optional
        Add to the end of an existing file.

    Raises
    ------
    OutputError
        ``path`` cannot be written.
    """
    path = os.fspath(path)

    def write(out):
        for start in range(0, len(words), _WRITE_ROWS):
            block = zip(words[start:start + _WRITE_ROWS], counts[start:start + _WRITE_ROWS])
            out.write("".join(f"{w} {c}\n" for w, c in block).encode("utf-8"))

    _atomic_write(path, write, append)
