"""Reading and writing word vectors.

Formats
-------
word2vec binary
    word2vec.c's ``-binary 1`` output: a header line ``"<count> <dim>\\n"``,
    then per word its UTF-8 bytes, a space, ``dim`` little-endian float32
    values and a newline.
word2vec text
    The same header, then one line per word: ``word v1 v2 ... vd``.  fastText
    ``.vec`` files are this format.  Lines may end with a space or ``\\r\\n``.
native
    A directory holding ``vectors.npy`` (memory-mappable), ``vocab.tsv``
    (``word<TAB>count`` per line, in row order) and ``meta.json``.

word2vec files ending in ``.gz``, ``.bz2`` or ``.xz`` are compressed and
decompressed on the fly (chosen by suffix, both for loading and saving).
Every writer is atomic: the data go to a temporary file (or directory) next
to the target, which is renamed over the target only when complete.

Corrupt, truncated or foreign files raise :class:`~w2v.errors.FormatError`
naming the file and the line number or byte offset of the problem.
"""
from __future__ import annotations

import codecs
import glob
import json
import logging
import math
import os
import re
import shutil
import tempfile
import warnings
from numbers import Integral

import numpy as np

from .atomic import atomic_write, fsync_dir as _fsync_dir, umask_mode
from .errors import FormatError, OutputError, ParameterError
from .opener import (DECODE_ERRORS, compression_for_suffix, compression_of, open_binary, open_compressed_writer,
                     strip_compression_suffix)
from .arrays import check_finite, first_nonfinite_row
from .vectors import KeyedVectors

logger = logging.getLogger(__name__)

__all__ = [
    "load",
    "save",
    "load_word2vec_format",
    "save_word2vec_format",
    "load_native",
    "save_native",
    "inspect",
    "NATIVE_FORMAT",
    "NATIVE_VERSION",
]

NATIVE_FORMAT = "w2v-native"
NATIVE_VERSION = 1

_BLOCK = 1 << 23          # bytes read at a time from word2vec files
_MAX_HEADER = 4096        # longest acceptable header line
# Longest word (UTF-8 bytes) the word2vec readers accept and the writers write.  The corpus
# tokenizer cuts a run of non-space longer than 64 chunks of 256 Ki characters, so its longest
# token is 65 Mi characters' worth of bytes at most (4-byte characters; U+FFFD for invalid bytes
# takes 3): 128 MiB covers every token w2v emits, and bounds what a corrupt file makes a reader
# buffer before it gives up.
_MAX_WORD = 1 << 27
_WRITE_ROWS = 8192        # rows formatted per write call
_MAX_VECTOR_BYTES = 1 << 30   # one vector of more than 1 GiB (dim 268M) is a corrupt header

# What the word2vec writers refuse inside a word: ASCII whitespace, where word2vec.c, gensim,
# fastText and C readers (``isspace``, ``bytes.split``) end a word or a line.  Other whitespace
# (NO-BREAK SPACE, IDEOGRAPHIC SPACE, U+2028, ...) stays inside a word in every one of them, as
# it does in w2v's readers: fastText and gensim files hold such words, and converting them works.
_WHITESPACE = re.compile(r"[ \t\n\r\v\f]")
_TEXT_VALUES = re.compile(rb"^[0-9eE+\-. naifNAIFtyTY]+$")
_TEXT_VALUES_STR = re.compile(r"[0-9eE+\-. naifNAIFtyTY]*")
_DECODE_ERRORS = DECODE_ERRORS
_DIGITS = re.compile(r"[0-9 ]*")
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)",
                    re.IGNORECASE)
_WORD_END = re.compile(rb"[ \n]")
_NEWLINES = re.compile(rb"\n*")


def _compression(path):
    """The compression of an existing file (from its first bytes), or None."""
    try:
        return compression_of(path)
    except OSError:
        return None


def decode_utf8(raw, path):
    """``raw.decode('utf-8')``; a FormatError naming the file and line where it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise FormatError(f"{path}: line {line}: not valid UTF-8") from None


def _open_read(path):
    return open_binary(path, buffering=-1)


def _open_input(path):
    """:func:`_open_read`; a file that exists but cannot be read is a FormatError naming it."""
    try:
        return _open_read(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise FormatError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _check_limit(limit):
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, Integral) or limit < 1:
        raise ParameterError(f"limit must be a positive integer or None, got {limit!r}")
    return int(limit)


def _check_unicode_errors(unicode_errors):
    """``unicode_errors`` must name a codec error handler (``'strict'``, ``'replace'``, ...)."""
    try:
        codecs.lookup_error(unicode_errors)
    except (LookupError, TypeError):
        raise ParameterError(f"unicode_errors must be an error handler such as 'strict', 'replace' or "
                             f"'ignore', got {unicode_errors!r}") from None
    return unicode_errors


# --------------------------------------------------------------------------- reading
class _Reader:
    """Block reader over a binary stream that tracks absolute byte offsets."""

    def __init__(self, fin, path):
        self.fin = fin
        self.path = path
        self.buf = b""
        self.pos = 0          # position in buf
        self.base = 0         # absolute offset of buf[0]
        self.eof = False

    def more(self):
        """Read another block, keeping the unread part; False at end of file."""
        if self.eof:
            return False
        try:
            chunk = self.fin.read(_BLOCK)
        except _DECODE_ERRORS as exc:
            raise FormatError(f"{self.path}: cannot decompress/read data after byte offset "
                              f"{self.base + len(self.buf)}: {exc}") from None
        if not chunk:
            self.eof = True
            return False
        self.base += self.pos
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def offset(self):
        return self.base + self.pos

    def readline(self, maxlen):
        """Bytes up to and including the next newline (or EOF); None if longer than maxlen."""
        while True:
            nl = self.buf.find(b"\n", self.pos)
            if nl != -1:
                if nl - self.pos > maxlen:
                    return None
                line = self.buf[self.pos:nl + 1]
                self.pos = nl + 1
                return line
            if len(self.buf) - self.pos > maxlen:
                return None
            if not self.more():
                line = self.buf[self.pos:]
                self.pos = len(self.buf)
                return line


def _parse_header(reader, path):
    line = reader.readline(_MAX_HEADER)
    if line is None:
        raise FormatError(f"{path}: line 1: header line too long; expected '<count> <dim>'")
    if not line:
        raise FormatError(f"{path}: empty file; expected a word2vec header '<count> <dim>'")
    try:
        text = line.decode("ascii")
        fields = text.split()
        # ASCII digits only: int() also reads "1_0" and "+10" (10), which no writer writes
        if len(fields) != 2 or not all(f.isdigit() for f in fields):
            raise ValueError
        count, dim = int(fields[0]), int(fields[1])
    except (UnicodeDecodeError, ValueError):
        shown = line[:60].decode("utf-8", "replace").rstrip("\r\n")
        raise FormatError(
            f"{path}: line 1: bad header {shown!r}; expected '<count> <dim>' "
            "(is this a word2vec/fastText vector file?)"
        ) from None
    if count < 0 or dim < 1:
        raise FormatError(f"{path}: line 1: bad header: count {count}, dim {dim}")
    if 4 * dim > _MAX_VECTOR_BYTES:
        # refused whatever the count: even "0 <dim>" gives an empty (0, dim) matrix, which numpy
        # cannot make beyond its index range, and no file holds one such vector
        raise FormatError(f"{path}: line 1: implausible header: vectors of dim {dim} "
                          "(more than 1 GiB each)")
    return count, dim


def _printable(data):
    """Whether ``data`` reads as UTF-8 text (a cut multi-byte character at the end is allowed)."""
    for trim in range(4):
        try:
            text = data[:len(data) - trim].decode("utf-8")
            break
        except UnicodeDecodeError:
            continue
    else:
        return False
    return all(ch.isprintable() or ch in "\t\r\n" for ch in text)


def _fill(reader, n):
    """Read until ``n`` bytes follow the reader's position (or the file ends); how many do."""
    while len(reader.buf) - reader.pos < n and reader.more():
        pass
    return len(reader.buf) - reader.pos


def _looks_text(reader, dim):
    """Decide text vs binary from the first record after the header, without consuming it.

    The record's word may be up to ``_MAX_WORD`` bytes long: the reader
    reads on until the space (or newline) that ends it, then looks at what
    follows.  A binary record has ``4 * dim`` bytes of float32 after the
    space; a text line has ``dim`` numbers.
    """
    lead = 0                      # blank lines word2vec.c skips before a record's word
    while True:
        have = _fill(reader, lead + 1)
        if lead >= have:
            return False          # nothing after the header: the binary reader reports it
        lead = _NEWLINES.match(reader.buf, reader.pos + lead, len(reader.buf)).end() - reader.pos
        if lead < have:
            break
    searched, stop = lead, lead + _MAX_WORD + 1
    while True:
        have = len(reader.buf) - reader.pos
        m = _WORD_END.search(reader.buf, reader.pos + searched, reader.pos + min(have, stop))
        if m is not None:
            end = m.start() - reader.pos
            break
        searched = min(have, stop)
        if searched >= stop or not reader.more():
            return False          # no space within _MAX_WORD bytes: not text either way
    if reader.buf[reader.pos + end] == 0x0A:
        # a newline before any space: no binary record looks like that (unless its word holds
        # a newline; printable text decides)
        return _printable(reader.buf[reader.pos + lead:reader.pos + end])
    tail = min(32 * dim + 2, 1 << 22)      # a text line's numbers (or the start of them)
    _fill(reader, end + 1 + max(tail, min(4 * dim, 1 << 22)))
    rest = reader.buf[reader.pos + end + 1:reader.pos + end + 1 + max(tail, 4 * dim)]
    nl = rest.find(b"\n")
    if end == lead:
        # an empty word (the line starts with a space): text only if the line is
        _fill(reader, end + (1 << 22))
        line = reader.buf[reader.pos + end:reader.pos + end + (1 << 22)]
        nl = line.find(b"\n")
        return nl != -1 and _printable(line[:nl])
    values = (rest if nl == -1 else rest[:nl]).rstrip(b"\r ")
    region = rest[:4 * dim]
    if values and _TEXT_VALUES.match(values) is not None:
        if len(values.split()) == dim:
            return True
        return _printable(region)  # a text line with the wrong number of values
    # not plain numbers: text only if the vector's worth of bytes is text (e.g. "1,5" decimals)
    return len(region) == 4 * dim and _printable(region)


def _add_word(word, key_to_index, words, path, where):
    if word in key_to_index:
        logger.warning("%s: %s: duplicate word %r, ignoring all but the first", path, where, word)
        return False
    key_to_index[word] = len(words)
    words.append(word)
    return True


def _locate_record(path, row, dim):
    """Byte offset of record ``row`` of a binary file (used only to report errors)."""
    nbytes = 4 * dim
    with _open_read(path) as fin:
        reader = _Reader(fin, path)
        reader.more()
        _parse_header(reader, path)
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


def _least_bytes(count, dim, binary):
    """The fewest bytes ``count`` records of ``dim`` numbers take after the header.

    A binary record is at least a one-byte word, a space and ``4 * dim``
    bytes; a text line at least a one-byte word and ``dim`` one-digit
    numbers, each after a space, and lines are separated by newlines.
    """
    if binary:
        return count * (4 * dim + 2)
    return count * (2 * dim + 1) + max(0, count - 1)


def _binary_capacity(path, count, dim):
    """Rows to allocate first: the header's count, bounded by what the file can hold.

    A header whose first vector cannot fit in the file is refused here,
    before anything is allocated for it (one of more than 1 GiB already was,
    by :func:`_parse_header`).
    """
    if _compression(path) is None:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = None
        if size is not None:
            fits = size // _least_bytes(1, dim, True)
            if count and not fits:
                raise FormatError(f"{path}: byte offset {size}: unexpected end of file: the header declares "
                                  f"{count} vectors of dim {dim}, but the file cannot hold one "
                                  "(truncated file or wrong header?)")
            return min(count, fits + 1)
    return min(count, max(1, (64 << 20) // (4 * dim)))


def _read_binary(reader, path, count, dim, unicode_errors):
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
        buf, pos = reader.buf, reader.pos
        end = len(buf)
        mv = memoryview(buf)
        dst = memoryview(out)
        find = buf.find
        append = raws.append
        off = done * nbytes
        try:
            while done < cap:
                while pos < end and buf[pos] == 0x0A:  # newline word2vec.c writes after each vector
                    pos += 1
                sp = find(b" ", pos, pos + _MAX_WORD + 1)
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
        if done >= count:
            break
        if done == cap:
            continue
        if sp == -1 and end - pos > _MAX_WORD:
            raise FormatError(
                f"{path}: byte offset {reader.base + pos}: no space within {_MAX_WORD} bytes "
                f"(record {done + 1}); not a word2vec binary file or corrupt"
            )
        if not reader.more():
            raise FormatError(
                f"{path}: byte offset {reader.base + len(reader.buf)}: unexpected end of file "
                f"in record {done + 1}; the header declares {count} vectors of dim {dim} "
                "(truncated file or wrong header?)"
            )
    vectors = out[:done * nbytes].view("<f4").reshape(done, dim)
    if vectors.dtype != np.float32:  # big-endian host
        vectors = vectors.astype(np.float32)
    words = _decode_words(raws, path, dim, unicode_errors)
    del raws
    bad = _first_nonfinite_row(vectors)
    if bad is not None:
        where = _locate_record(path, bad, dim)
        where = f"byte offset {where}" if where is not None else f"record {bad + 1}"
        raise FormatError(f"{path}: {where}: vector of {words[bad]!r} contains NaN or infinity")
    words, vectors, key_to_index = _drop_duplicates(words, vectors, path)
    return words, vectors, key_to_index


def _decode_words(raws, path, dim, unicode_errors):
    """Decode the raw word bytes of a binary file (all at once when possible)."""
    try:
        words = b"\n".join(raws).decode("utf-8", unicode_errors).split("\n") if raws else []
        if len(words) == len(raws):
            return words
        return [r.decode("utf-8", unicode_errors) for r in raws]
    except UnicodeDecodeError:
        for row, r in enumerate(raws):
            try:
                r.decode("utf-8", unicode_errors)
            except UnicodeDecodeError as exc:
                where = _locate_record(path, row, dim)
                where = f"byte offset {where}" if where is not None else f"record {row + 1}"
                raise FormatError(
                    f"{path}: {where}: word is not valid UTF-8 ({exc.reason} at byte {exc.start} of "
                    "the word); pass unicode_errors='replace' (command line: --unicode-errors replace) "
                    "to load it anyway"
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


def _first_nonfinite_row(vectors):
    """Index of the first row of a 2-d array holding NaN or infinity; None if there is none."""
    bad = first_nonfinite_row(vectors)
    return None if bad < 0 else bad


def _parse_numbers(rests, dim):
    """float32 array (len(rests), dim) from space-separated number strings; None if any is bad."""
    joined = " ".join(rests)
    if _TEXT_VALUES_STR.fullmatch(joined) is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with np.errstate(over="ignore", invalid="ignore"):
                    arr = np.fromstring(joined, dtype=np.float32, sep=" ")
            if arr.size == len(rests) * dim:
                return arr.reshape(len(rests), dim)
        except (ValueError, Warning):
            pass
    values = [v for r in rests for v in r.split(" ")]
    if not all(_FLOAT.fullmatch(v) for v in values):
        return None   # float() also takes "1_0" (10.0), non-ASCII digits and padding; strtof does not
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            arr = np.array(values, dtype=np.float32)
    except ValueError:
        return None
    return arr.reshape(len(rests), dim) if arr.size == len(rests) * dim else None


def _parse_text_block(lines, first_line_no, path, dim, unicode_errors, words, key_to_index):
    """Parse text lines into words and a float32 block (None if no new word)."""
    rests, line_of_row = [], []
    for k, raw in enumerate(lines):
        line_no = first_line_no + k
        try:
            text = raw.decode("utf-8", errors=unicode_errors)
        except UnicodeDecodeError as exc:
            raise FormatError(
                f"{path}: line {line_no}: not valid UTF-8 ({exc.reason} at byte {exc.start}); "
                "pass unicode_errors='replace' (command line: --unicode-errors replace) to load it anyway"
            ) from None
        text = text.rstrip()
        word, _, rest = text.partition(" ")
        if not word or not rest or rest.count(" ") != dim - 1:
            parts = text.split(" ")
            found = len(parts) - 1 if parts[0] else 0
            hint = " (fields must be separated by single spaces)" if "\t" in text else ""
            raise FormatError(
                f"{path}: line {line_no}: expected a word and {dim} values, found {found} values{hint}"
            )
        if _add_word(word, key_to_index, words, path, f"line {line_no}"):
            rests.append(rest)
            line_of_row.append(line_no)
    if not rests:
        return None
    block = _parse_numbers(rests, dim)
    if block is None:
        for rest, line_no in zip(rests, line_of_row):
            for v in rest.split(" "):
                if _FLOAT.fullmatch(v) is None:
                    raise FormatError(f"{path}: line {line_no}: cannot parse {v[:40]!r} as a number")
        raise FormatError(f"{path}: lines {first_line_no}-{first_line_no + len(lines) - 1}: unparsable numbers")
    bad = _first_nonfinite_row(block)
    if bad is not None:
        raise FormatError(
            f"{path}: line {line_of_row[bad]}: vector of {words[len(words) - len(rests) + bad]!r} contains "
            "NaN or infinity (or a value too large for float32)"
        )
    return block


def _read_text(reader, path, count, dim, unicode_errors):
    words, key_to_index = [], {}
    blocks = []
    max_line = max(1 << 20, 64 * (dim + 1) + _MAX_WORD)
    line_no = 1
    batch, batch_start = [], 2
    while line_no - 1 < count:
        line = reader.readline(max_line)
        line_no += 1
        if line is None:
            raise FormatError(f"{path}: line {line_no}: line longer than {max_line} bytes; corrupt file?")
        if not line:
            raise FormatError(
                f"{path}: line {line_no}: unexpected end of file; the header declares {count} vectors "
                f"but only {line_no - 2} lines follow (truncated file or wrong header?)"
            )
        batch.append(line)
        if len(batch) >= 4096:
            block = _parse_text_block(batch, batch_start, path, dim, unicode_errors, words, key_to_index)
            if block is not None:
                blocks.append(block)
            batch, batch_start = [], line_no + 1
    if batch:
        block = _parse_text_block(batch, batch_start, path, dim, unicode_errors, words, key_to_index)
        if block is not None:
            blocks.append(block)
    if blocks:
        vectors = blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
    else:
        vectors = np.empty((0, dim), dtype=np.float32)
    return words, np.ascontiguousarray(vectors), key_to_index


def load_word2vec_format(path, binary=None, limit=None, unicode_errors="strict"):
    """Load vectors in word2vec.c's binary or text format (also fastText ``.vec``).

    Parameters
    ----------
    path : str or os.PathLike
        The file; ``.gz``, ``.bz2`` and ``.xz`` files are decompressed.
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
    limit = _check_limit(limit)
    _check_unicode_errors(unicode_errors)
    path = os.fspath(path)
    if os.path.isdir(path):
        raise FormatError(f"{path}: is a directory, not a word2vec file")
    with _open_input(path) as fin:
        reader = _Reader(fin, path)
        reader.more()
        count, dim = _parse_header(reader, path)
        declared = count
        if limit is not None:
            count = min(count, limit)
        if binary is None:
            binary = False if count == 0 else not _looks_text(reader, dim)
        if binary:
            words, vectors, k2i = _read_binary(reader, path, count, dim, unicode_errors)
        else:
            words, vectors, k2i = _read_text(reader, path, count, dim, unicode_errors)
        if limit is None:
            _check_nothing_follows(reader, path, declared)
    kv = KeyedVectors._trusted(words, vectors, key_to_index=k2i, source=path)
    kv.source_format = "word2vec-binary" if binary else "word2vec-text"
    kv.source_path = path
    return kv


def _check_nothing_follows(reader, path, count):
    """Raise if anything but whitespace follows the ``count`` records the header declares.

    gensim stops reading there, so a header that says fewer vectors than
    the file holds would silently drop the rest (``0 100`` on a full file
    loads nothing).  With ``limit`` the rest is skipped on purpose and not
    checked.
    """
    while True:
        rest = reader.buf[reader.pos:]
        if rest.strip():
            raise FormatError(f"{path}: byte offset {reader.offset() + len(rest) - len(rest.lstrip())}: "
                              f"data after the {count} vectors the header declares (wrong header?)")
        reader.pos = len(reader.buf)
        if not reader.more():
            return


# --------------------------------------------------------------------------- writing
def _check_words(kv, path, forbid):
    """Refuse, before anything is written, a word the word2vec readers could not read back."""
    longest = _MAX_WORD // 4          # a word of fewer characters cannot exceed _MAX_WORD bytes
    for i, word in enumerate(kv.index_to_key):
        if not word or forbid.search(word):
            raise FormatError(
                f"{path}: cannot save word {word!r} (row {i}): the format cannot represent "
                "empty words or words containing whitespace (space, tab, newline, CR, VT, FF)"
            )
        if len(word) > longest and len(word.encode("utf-8", "surrogatepass")) > _MAX_WORD:
            raise FormatError(
                f"{path}: cannot save word {word[:20]!r}... (row {i}): it is longer than "
                f"{_MAX_WORD:,} bytes, the longest word the word2vec readers accept"
            )
    _check_utf8(kv.index_to_key, path)


def _check_utf8(words, path):
    """Refuse words that have no UTF-8 encoding (lone surrogates) before anything is written."""
    try:
        "".join(words).encode("utf-8")
    except UnicodeEncodeError:
        for i, word in enumerate(words):
            try:
                word.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise FormatError(f"{path}: cannot save word {word[:40]!r} (row {i}): it cannot be "
                                  f"encoded as UTF-8 ({exc.reason})") from None


def _check_finite(kv, path):
    row = _first_nonfinite_row(kv.vectors)
    if row is not None:
        raise FormatError(
            f"{path}: cannot save: the vector of {kv.index_to_key[row]!r} (row {row}) contains NaN or infinity"
        )


def _atomic_write(path, write):
    """Call ``write(fileobj)`` on a temp file next to ``path`` (compressed by suffix), then rename."""
    kind = compression_for_suffix(path)
    with atomic_write(path, "wb") as raw:
        if kind is None:
            write(raw)
        else:
            with open_compressed_writer(raw, kind) as out:
                write(out)


def save_word2vec_format(kv, path, binary=True):
    """Save vectors in word2vec.c's binary or text format, atomically.

    Parameters
    ----------
    kv : KeyedVectors
        The vectors.
    path : str or os.PathLike
        Target file; a ``.gz``, ``.bz2`` or ``.xz`` suffix compresses.
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
    path = os.fspath(path)
    _check_words(kv, path, _WHITESPACE)
    _check_finite(kv, path)
    words = kv.index_to_key
    vecs = kv.vectors
    dim = kv.vector_size

    def write(out):
        out.write(f"{len(words)} {dim}\n".encode("ascii"))
        for start in range(0, len(words), _WRITE_ROWS):
            block = np.asarray(vecs[start:start + _WRITE_ROWS])
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


# --------------------------------------------------------------------------- native
def is_native_dir(path):
    meta = os.path.join(path, "meta.json")
    try:
        with open(meta, "rb") as f:
            return json.loads(f.read().decode("utf-8")).get("format") == NATIVE_FORMAT
    except (OSError, ValueError, AttributeError):
        return False


#: the file that makes a native directory a full model (:mod:`w2v.persist`)
_MODEL_FILE = "model.json"


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


def save_native(kv, path, extra=None):
    """Save vectors in the native format (a directory), atomically.

    The directory holds ``vectors.npy`` (``np.save``; memory-mappable),
    ``vocab.tsv`` (UTF-8, ``word<TAB>count`` per line in row order) and
    ``meta.json`` (``{"format": "w2v-native", "version": 1, "count": V,
    "dim": D, "settings": {...}, "has_counts": bool}``).  It is written into a
    temporary directory next to ``path`` and renamed into place; an existing
    native model at ``path`` is replaced (other existing directories are
    refused, and so is a full model -- one holding ``model.json`` -- unless
    ``extra`` writes one).

    Parameters
    ----------
    kv : KeyedVectors
        The vectors.
    path : str or os.PathLike
        Target directory.
    extra : callable, optional
        ``extra(tmpdir)`` writes further files into the temporary directory
        before it is renamed into place (used by :meth:`w2v.model.Word2Vec.save`
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
    _check_words_native(kv, path)
    try:
        settings = json.loads(json.dumps(kv.settings or {}, default=json_default))
    except (TypeError, ValueError) as exc:
        raise FormatError(f"{path}: settings are not JSON-serialisable: {exc}") from None
    _check_replaceable(path, target, full_model=extra is not None)
    parent = os.path.dirname(target)
    try:
        tmp = tempfile.mkdtemp(dir=parent, prefix="." + os.path.basename(target) + ".", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    aside = None
    try:
        counts = kv.counts
        with open(os.path.join(tmp, "vectors.npy"), "wb") as f:
            np.save(f, np.asarray(kv.vectors, dtype=np.float32), allow_pickle=False)
            f.flush()
            os.fsync(f.fileno())
        if counts is None:
            lines = [f"{w}\t0\n" for w in kv.index_to_key]
        else:
            lines = [f"{w}\t{c}\n" for w, c in zip(kv.index_to_key, counts.tolist())]
        with open(os.path.join(tmp, "vocab.tsv"), "wb") as f:
            f.write("".join(lines).encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        meta = {
            "format": NATIVE_FORMAT,
            "version": NATIVE_VERSION,
            "count": len(kv),
            "dim": kv.vector_size,
            "settings": settings,
            "has_counts": counts is not None,
        }
        with open(os.path.join(tmp, "meta.json"), "wb") as f:
            f.write((json.dumps(meta, indent=1, sort_keys=True) + "\n").encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        if extra is not None:
            extra(tmp)
        os.chmod(tmp, umask_mode(0o777))
        _fsync_dir(tmp)
        if os.path.lexists(target):
            aside = tempfile.mkdtemp(dir=parent, prefix="." + os.path.basename(target) + ".", suffix=ASIDE_SUFFIX)
            os.rmdir(aside)
            os.rename(target, aside)
        os.rename(tmp, target)
        tmp = None
        _fsync_dir(parent)
    except BaseException as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
            if aside is not None and not os.path.lexists(target):
                try:
                    os.rename(aside, target)
                    aside = None
                except OSError:
                    pass
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
    finally:
        if tmp is None:
            # the new model is in place: the version this save moved aside, and any an earlier
            # save left (one interrupted while deleting it), are no longer needed by load's recovery
            for stale in aside_dirs(target):
                _remove_aside(stale)


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


#: suffix of the directory a save moves the model it replaces to (see :func:`aside_dirs`)
ASIDE_SUFFIX = ".old"


def aside_dirs(path):
    """The directories next to ``path`` where saves moved the model they replaced.

    :func:`save_native` renames an existing model to ``.<name>.<random>.old``
    before renaming the new one in, and deletes it afterwards; a save killed
    in between leaves it there.  The random part holds no dot: ``.m.bak.x1.old``
    is an aside of ``m.bak``, not of ``m`` (a save of ``m`` must not delete it,
    nor ``Word2Vec.load`` of a missing ``m`` load it).
    """
    parent, name = os.path.split(os.path.abspath(path))
    prefix = "." + name + "."
    return [d for d in glob.glob(os.path.join(parent, glob.escape(prefix) + "*" + ASIDE_SUFFIX))
            if "." not in os.path.basename(d)[len(prefix):-len(ASIDE_SUFFIX)]
            and os.path.isdir(d) and not os.path.islink(d)]


def json_default(obj):
    """``json.dumps``' ``default``: NumPy scalars and arrays as numbers and lists, paths as strings."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def write_array(path, array):
    """Write one array as ``.npy`` (no pickle) and fsync it; for files of a native directory."""
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(array), allow_pickle=False)
        f.flush()
        os.fsync(f.fileno())


def _cannot_read(path, exc):
    """The FormatError for a file of a model that exists but cannot be read (permissions, I/O)."""
    return FormatError(f"{path}: cannot read: {exc.strerror or exc}")


def read_model_file(path, missing):
    """The bytes of a small file of a model directory; FormatError if missing or unreadable."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FormatError(f"{path}: {missing}") from None
    except OSError as exc:
        raise _cannot_read(path, exc) from None


def _npy_layout(f, path):
    """``(shape, fortran_order, dtype, data_offset)`` from the header of the open ``.npy`` file ``f``.

    A header that does not parse (numpy raises ValueError, SyntaxError,
    tokenize.TokenError, OverflowError... for damaged ones), declares a
    negative or overflowing shape, an object dtype (pickle) or another data
    size than the file holds is a FormatError naming the file, before
    anything is mapped or allocated for it.
    """
    fmt = np.lib.format
    size = os.fstat(f.fileno()).st_size
    try:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(f)
        else:
            raise ValueError(f"unsupported .npy format version {version}")
    except OSError:
        raise
    except Exception as exc:   # noqa: BLE001 - numpy's header parser raises many kinds
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise FormatError(f"{path}: corrupt or truncated .npy file (bad header): {detail[:200]}") from None
    if dtype.hasobject:
        raise FormatError(f"{path}: the array holds Python objects (it would need pickle); refused")
    if not isinstance(shape, tuple) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
        raise FormatError(f"{path}: corrupt .npy file: bad shape {shape!r} in the header")
    if dtype.itemsize == 0:
        raise FormatError(f"{path}: corrupt .npy file: dtype {dtype} has no size")
    offset = f.tell()
    want = offset + math.prod(shape) * dtype.itemsize
    if size != want:
        what = "truncated" if size < want else "corrupt"
        raise FormatError(f"{path}: {what} .npy file: the header declares a {dtype} array of shape "
                          f"{shape}, {want:,} bytes in all; the file has {size:,}")
    return shape, fortran, dtype, offset


def _load_npy(path, mmap, missing="missing file"):
    """One ``.npy`` array (never a pickle); every failure becomes a FormatError naming the file.

    A missing file is "``missing``", one that cannot be read (permissions,
    I/O errors) "cannot read", and a damaged or foreign one "corrupt or
    truncated": the header and the file's size are checked (once, by
    :func:`_npy_layout`) before the data are mapped or read.
    """
    try:
        with open(path, "rb") as f:
            shape, fortran, dtype, offset = _npy_layout(f, path)
            order = "F" if fortran else "C"
            if mmap and shape and 0 not in shape:   # numpy cannot map no bytes
                arr = np.memmap(f, dtype=dtype, mode="r", offset=offset, shape=shape, order=order)
            else:
                arr = np.fromfile(f, dtype=dtype, count=math.prod(shape)).reshape(shape, order=order)
    except FileNotFoundError:
        raise FormatError(f"{path}: {missing}") from None
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    except FormatError:
        raise
    except Exception as exc:   # noqa: BLE001 - e.g. the file changed under us
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise FormatError(f"{path}: corrupt or truncated .npy file: {detail[:200]}") from None
    return arr


def read_array(path, dtype, shape=None, mmap=False):
    """Read one ``.npy`` array with ``allow_pickle=False`` and check its dtype and shape.

    Parameters
    ----------
    path : str
    dtype : numpy dtype
        Required dtype (exactly; no conversion).
    shape : tuple, optional
        Required shape; ``None`` entries match any length.
    mmap : bool, optional
        Memory-map read-only instead of reading.

    Raises
    ------
    FormatError
        Missing, truncated or corrupt file, or another dtype/shape; the
        message names the file.
    """
    arr = _load_npy(path, mmap)
    if arr.dtype != np.dtype(dtype):
        raise FormatError(f"{path}: array dtype {arr.dtype}, expected {np.dtype(dtype)}")
    if shape is not None and (arr.ndim != len(shape) or any(
            want is not None and got != want for got, want in zip(arr.shape, shape))):
        want = "(" + ", ".join("?" if w is None else str(w) for w in shape) + ")"
        raise FormatError(f"{path}: array shape {arr.shape}, expected {want}")
    return arr


def _check_words_native(kv, path):
    """Refuse, before anything is written, what ``vocab.tsv`` cannot hold or its reader refuses."""
    for i, word in enumerate(kv.index_to_key):
        if not word or "\t" in word or "\n" in word or "\r" in word:
            raise FormatError(
                f"{path}: cannot save word {word!r} (row {i}): vocab.tsv cannot hold empty words, "
                "tabs or newlines"
            )
    _check_utf8(kv.index_to_key, path)
    counts = kv.counts
    if counts is not None and counts.size and counts.min() < 0:
        row = int(np.argmin(counts))
        raise FormatError(f"{path}: cannot save count {int(counts[row])} of {kv.index_to_key[row]!r} "
                          f"(row {row}): word counts must be >= 0")


def _parse_counts(fields):
    """int64 array of counts written as ASCII digits; None if one is not (or overflows int64).

    Python's ``int()`` also takes ``" 3"``, ``"+3"``, ``"1_0"`` and non-ASCII
    digits; vocab.tsv holds only what :func:`save_native` writes.
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


def load_native(path, mmap=True, check_values=True):
    """Load a native-format model directory.

    Every file is checked: ``meta.json``, the ``.npy`` header against the
    file's size, the vectors' shape and dtype, that every value is finite
    (in bounded blocks when memory-mapped), and ``vocab.tsv`` (non-empty
    words; counts in ASCII digits).

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
        ``path`` does not exist.
    """
    """:func:`load_native`; ``check_values=False`` skips the NaN/infinity scan of the vectors
    (:func:`inspect`, and :func:`w2v.persist.load_model`, which checks the copy it reads)."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        raise FormatError(f"{path}: not a directory; a native model is a directory")
    meta_path = os.path.join(path, "meta.json")
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
    vec_path = os.path.join(path, "vectors.npy")
    vectors = _load_npy(vec_path, mmap, missing="missing file (not a complete w2v native model)")
    if vectors.shape != (count, dim):
        raise FormatError(f"{vec_path}: array shape {vectors.shape} does not match meta.json ({count}, {dim})")
    if not np.issubdtype(vectors.dtype, np.floating):
        raise FormatError(f"{vec_path}: array dtype {vectors.dtype} is not floating point")
    if vectors.dtype != np.float32 or not vectors.flags.c_contiguous:
        with np.errstate(over="ignore"):
            vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    vocab_path = os.path.join(path, "vocab.tsv")
    words, counts = _read_vocab(vocab_path, count)
    if check_values:
        check_finite(vectors, vec_path, words)
    kv = KeyedVectors._trusted(words, vectors, counts=counts if meta.get("has_counts", True) else None,
                               settings=settings, source=vocab_path)
    kv.source_format = "native"
    kv.source_path = path
    return kv


# --------------------------------------------------------------------------- dispatch
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
        ``path`` does not exist.
    ParameterError
        ``limit`` is not a positive integer, or ``unicode_errors`` is not
        the name of an error handler.
    """
    limit = _check_limit(limit)
    _check_unicode_errors(unicode_errors)
    path = os.fspath(path)
    if os.path.isdir(path):
        kv = load_native(path, mmap=mmap)
        if limit is not None and limit < len(kv):
            sub = KeyedVectors(
                kv.index_to_key[:limit], kv.vectors[:limit],
                counts=None if kv.counts is None else kv.counts[:limit], settings=kv.settings,
            )
            sub.source_format, sub.source_path = kv.source_format, kv.source_path
            kv = sub
        return kv
    return load_word2vec_format(path, binary=binary, limit=limit, unicode_errors=unicode_errors)


def inspect(path):
    """Describe a vector file or native model without loading all of it.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    dict
        ``format`` (``'native'``, ``'word2vec-binary'`` or
        ``'word2vec-text'``), ``count``, ``dim``, ``settings`` (dict, empty
        when unknown), ``compression`` (None, ``'gzip'``, ``'bz2'``,
        ``'xz'``), ``has_counts`` (word counts stored: native only) and
        ``path``.  For word2vec files ``count`` is the header's;
        an uncompressed one smaller than its header's count and dim need is
        reported as truncated (only :func:`load` checks every record).  A
        native model's files are checked as :func:`load_native` does, except
        that the values of the vectors are not scanned for NaN/infinity.

    Raises
    ------
    FormatError
        Not a readable vector file.
    FileNotFoundError
        ``path`` does not exist.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        kv = load_native(path, mmap=True, check_values=False)
        return {"format": "native", "count": len(kv), "dim": kv.vector_size, "settings": kv.settings,
                "compression": None, "path": path, "has_counts": kv.counts is not None}
    with _open_input(path) as fin:
        reader = _Reader(fin, path)
        reader.more()
        count, dim = _parse_header(reader, path)
        header_bytes = reader.offset()
        binary = False if count == 0 else not _looks_text(reader, dim)
    compression = _compression(path)
    if compression is None:
        least = _least_bytes(count, dim, binary)
        size = os.path.getsize(path)
        if size < header_bytes + least:
            raise FormatError(f"{path}: truncated file: the header declares {count:,} vectors of dim {dim}, "
                              f"which need at least {header_bytes + least:,} bytes; the file has {size:,}")
    return {"format": "word2vec-binary" if binary else "word2vec-text", "count": count, "dim": dim,
            "settings": {}, "compression": compression, "path": path, "has_counts": False}


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
