"""word2vec.c's vector files: binary and text, read and written as plain data.

binary
    word2vec.c's ``-binary 1`` output: a header line ``"<count> <dim>\\n"``,
    then per word its UTF-8 bytes, a space, ``dim`` little-endian float32
    values and a newline.
text
    The same header, then one line per word: ``word v1 v2 ... vd``.  fastText
    ``.vec`` files are this format.  Lines may end with a space or ``\\r\\n``.

A file's compression (gzip, bzip2, xz) is recognised from its first bytes
when reading (:mod:`w2v.opener`) and follows the suffix when writing.
Writers are atomic: the data go to a temporary file next to the target,
renamed over it only when complete.
"""
from __future__ import annotations

import codecs
import os
import re
from numbers import Integral
from typing import NamedTuple

import numpy as np

from ..arrays import check_finite
from ..atomic import atomic_write
from ..errors import FormatError, ParameterError
from ..opener import compression_for_suffix, open_compressed_writer
from . import word2vec_stream as stream
from .word2vec_binary import read_binary_records
from .word2vec_text import check_text_dim, read_text_records
from .files import check_utf8

__all__ = ["Word2VecVectors", "check_limit", "check_unicode_errors", "inspect_word2vec", "read_word2vec",
           "write_word2vec"]

_WRITE_ROWS = 8192        # rows formatted per write call

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


def check_limit(limit):
    """``limit`` as an int, or None.

    Raises
    ------
    ParameterError
        ``limit`` is neither None nor a positive integer.
    """
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, Integral) or limit < 1:
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


def read_word2vec(path, binary=None, limit=None, unicode_errors="strict"):
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

    Returns
    -------
    Word2VecVectors
        Duplicate words keep their first vector (with a warning), as gensim does.

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
    limit = check_limit(limit)
    check_unicode_errors(unicode_errors)
    path = os.fspath(path)
    if os.path.isdir(path):
        raise FormatError(f"{path}: is a directory, not a word2vec file")
    with stream.open_input(path) as fin:
        reader = stream.BlockReader(fin, path)
        reader.more()
        count, dim = stream.parse_header(reader, path)
        declared = count
        if limit is not None:
            count = min(count, limit)
        if binary is None:
            binary = False if count == 0 else not stream.looks_text(reader, dim)
        read = read_binary_records if binary else read_text_records
        words, vectors, key_to_index = read(reader, path, count, dim, unicode_errors)
        if limit is None:
            stream.check_nothing_follows(reader, path, declared)
    return Word2VecVectors(words, vectors, key_to_index, bool(binary))


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


def _atomic_write(path, write):
    """Call ``write(fileobj)`` on a temp file next to ``path`` (compressed by suffix), then rename."""
    kind = compression_for_suffix(path)
    with atomic_write(path, "wb") as raw:
        if kind is None:
            write(raw)
        else:
            with open_compressed_writer(raw, kind) as out:
                write(out)


def write_word2vec(path, words, vectors, binary=True):
    """Write vectors in word2vec.c's binary or text format, atomically.

    Parameters
    ----------
    path : str or os.PathLike
        Target file; a ``.gz``, ``.bz2``, ``.xz`` or ``.lzma`` suffix compresses.
    words : list of str
        The words, in row order.
    vectors : numpy.ndarray
        float32, shape ``(len(words), dim)``.
    binary : bool, optional
        Binary format (little-endian float32) if True, else text with
        ``'%.9g'`` numbers (float32 values round-trip exactly).

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
    check_finite(vectors, path, words, where="cannot save")
    dim = int(vectors.shape[1])
    if not binary and dim > stream.MAX_TEXT_DIM:
        raise FormatError(f"{path}: cannot save vectors of dim {dim:,} as text: the text format allows at most "
                          f"{stream.MAX_TEXT_DIM:,} (save them as binary)")

    def write(out):
        out.write(f"{len(words)} {dim}\n".encode("ascii"))
        for start in range(0, len(words), _WRITE_ROWS):
            block = np.asarray(vectors[start:start + _WRITE_ROWS])
            names = words[start:start + _WRITE_ROWS]
            if binary:
                raw = block.astype("<f4", copy=False).tobytes()
                nb = 4 * dim
                out.write(b"".join(
                    w.encode("utf-8") + b" " + raw[k * nb:(k + 1) * nb] + b"\n"
                    for k, w in enumerate(names)
                ))
            else:
                template = "%s" + " %.9g" * dim + "\n"
                rows = block.tolist()
                out.write("".join(template % (w, *r) for w, r in zip(names, rows)).encode("utf-8"))

    _atomic_write(path, write)
