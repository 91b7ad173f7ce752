"""Reading the records of word2vec.c's binary files into one float32 matrix."""
import logging
import os

import numpy as np

from ..util.arrays import first_nonfinite_row, nonfinite_error
from ..errors import FormatError, WordDecodeError
from ..util.opener import open_binary
from . import word2vec_stream as stream

logger = logging.getLogger(__name__)

__all__ = ["read_binary_records"]


def _locate_record(path, row, dim):
    """Byte offset of record ``row`` of a binary file (used only to report errors)."""
    nbytes = 4 * dim
    with open_binary(path, buffering=-1) as fin:
        reader = stream.BlockReader(fin, path)
        reader.more()
        stream.parse_header(reader, path)
        for _ in range(row + 1):
            while True:
                buf, pos = reader.buf, reader.pos
                while pos < len(buf) and buf[pos] == 0x0A:
                    pos += 1
                sp = buf.find(b" ", pos)
                if sp != -1 and sp + 1 + nbytes <= len(buf):
                    break
                reader.pos = pos
                if not reader.more():
                    return None
            start = reader.base + pos
            reader.pos = sp + 1 + nbytes
        return start


def _record_place(path, row, dim):
    """Where record ``row`` of a binary file starts, for a message: its byte offset (or number)."""
    where = _locate_record(path, row, dim)
    return f"byte offset {where}" if where is not None else f"record {row + 1}"


def _binary_capacity(path, count, dim):
    """Rows to allocate first: the header's count, bounded by what the file can hold.

    A header whose first vector cannot fit in the file is refused here,
    before anything is allocated for it (one of more than 1 GiB already was,
    by :func:`parse_header`).
    """
    if stream.compression(path) is None:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = None
        if size is not None:
            fits = size // stream.least_bytes(1, dim, True)
            if count and not fits:
                raise FormatError(f"{path}: byte offset {size}: unexpected end of file: the header declares "
                                  f"{count} vectors of dim {dim}, but the file cannot hold one "
                                  "(truncated file or wrong header?)")
            return min(count, fits + 1)
    return min(count, max(1, (64 << 20) // (4 * dim)))


def read_binary_records(reader, path, count, dim, unicode_errors, encoding="utf-8", dtype=np.float32):
    """Read ``count`` binary records (word, space, ``dim`` little-endian float32, optional newline).

    Parameters
    ----------
    reader : BlockReader
        After the header.
    path : str
        The file, for messages (and to find a bad record's byte offset).
    count, dim : int
        Records to read and values per vector.
    unicode_errors : str
        How words that are not UTF-8 are decoded.
    encoding : str, optional
        The words' encoding (an ASCII-compatible codec name).
    dtype : numpy.dtype, optional
        The matrix's type: the file's float32 values are cast to it
        (float16 or float64), as gensim casts them.

    Returns
    -------
    words : list of str
        Duplicates dropped (the first vector of a word is kept, with a warning).
    vectors : numpy.ndarray
        ``dtype``, C-contiguous, one row per word.
    key_to_index : dict

    Raises
    ------
    FormatError
        A truncated or corrupt record, an empty word, a word that is not
        UTF-8 (with ``'strict'``), or a vector holding NaN or infinity (or
        a value beyond the range of ``dtype``); the message gives the
        record's byte offset.
    """
    vectors, raws = _read_matrix(reader, path, count, dim)
    words = _decode_words(raws, path, dim, unicode_errors, encoding)
    del raws
    bad = first_nonfinite_row(vectors)
    if bad >= 0:
        raise nonfinite_error(bad, words[bad], path, _record_place(path, bad, dim))
    vectors, bad = stream.narrowed(vectors, dtype)
    if bad >= 0:
        raise stream.narrowing_error(bad, words[bad], path, _record_place(path, bad, dim), dtype)
    return _drop_duplicates(words, vectors, path)


def _read_matrix(reader, path, count, dim):
    """The float32 matrix of ``count`` binary records, and the raw bytes of their words."""
    nbytes = 4 * dim
    raws = []
    # the vectors go straight into numpy memory (aligned, transparent huge pages): a matrix
    # in a bytearray makes every later query ~30% slower (TLB misses in the BLAS gemv)
    cap = _binary_capacity(path, count, dim)
    out = np.empty(cap * nbytes, dtype=np.uint8)
    done = 0
    while done < count:
        if done == cap:
            cap = min(count, 2 * cap)
            grown = np.empty(cap * nbytes, dtype=np.uint8)
            grown[:done * nbytes] = out[:done * nbytes]
            out = grown
        done, sp = _copy_records(reader, path, raws, out, done, cap, nbytes)
        if done >= count:
            break
        if done == cap:
            continue
        _read_on(reader, path, sp, done, count, dim)
    vectors = out[:done * nbytes].view("<f4").reshape(done, dim)
    if vectors.dtype != np.float32:  # big-endian host
        vectors = vectors.astype(np.float32)
    return vectors, raws


def _copy_records(reader, path, raws, out, done, cap, nbytes):
    """Copy the complete records in the reader's buffer to ``out`` from row ``done`` up to row ``cap``.

    The words' bytes are appended to ``raws`` and the reader's position
    advanced past the records copied.  Returns the rows now done and where
    the space after the next word was found (-1: not in the buffer).
    """
    max_word = stream.MAX_WORD
    buf, pos = reader.buf, reader.pos
    end = len(buf)
    mv = memoryview(buf)
    dst = memoryview(out)
    find = buf.find
    append = raws.append
    off = done * nbytes
    sp = -1
    try:
        while done < cap:
            while pos < end and buf[pos] == 0x0A:  # newline word2vec.c writes after each vector
                pos += 1
            sp = find(b" ", pos, pos + max_word + 1)
            vend = sp + 1 + nbytes
            if sp == -1 or vend > end:
                break
            if sp == pos:
                raise FormatError(
                    f"{path}: byte offset {reader.base + pos}: empty word in record {done + 1}"
                )
            append(buf[pos:sp])
            dst[off:off + nbytes] = mv[sp + 1:vend]
            off += nbytes
            pos = vend
            done += 1
    finally:
        mv.release()
        dst.release()
    reader.pos = pos
    return done, sp


def _read_on(reader, path, sp, done, count, dim):
    """Read the next block for an incomplete record, or raise: no word end in sight, or end of file."""
    max_word = stream.MAX_WORD
    if sp == -1 and len(reader.buf) - reader.pos > max_word:
        raise FormatError(
            f"{path}: byte offset {reader.base + reader.pos}: no space within {max_word} bytes "
            f"(record {done + 1}); not a word2vec binary file or corrupt"
        )
    if not reader.more():
        raise FormatError(
            f"{path}: byte offset {reader.base + len(reader.buf)}: unexpected end of file "
            f"in record {done + 1}; the header declares {count} vectors of dim {dim} "
            "(truncated file or wrong header?)"
        )


def _decode_words(raws, path, dim, unicode_errors, encoding):
    """Decode the raw word bytes of a binary file (all at once when possible)."""
    try:
        words = b"\n".join(raws).decode(encoding, unicode_errors).split("\n") if raws else []
        if len(words) == len(raws):
            return words
        return [r.decode(encoding, unicode_errors) for r in raws]
    except UnicodeDecodeError:
        for row, r in enumerate(raws):
            try:
                r.decode(encoding, unicode_errors)
            except UnicodeDecodeError as exc:
                raise WordDecodeError.from_error(
                    f"{path}: {_record_place(path, row, dim)}: word is not valid {stream.encoding_label(encoding)} "
                    f"({exc.reason} at byte {exc.start} of "
                    "the word); pass unicode_errors='replace' (command line: --unicode-errors replace) "
                    "to load it anyway", exc
                ) from None
        raise


def _drop_duplicates(words, vectors, path):
    """Keep the first vector of each word (gensim does the same, with a warning)."""
    key_to_index = dict(zip(words, range(len(words))))
    if len(key_to_index) == len(words):
        return words, vectors, key_to_index
    seen = {}
    keep = np.ones(len(words), dtype=bool)
    for i, w in enumerate(words):
        if w in seen:
            keep[i] = False
            logger.warning("%s: record %d: duplicate word %r, ignoring all but the first", path, i + 1, w)
        else:
            seen[w] = len(seen)
    words = [w for w, k in zip(words, keep) if k]
    return words, np.ascontiguousarray(vectors[keep]), seen


