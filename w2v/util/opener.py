"""The one place that decides how a path is opened.

Reading: a file's compression is recognised from its first bytes (gzip,
bzip2, xz), not from its name, so ``corpus.GZ``, ``vectors.bin.gz`` and a
gzip file named ``corpus.txt`` are all decompressed, and a plain file named
``x.gz`` is read as it is.  LZMA-alone files (``.lzma``) have no magic bytes;
they are recognised by that suffix, in any case.  Standard input (``"-"``) is
sniffed the same way.

Writing: the compression of a new file follows its suffix (``.gz``, ``.bz2``,
``.xz``, ``.lzma``, in any case), as gzip and word2vec tools expect.

The functions raise ``OSError`` (and ``EOFError``, ``zlib.error``,
``lzma.LZMAError`` while reading corrupt data, see :data:`DECODE_ERRORS`);
their callers turn these into their own typed errors (a corpus into
:class:`w2v.errors.CorpusError`, a vectors file into
:class:`w2v.errors.FormatError`).
"""
import bz2
import codecs
import gzip
import io
import lzma
import os
import stat
import sys
import threading
import zlib

__all__ = ["DECODE_ERRORS", "SUFFIXES", "compression_of", "compression_for_suffix", "open_binary",
           "open_text", "open_compressed_writer", "replaced_sequences", "strip_compression_suffix"]

#: errors a decompressing reader raises on a corrupt or truncated file
DECODE_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError)

#: compression of a file to write, by suffix (lowercased)
SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".lzma": "xz"}

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))
_SNIFF_BYTES = 6


def _sniff(head, path):
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if os.fspath(path).lower().endswith(".lzma"):
        return "lzma"
    return None


def compression_of(path):
    """The compression of an existing file, from its first bytes: ``"gzip"``, ``"bz2"``,
    ``"xz"``, ``"lzma"`` (LZMA-alone, by its suffix) or ``None`` (plain).

    Raises
    ------
    OSError
        The file cannot be opened.
    """
    with open(path, "rb") as f:
        head = f.read(_SNIFF_BYTES)
    return _sniff(head, path)


def compression_for_suffix(path):
    """The compression a new file named ``path`` is written with (by suffix), or ``None``."""
    name = os.fspath(path).lower()
    for suffix, kind in SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    return None


def strip_compression_suffix(path):
    """``path`` without a compression suffix (``vectors.bin.gz`` -> ``vectors.bin``)."""
    path = os.fspath(path)
    for suffix in SUFFIXES:
        if path.lower().endswith(suffix):
            return path[: -len(suffix)]
    return path


def _decompressing(source, kind):
    """A reader of ``source`` (a path or a binary file) that decompresses ``kind``."""
    if kind == "gzip":
        return gzip.open(source, "rb")
    if kind == "bz2":
        return bz2.open(source, "rb")
    if kind in ("xz", "lzma"):
        return lzma.open(source, "rb")   # FORMAT_AUTO: xz or LZMA-alone
    raise ValueError(kind)


def open_binary(path, buffering=1 << 20):
    """Open ``path`` for reading bytes, decompressing as its first bytes say.

    ``"-"`` is standard input, sniffed too (closing a decompressing reader
    of it leaves ``sys.stdin`` open).

    Raises
    ------
    OSError
        The file cannot be opened (missing, a directory, no permission).
    """
    if path == "-":
        return _sniffed(sys.stdin.buffer, "-", owned=False)
    if not stat.S_ISREG(os.stat(path).st_mode):   # a pipe (<(xzcat ...)) can be read only once
        return _sniffed(open(path, "rb", buffering=buffering), path, owned=True)
    kind = compression_of(path)
    if kind is None:
        return open(path, "rb", buffering=buffering)
    return _decompressing(path, kind)


def _sniffed(raw, path, owned):
    """``raw`` (a buffered reader that cannot be reopened) itself, or a decompressing reader of it;
    closing that reader closes ``raw`` when ``owned``."""
    if not hasattr(raw, "peek"):   # a stand-in for stdin (io.BytesIO): read as it is
        return raw
    try:
        kind = _sniff(raw.peek(_SNIFF_BYTES)[:_SNIFF_BYTES], path)
    except BaseException:
        if owned:
            raw.close()
        raise
    if kind is None:
        return raw
    reader = _decompressing(raw, kind)
    if owned:
        close = reader.close

        def close_both():
            try:
                close()
            finally:
                raw.close()

        reader.close = close_both
    return reader


_decode_errors = threading.local()


def _replace_and_count(exc):
    """Decoding's ``errors="replace"`` (U+FFFD for each invalid sequence), counting them per thread."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _decode_errors.count = getattr(_decode_errors, "count", 0) + 1
    return "\ufffd", exc.end


codecs.register_error("w2v.replace", _replace_and_count)


def replaced_sequences():
    """How many undecodable byte sequences ``w2v.replace`` decoders have replaced in this thread."""
    return getattr(_decode_errors, "count", 0)


def open_text(path):
    """Open ``path`` as UTF-8 text (:func:`open_binary`), undecodable bytes replaced.

    Line endings are not translated (``\\r`` is whitespace).  Each invalid
    byte sequence becomes U+FFFD, as with ``errors="replace"``, and is
    counted (:func:`replaced_sequences`); decoders made elsewhere with
    ``errors="w2v.replace"`` count the same way.
    """
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="w2v.replace", newline="")


def open_compressed_writer(raw, kind):
    """Wrap the binary file ``raw`` so that what is written is compressed as ``kind``
    (:func:`compression_for_suffix`); ``None`` returns ``raw``.  Close the wrapper before ``raw``."""
    if kind == "gzip":
        return gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
    if kind == "bz2":
        return bz2.BZ2File(raw, "wb")
    if kind == "xz":
        return lzma.LZMAFile(raw, "wb", format=lzma.FORMAT_XZ)
    if kind == "lzma":
        return lzma.LZMAFile(raw, "wb", format=lzma.FORMAT_ALONE)
    return raw
