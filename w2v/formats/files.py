"""Checked reading and writing of the files of a model directory.

Every file of a model directory is opened by :func:`open_model_file`: it must
be a regular file (a named pipe would block, ``/dev/zero`` never ends), and a
symbolic link may point only to a file in the same directory.  ``.npy``
arrays are read without pickle, their header checked against the file's size
before anything is mapped or allocated; small files (JSON headers,
vocabularies) are read whole, up to a bound (:data:`MAX_JSON_BYTES` for
JSON, what the header allows for a vocabulary), and JSON may nest at most
:data:`MAX_JSON_DEPTH` levels.  Every failure is a
:class:`~w2v.errors.FormatError` naming the file.
"""
import json
import math
import os
import re
import stat

import numpy as np

from ..errors import FormatError

__all__ = ["MAX_JSON_BYTES", "MAX_JSON_DEPTH", "check_array", "check_utf8", "decode_utf8", "encode_json",
           "json_default", "load_npy", "load_npy_at", "open_model_file", "parse_json", "read_array", "read_json",
           "read_model_file", "refuse_pickle", "write_array"]

#: the largest JSON header (``meta.json``, ``model.json``) read or written: settings and a list of
#: corpus paths take kilobytes
MAX_JSON_BYTES = 64 << 20
#: the deepest nesting of arrays and objects in a JSON header (the writers nest 3 levels; Python's
#: parser recurses once a level, and a thousand levels end in RecursionError)
MAX_JSON_DEPTH = 100

# a JSON string, escapes included (unrolled: no backtracking per character)
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def decode_utf8(raw, path):
    """``raw.decode('utf-8')``, with a message naming the file and line where it is not UTF-8.

    Parameters
    ----------
    raw : bytes
    path : str
        The file, for the message.

    Returns
    -------
    str

    Raises
    ------
    FormatError
        ``raw`` is not valid UTF-8.
    """
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise FormatError(f"{path}: line {line}: not valid UTF-8") from None


def check_utf8(words, path):
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
    """Write one array as ``.npy`` (C order, no pickle) and fsync it; for files of a model directory.

    Parameters
    ----------
    path : str
    array : array_like

    Raises
    ------
    OSError
        The file cannot be written.
    """
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(array), allow_pickle=False)
        f.flush()
        os.fsync(f.fileno())


def refuse_pickle(path, model=False):
    """Refuse a Python pickle, as gensim's ``save`` writes, with how to convert it (never unpickled).

    Parameters
    ----------
    path : str
    model : bool, optional
        A full model was asked for (``Word2Vec.load``): the message says how
        to carry its vectors over.

    Raises
    ------
    FormatError
        ``path`` begins as a pickle (protocol 2 to 5) does.
    """
    try:
        with open(path, "rb", opener=_nonblocking) as f:
            head = f.read(2) if stat.S_ISREG(os.fstat(f.fileno()).st_mode) else b""
    except OSError:
        return       # the reader reports it
    if len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        if model:
            raise FormatError(f"{path}: a Python pickle (as gensim's Word2Vec.save writes); w2v never unpickles. "
                              "Save its vectors from gensim with model.wv.save_word2vec_format(fname, binary=True) "
                              "and load that with w2v.load (its training state does not carry over)")
        raise FormatError(f"{path}: a Python pickle (as gensim's KeyedVectors.save writes); w2v never unpickles. "
                          "Save it from gensim with save_word2vec_format(fname, binary=True) and load that")


def _cannot_read(path, exc):
    """The FormatError for a file of a model that exists but cannot be read (permissions, I/O)."""
    return FormatError(f"{path}: cannot read: {exc.strerror or exc}")


def _nonblocking(path, flags):
    """``open``'s opener: a named pipe opens at once (then refused) instead of waiting for a writer."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def open_model_file(path):
    """Open a file of a model directory for reading bytes, after checking what it is.

    A symbolic link may point only to a file in the same directory (the
    directory itself may be a link): a model is one directory, which a save
    replaces whole, and a link out of it could make a reader read, or show
    in its messages, any file.  The file must be a regular file: a named
    pipe would block and a device (``/dev/zero``) never ends.

    Parameters
    ----------
    path : str

    Returns
    -------
    binary file object

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist (a dangling link included).
    FormatError
        A link out of the directory, or not a regular file.
    OSError
        It cannot be opened (permissions, I/O errors).
    """
    real = os.path.realpath(path)
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    if os.path.dirname(real) != folder:
        if not os.path.exists(real):
            raise FileNotFoundError(2, "No such file or directory", path)
        raise FormatError(f"{path}: a link to {real}, outside the model directory; refused (copy the "
                          "file into the directory)")
    f = open(path, "rb", opener=_nonblocking)
    try:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise FormatError(f"{path}: not a regular file; refused")
        real_st = os.stat(real)
        if (real_st.st_dev, real_st.st_ino) != (st.st_dev, st.st_ino):   # replaced since realpath
            raise FormatError(f"{path}: changed while it was opened; refused")
    except BaseException:
        f.close()
        raise
    return f


def read_model_file(path, missing, limit=MAX_JSON_BYTES):
    """The bytes of a small file of a model directory, opened by :func:`open_model_file`.

    Parameters
    ----------
    path : str
    missing : str
        What the message says of a missing file.
    limit : int, optional
        The most bytes the file may hold.

    Returns
    -------
    bytes

    Raises
    ------
    FormatError
        The file is missing ("``path``: ``missing``"), cannot be read, is not
        a regular file in the directory, or holds more than ``limit`` bytes
        (refused before it is read).
    """
    try:
        with open_model_file(path) as f:
            size = os.fstat(f.fileno()).st_size
            if size > limit:
                raise FormatError(f"{path}: {size:,} bytes, more than the {limit:,} it may hold")
            data = f.read(size)
            if len(data) != size or f.read(1):
                raise FormatError(f"{path}: changed while it was read")
    except FileNotFoundError:
        raise FormatError(f"{path}: {missing}") from None
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    return data


def _json_depth(raw):
    """How deep arrays and objects nest in the JSON text ``raw`` (bytes), without parsing it."""
    body = np.frombuffer(_JSON_STRING.sub(b'""', raw), dtype=np.uint8)
    step = (body == 0x5B).astype(np.int32) + (body == 0x7B) - (body == 0x5D) - (body == 0x7D)
    return int(np.cumsum(step).max()) if step.size else 0


def read_json(path, missing):
    """The JSON object of a header file of a model directory (``meta.json``, ``model.json``).

    Parameters
    ----------
    path : str
    missing : str
        What the message says of a missing file.

    Returns
    -------
    object
        What the file holds (the caller checks that it is an object).

    Raises
    ------
    FormatError
        As :func:`read_model_file` (at most :data:`MAX_JSON_BYTES`), or the
        file is not UTF-8 JSON, or it nests deeper than :data:`MAX_JSON_DEPTH`
        levels (checked before it is parsed).
    """
    return parse_json(read_model_file(path, missing), path)


def parse_json(raw, path):
    """The JSON object of the bytes ``raw`` of a header file, checked as :func:`read_json` checks it.

    Parameters
    ----------
    raw : bytes
    path : str
        The file (or archive member), for the message.

    Returns
    -------
    object

    Raises
    ------
    FormatError
        Not UTF-8 JSON, or nested deeper than :data:`MAX_JSON_DEPTH` levels.
    """
    depth = _json_depth(raw)
    if depth > MAX_JSON_DEPTH:
        raise FormatError(f"{path}: JSON nested {depth} levels deep, more than the {MAX_JSON_DEPTH} allowed")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FormatError(f"{path}: not valid JSON (truncated or corrupt): {exc}") from None


def encode_json(obj, path, what):
    """``obj`` as the bytes of a JSON header file, refused where :func:`read_json` would refuse it.

    Indented by one space, keys sorted, a newline at the end; NumPy scalars
    and arrays and paths are written as numbers, lists and strings
    (:func:`json_default`).

    Parameters
    ----------
    obj : object
    path : str
        The model being written, for the message.
    what : str
        What ``obj`` is, for the message (e.g. ``"settings"``).

    Returns
    -------
    bytes

    Raises
    ------
    FormatError
        ``obj`` is not JSON-serialisable, nests deeper than
        :data:`MAX_JSON_DEPTH` levels, or takes more than
        :data:`MAX_JSON_BYTES`.
    """
    try:
        text = json.dumps(obj, indent=1, sort_keys=True, default=json_default) + "\n"
    except (TypeError, ValueError, RecursionError) as exc:
        raise FormatError(f"{path}: {what} are not JSON-serialisable: {exc}") from None
    raw = text.encode("utf-8")
    if _json_depth(raw) > MAX_JSON_DEPTH:
        raise FormatError(f"{path}: {what} nest deeper than the {MAX_JSON_DEPTH} levels a reader accepts")
    if len(raw) > MAX_JSON_BYTES:
        raise FormatError(f"{path}: {what} take {len(raw):,} bytes as JSON, more than the "
                          f"{MAX_JSON_BYTES:,} a reader accepts")
    return raw


def _npy_layout(f, path, start=0, size=None):
    """``(shape, fortran_order, dtype, data_offset)`` from the header of the ``.npy`` array in the open file ``f``.

    The array takes ``size`` bytes from the offset ``start`` (by default the
    whole file); ``data_offset`` is where its data start in the file.  A
    header that does not parse (numpy raises ValueError, SyntaxError,
    tokenize.TokenError, OverflowError... for damaged ones), declares a
    negative or overflowing shape, an object dtype (pickle) or another data
    size than the array's bytes hold is a FormatError naming the file,
    before anything is mapped or allocated for it.
    """
    fmt = np.lib.format
    if size is None:
        size = os.fstat(f.fileno()).st_size - start
    f.seek(start)
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
    want = offset - start + math.prod(shape) * dtype.itemsize
    if size != want:
        what = "truncated" if size < want else "corrupt"
        raise FormatError(f"{path}: {what} .npy file: the header declares a {dtype} array of shape "
                          f"{shape}, {want:,} bytes in all; the file has {size:,}")
    return shape, fortran, dtype, offset


def load_npy(path, mmap, missing="missing file"):
    """One ``.npy`` array of any dtype but object (never a pickle).

    The header and the file's size are checked (once, by
    :func:`_npy_layout`) before the data are mapped or read.

    Parameters
    ----------
    path : str
    mmap : bool
        Memory-map read-only instead of reading.
    missing : str, optional
        What the message says of a missing file.

    Returns
    -------
    numpy.ndarray or numpy.memmap

    Raises
    ------
    FormatError
        Naming the file: missing ("``missing``"), unreadable (permissions,
        I/O errors: "cannot read") or damaged or foreign ("corrupt or
        truncated").
    """
    try:
        with open_model_file(path) as f:
            return load_npy_at(f, path, mmap)
    except FileNotFoundError:
        raise FormatError(f"{path}: {missing}") from None
    except OSError as exc:
        raise _cannot_read(path, exc) from None


def load_npy_at(f, path, mmap, start=0, size=None):
    """The ``.npy`` array that takes ``size`` bytes from ``start`` in the open file ``f`` (by default all of it).

    As :func:`load_npy`, for an array stored inside a larger file (a member
    of a single-file model, :mod:`w2v.formats.archive`).  Data that do not
    start at a multiple of the dtype's alignment are read rather than
    mapped (a mapped array would be unaligned).

    Parameters
    ----------
    f : binary file object
        Open for reading, seekable.
    path : str
        The file (or archive member), for the messages.
    mmap : bool
    start, size : int, optional

    Returns
    -------
    numpy.ndarray or numpy.memmap

    Raises
    ------
    FormatError
        Damaged or foreign (naming ``path``).
    OSError
        The file cannot be read.
    """
    try:
        shape, fortran, dtype, offset = _npy_layout(f, path, start, size)
        order = "F" if fortran else "C"
        # numpy cannot map no bytes; a mapped array must start aligned
        if mmap and shape and 0 not in shape and offset % dtype.alignment == 0:
            return np.memmap(f, dtype=dtype, mode="r", offset=offset, shape=shape, order=order)
        f.seek(offset)
        return np.fromfile(f, dtype=dtype, count=math.prod(shape)).reshape(shape, order=order)
    except (OSError, FormatError):
        raise
    except Exception as exc:   # noqa: BLE001 - e.g. the file changed under us
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise FormatError(f"{path}: corrupt or truncated .npy file: {detail[:200]}") from None


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
    return check_array(load_npy(path, mmap), path, dtype, shape)


def check_array(arr, path, dtype, shape=None):
    """``arr``, after checking that it has exactly ``dtype`` and the ``shape`` asked (None: any length).

    Raises
    ------
    FormatError
        Another dtype or shape; the message names ``path``.
    """
    if arr.dtype != np.dtype(dtype):
        raise FormatError(f"{path}: array dtype {arr.dtype}, expected {np.dtype(dtype)}")
    if shape is not None and (arr.ndim != len(shape) or any(
            want is not None and got != want for got, want in zip(arr.shape, shape))):
        want = "(" + ", ".join("?" if w is None else str(w) for w in shape) + ")"
        raise FormatError(f"{path}: array shape {arr.shape}, expected {want}")
    return arr
