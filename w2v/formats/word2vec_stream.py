"""The stream under word2vec.c's files: a block reader, the header, and text-or-binary detection.

:class:`BlockReader` reads blocks of bytes and keeps absolute byte offsets
for the messages of the record readers (:mod:`w2v.formats.word2vec_binary`,
:mod:`w2v.formats.word2vec_text`); :data:`MAX_WORD` bounds a word, and
:data:`MAX_TEXT_DIM` the dimension of a text file, for the readers and the
writers alike.
"""
import codecs
import re

import numpy as np

from ..errors import FormatError
from ..util.arrays import first_nonfinite_row
from ..util.opener import DECODE_ERRORS, compression_of, open_binary

__all__ = ["MAX_TEXT_DIM", "MAX_WORD", "BlockReader", "check_nothing_follows", "compression", "encoding_label",
           "least_bytes", "looks_text", "narrowed", "narrowing_error", "open_input", "parse_header"]

_BLOCK = 1 << 23          # bytes read at a time from word2vec files
_MAX_HEADER = 4096        # longest acceptable header line
# Longest word (UTF-8 bytes) the word2vec readers accept and the writers write.  The corpus
# tokenizer cuts a run of non-space longer than 64 chunks of 256 Ki characters, so its longest
# token is 65 Mi characters' worth of bytes at most (4-byte characters; U+FFFD for invalid bytes
# takes 3): 128 MiB covers every token w2v emits, and bounds what a corrupt file makes a reader
# buffer before it gives up.
MAX_WORD = 1 << 27
_MAX_VECTOR_BYTES = 1 << 30   # one vector of more than 1 GiB (dim 268M) is a corrupt header
# The largest dimension of a text file: its lines are read whole, so the dim bounds what a corrupt header
# makes the reader buffer (64 bytes a value: 64 MiB a line). Published text vectors have a few thousand.
MAX_TEXT_DIM = 1 << 20   # a 306 KB .txt.gz declaring dim 268,435,455 took 2.2 GB before its error

_TEXT_VALUES = re.compile(rb"^[0-9eE+\-. naifNAIFtyTY]+$")
_WORD_END = re.compile(rb"[ \n]")
_NEWLINES = re.compile(rb"\n*")


def narrowed(vectors, dtype):
    """``vectors`` cast to ``dtype``, and the first row that the cast made infinite (-1: none).

    A value beyond the range of a narrower type (float16's is +-65504)
    becomes infinite there; the readers refuse it as they refuse infinity
    in the file.
    """
    if vectors.dtype == dtype:
        return vectors, -1
    with np.errstate(over="ignore"):
        out = np.ascontiguousarray(vectors, dtype=dtype)
    if out.dtype.itemsize >= vectors.dtype.itemsize:
        return out, -1
    return out, first_nonfinite_row(out)


def narrowing_error(row, word, path, where, dtype):
    """The FormatError for a row with a value beyond the range of ``dtype`` (see :func:`narrowed`)."""
    return FormatError(f"{path}: {where}: row {row} (word {word!r}) has a value beyond the range of "
                       f"{np.dtype(dtype).name} (datatype={np.dtype(dtype).name})")


def encoding_label(encoding):
    """How messages name the encoding ``encoding``: ``UTF-8`` for any of its aliases, else as given."""
    return "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding


def compression(path):
    """The compression of an existing file, from its first bytes (see :func:`w2v.util.opener.compression_of`).

    Returns
    -------
    str or None
        ``"gzip"``, ``"bz2"``, ``"xz"``, ``"lzma"``, or None for a plain file
        or one that cannot be opened.
    """
    try:
        return compression_of(path)
    except OSError:
        return None


def _open_read(path):
    return open_binary(path, buffering=-1)


def open_input(path):
    """Open a word2vec file for reading bytes, decompressing as its first bytes say.

    Parameters
    ----------
    path : str

    Returns
    -------
    binary file object

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    FormatError
        It exists but cannot be read (permissions, a directory, I/O errors).
    """
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

    def _read_block(self):
        """The next block of the stream (``b""`` at its end)."""
        try:
            return self.fin.read(_BLOCK)
        except DECODE_ERRORS as exc:
            raise FormatError(f"{self.path}: cannot decompress/read data after byte offset "
                              f"{self.base + len(self.buf)}: {exc}") from None

    def more(self):
        """Read another block, keeping the unread part; False at end of file."""
        if self.eof:
            return False
        chunk = self._read_block()
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
        nl = self.buf.find(b"\n", self.pos)
        if nl != -1:
            if nl - self.pos > maxlen:
                return None
            line = self.buf[self.pos:nl + 1]
            self.pos = nl + 1
            return line
        return self._long_line(maxlen)

    def _long_line(self, maxlen):
        """:meth:`readline` for a line that goes on past the buffer: its blocks are gathered and
        joined once (growing the buffer block by block copied it whole each time)."""
        pieces = [self.buf[self.pos:]]
        size = len(pieces[0])
        self.base += len(self.buf)
        self.buf, self.pos = b"", 0
        while size <= maxlen:
            chunk = b"" if self.eof else self._read_block()
            if not chunk:
                self.eof = True
                return b"".join(pieces)
            nl = chunk.find(b"\n")
            if nl != -1:
                self.buf, self.pos = chunk, nl + 1
                if size + nl > maxlen:
                    return None
                pieces.append(chunk[:nl + 1])
                return b"".join(pieces)
            pieces.append(chunk)
            size += len(chunk)
            self.base += len(chunk)
        return None


def parse_header(reader, path):
    """Read the header line ``"<count> <dim>"`` (ASCII digits) of a word2vec file.

    Parameters
    ----------
    reader : BlockReader
        At the start of the file; left after the header line.
    path : str
        The file, for messages.

    Returns
    -------
    count, dim : int

    Raises
    ------
    FormatError
        An empty file, a header that is too long or not two numbers, or an
        implausible dim (vectors of more than 1 GiB each).
    """
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


def _count_fields(values):
    """``len(values.split(b" "))`` less the empty fields, without a list of (up to 2 Mi) fields."""
    filled = np.frombuffer(values, dtype=np.uint8) != 0x20
    return int(filled[0]) + int(np.count_nonzero(filled[1:] & ~filled[:-1])) if filled.size else 0


def _strip_end(line):
    """``line`` without its trailing whitespace, as the text reader strips a line before splitting it.

    :meth:`str.rstrip` of the UTF-8 line: ASCII whitespace (space, tab, CR,
    VT, FF: what gensim strips from the bytes) and Unicode whitespace
    (NO-BREAK SPACE, IDEOGRAPHIC SPACE, ...: gensim's number parsing passes
    over it).  A line that is not UTF-8 loses its ASCII whitespace.
    """
    try:
        return line.decode("utf-8").rstrip().encode("utf-8")
    except UnicodeDecodeError:
        return line.rstrip()


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
    values = _strip_end(rest if nl == -1 else rest[:nl])
    region = rest[:4 * dim]
    if values and _TEXT_VALUES.match(values) is not None:
        if _count_fields(values) == dim:
            return True
        return _printable(region)  # a text line with the wrong number of values
    # not plain numbers: text only if the vector's worth of bytes is text (e.g. "1,5" decimals)
    return len(region) == 4 * dim and _printable(region)


def least_bytes(count, dim, binary):
    """The fewest bytes ``count`` records of ``dim`` numbers take after the header.

    A binary record is at least a one-byte word, a space and ``4 * dim``
    bytes; a text line at least a one-byte word and ``dim`` one-digit
    numbers, each after a space, and lines are separated by newlines.
    """
    if binary:
        return count * (4 * dim + 2)
    return count * (2 * dim + 1) + max(0, count - 1)


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


