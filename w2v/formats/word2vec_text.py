"""Reading the lines of word2vec.c's text files (and fastText ``.vec`` files)."""
import logging
import re
import warnings

import numpy as np

from ..util.arrays import first_nonfinite_row, nonfinite_error
from ..errors import FormatError, WordDecodeError
from . import word2vec_stream as stream

logger = logging.getLogger(__name__)

__all__ = ["check_text_dim", "read_text_records", "text_sizes"]

_TEXT_VALUES_STR = re.compile(r"[0-9eE+\-. naifNAIFtyTY]*")
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)",
                    re.IGNORECASE)


def _add_word(word, key_to_index, words, path, where):
    if word in key_to_index:
        logger.warning("%s: %s: duplicate word %r, ignoring all but the first", path, where, word)
        return False
    key_to_index[word] = len(words)
    words.append(word)
    return True


def _parse_numbers(rests, dim, dtype=np.float32):
    """Array (len(rests), dim) of ``dtype`` from space-separated number strings; None if any is bad."""
    joined = " ".join(rests)
    if _TEXT_VALUES_STR.fullmatch(joined) is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with np.errstate(over="ignore", invalid="ignore"):
                    arr = np.fromstring(joined, dtype=dtype, sep=" ")
            if arr.size == len(rests) * dim:
                return arr.reshape(len(rests), dim)
        except (ValueError, Warning):
            pass
    values = [v for r in rests for v in r.split(" ")]
    if not all(_FLOAT.fullmatch(v) for v in values):
        return None   # float() also takes "1_0" (10.0), non-ASCII digits and padding; strtof does not
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            arr = np.array(values, dtype=dtype)
    except ValueError:
        return None
    return arr.reshape(len(rests), dim) if arr.size == len(rests) * dim else None


def _parse_text_block(lines, first_line_no, path, dim, decoding, words, key_to_index, dtype=np.float32):
    """Parse text lines into words and a block of ``dtype`` values (None if no new word).

    ``decoding`` is ``(encoding, unicode_errors)``.  The numbers are parsed
    as float32 for float32 and as float64 (then cast) for another
    ``dtype``, as gensim parses each number with its ``datatype``.
    """
    encoding, unicode_errors = decoding
    rests, line_of_row = [], []
    for k, raw in enumerate(lines):
        line_no = first_line_no + k
        try:
            text = raw.decode(encoding, errors=unicode_errors)
        except UnicodeDecodeError as exc:
            raise WordDecodeError.from_error(
                f"{path}: line {line_no}: not valid {stream.encoding_label(encoding)} "
                f"({exc.reason} at byte {exc.start}); "
                "pass unicode_errors='replace' (command line: --unicode-errors replace) to load it anyway", exc
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
    block = _parse_numbers(rests, dim, np.float32 if dtype == np.float32 else np.float64)
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
    block, bad = stream.narrowed(block, dtype)
    if bad >= 0:
        row = len(words) - len(rests) + bad
        raise stream.narrowing_error(row, words[row], path, f"line {line_of_row[bad]}", dtype)
    return block


def check_text_dim(dim, path):
    """Refuse a text file of more than :data:`~w2v.formats.word2vec_stream.MAX_TEXT_DIM` dimensions.

    Parameters
    ----------
    dim : int
    path : str
        The file, for the message.

    Raises
    ------
    FormatError
    """
    if dim > stream.MAX_TEXT_DIM:
        raise FormatError(f"{path}: line 1: a text file of dim {dim:,}, more than the {stream.MAX_TEXT_DIM:,} "
                          "the text format allows (a corrupt header?)")


def read_text_records(reader, path, count, dim, unicode_errors, encoding="utf-8", header_lines=1, dtype=np.float32):
    """Read ``count`` text lines (``word v1 ... vdim``) into words and a matrix.

    Parameters
    ----------
    reader : BlockReader
        After the header.
    path : str
        The file, for messages.
    count, dim : int
        Lines to read and values per line.
    unicode_errors : str
        How lines that are not UTF-8 are decoded.
    encoding : str, optional
        The lines' encoding (an ASCII-compatible codec name).
    header_lines : int, optional
        Lines before the first record (0 for a file without a header), for
        the line numbers of the messages.
    dtype : numpy.dtype, optional
        The matrix's type: float32, float16 or float64.

    Returns
    -------
    words, vectors, key_to_index
        As :func:`read_binary_records` returns them.

    Raises
    ------
    FormatError
        A dim over :data:`~w2v.formats.word2vec_stream.MAX_TEXT_DIM`, a
        missing, overlong or malformed line, a number that does not parse, or
        a vector holding NaN or infinity (or a value beyond the range of
        ``dtype``); the message gives the line number.
    """
    check_text_dim(dim, path)
    words, key_to_index = [], {}
    blocks = []
    max_line = max(1 << 20, 64 * (dim + 1) + stream.MAX_WORD)
    decoding = (encoding, unicode_errors)
    line_no = header_lines
    batch, batch_start = [], header_lines + 1
    while line_no - header_lines < count:
        line = reader.readline(max_line)
        line_no += 1
        if line is None:
            raise FormatError(f"{path}: line {line_no}: line longer than {max_line} bytes; corrupt file?")
        if not line:
            raise FormatError(
                f"{path}: line {line_no}: unexpected end of file; the header declares {count} vectors "
                f"but only {line_no - 1 - header_lines} lines follow (truncated file or wrong header?)"
            )
        batch.append(line)
        if len(batch) >= 4096:
            block = _parse_text_block(batch, batch_start, path, dim, decoding, words, key_to_index, dtype)
            if block is not None:
                blocks.append(block)
            batch, batch_start = [], line_no + 1
    if batch:
        block = _parse_text_block(batch, batch_start, path, dim, decoding, words, key_to_index, dtype)
        if block is not None:
            blocks.append(block)
    if blocks:
        vectors = blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
    else:
        vectors = np.empty((0, dim), dtype=dtype)
    return words, np.ascontiguousarray(vectors), key_to_index


def text_sizes(path, limit, decoding):
    """The number of vectors and their dim in a text file without a header line (gensim's ``no_header``).

    Counts the non-blank lines (at most ``limit``) and takes the dim from
    the first line's number of fields.

    Parameters
    ----------
    path : str
    limit : int or None
    decoding : tuple of (str, str)
        ``(encoding, unicode_errors)`` of the lines.

    Returns
    -------
    count, dim : int

    Raises
    ------
    FormatError
        The file holds no line, or its first line has no value after the word.
    """
    count = dim = 0
    with stream.open_input(path) as fin:
        reader = stream.BlockReader(fin, path)
        reader.more()
        max_line = 64 * (stream.MAX_TEXT_DIM + 1) + stream.MAX_WORD   # as read_text_records allows
        while limit is None or count < limit:
            line = reader.readline(max_line)
            if line is None:
                raise FormatError(f"{path}: line {count + 1}: line longer than {max_line} bytes; corrupt file?")
            if not line:
                break
            if not line.strip():
                continue
            if count == 0:
                try:
                    fields = line.decode(*decoding).rstrip().split(" ")
                except UnicodeDecodeError as exc:
                    raise WordDecodeError.from_error(f"{path}: line 1: not valid {stream.encoding_label(decoding[0])} "
                                                     f"({exc.reason} at byte {exc.start})", exc) from None
                dim = len(fields) - 1
                if dim < 1:
                    raise FormatError(f"{path}: line 1: expected a word and its values, found no value "
                                      "(the file has no header: no_header=True)")
            count += 1
    if count == 0:
        raise FormatError(f"{path}: empty file: no vector to read")
    return count, dim
