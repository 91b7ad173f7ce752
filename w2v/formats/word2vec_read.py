"""Reading the records of word2vec.c files: the header, binary records and text lines.

The readers work on blocks of bytes (:class:`BlockReader`), keep absolute
byte offsets for their messages, and put the vectors straight into one
float32 matrix.  :func:`w2v.formats.word2vec.read_word2vec` is their entry
point.
"""
import logging
import os
import re
import warnings

import numpy as np

from ..arrays import first_nonfinite_row, nonfinite_error
from ..errors import FormatError
from ..opener import DECODE_ERRORS, compression_of, open_binary

logger = logging.getLogger(__name__)

__all__ = ["MAX_WORD", "BlockReader", "check_nothing_follows", "compression", "least_bytes", "looks_text",
           "open_input", "parse_header", "read_binary_records", "read_text_records"]

_BLOCK = 1 << 23          # bytes read at a time from word2vec files
_MAX_HEADER = 4096        # longest acceptable header line
# Longest word (UTF-8 bytes) the word2vec readers accept and the writers write.  The corpus
# tokenizer cuts a run of non-space longer than 64 chunks of 256 Ki characters, so its longest
# token is 65 Mi characters' worth of bytes at most (4-byte characters; U+FFFD for invalid bytes
# takes 3): 128 MiB covers every token w2v emits, and bounds what a corrupt file makes a reader
# buffer before it gives up.
MAX_WORD = 1 << 27
_MAX_VECTOR_BYTES = 1 << 30   # one vector of more than 1 GiB (dim 268M) is a corrupt header

_TEXT_VALUES = re.compile(rb"^[0-9eE+\-. naifNAIFtyTY]+$")
_TEXT_VALUES_STR = re.compile(r"[0-9eE+\-. naifNAIFtyTY]*")
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)",
                    re.IGNORECASE)
_WORD_END = re.compile(rb"[ \n]")
_NEWLINES = re.compile(rb"\n*")


def compression(path):
    """The compression of an existing file (from its first bytes), or None."""
    try:
        return compression_of(path)
    except OSError:
        return None


def _open_read(path):
    return open_binary(path, buffering=-1)


def open_input(path):
    """:func:`_open_read`; a file that exists but cannot be read is a FormatError naming it."""
    try:
        return _open_read(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise FormatError(f"{path}: cannot read: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- reading
class BlockReader:
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
        except DECODE_ERRORS as exc:
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


def parse_header(reader, path):
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


def looks_text(reader, dim):
    """Decide text vs binary from the first record after the header, without consuming it.

    The record's word may be up to ``MAX_WORD`` bytes long: the reader
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
    searched, stop = lead, lead + MAX_WORD + 1
    while True:
        have = len(reader.buf) - reader.pos
        m = _WORD_END.search(reader.buf, reader.pos + searched, reader.pos + min(have, stop))
        if m is not None:
            end = m.start() - reader.pos
            break
        searched = min(have, stop)
        if searched >= stop or not reader.more():
            return False          # no space within MAX_WORD bytes: not text either way
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
        reader = BlockReader(fin, path)
        reader.more()
        parse_header(reader, path)
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


def least_bytes(count, dim, binary):
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
    by :func:`parse_header`).
    """
    if compression(path) is None:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = None
        if size is not None:
            fits = size // least_bytes(1, dim, True)
            if count and not fits:
                raise FormatError(f"{path}: byte offset {size}: unexpected end of file: the header declares "
                                  f"{count} vectors of dim {dim}, but the file cannot hold one "
                                  "(truncated file or wrong header?)")
            return min(count, fits + 1)
    return min(count, max(1, (64 << 20) // (4 * dim)))


def read_binary_records(reader, path, count, dim, unicode_errors):
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
                sp = find(b" ", pos, pos + MAX_WORD + 1)
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
        if sp == -1 and end - pos > MAX_WORD:
            raise FormatError(
                f"{path}: byte offset {reader.base + pos}: no space within {MAX_WORD} bytes "
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
    bad = first_nonfinite_row(vectors)
    if bad >= 0:
        raise nonfinite_error(bad, words[bad], path, _record_place(path, bad, dim))
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
                raise FormatError(
                    f"{path}: {_record_place(path, row, dim)}: word is not valid UTF-8 ({exc.reason} at byte {exc.start} of "
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
    bad = first_nonfinite_row(block)
    if bad >= 0:
        row = len(words) - len(rests) + bad
        raise nonfinite_error(row, words[row], path, f"line {line_of_row[bad]}")
    return block


def read_text_records(reader, path, count, dim, unicode_errors):
    words, key_to_index = [], {}
    blocks = []
    max_line = max(1 << 20, 64 * (dim + 1) + MAX_WORD)
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


def check_nothing_follows(reader, path, count):
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

