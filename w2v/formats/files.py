"""Checked reading and writing of the files of a model directory.

``.npy`` arrays are read without pickle, their header checked against the
file's size before anything is mapped or allocated; small files (JSON,
vocabularies) are read whole.  Every failure is a
:class:`~w2v.errors.FormatError` naming the file.
"""
import math
import os

import numpy as np

from ..errors import FormatError

__all__ = ["check_utf8", "decode_utf8", "json_default", "load_npy", "read_array", "read_model_file", "write_array"]


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


def _cannot_read(path, exc):
    """The FormatError for a file of a model that exists but cannot be read (permissions, I/O)."""
    return FormatError(f"{path}: cannot read: {exc.strerror or exc}")


def read_model_file(path, missing):
    """The bytes of a small file of a model directory.

    Parameters
    ----------
    path : str
    missing : str
        What the message says of a missing file.

    Returns
    -------
    bytes

    Raises
    ------
    FormatError
        The file is missing ("``path``: ``missing``") or cannot be read.
    """
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
    arr = load_npy(path, mmap)
    if arr.dtype != np.dtype(dtype):
        raise FormatError(f"{path}: array dtype {arr.dtype}, expected {np.dtype(dtype)}")
    if shape is not None and (arr.ndim != len(shape) or any(
            want is not None and got != want for got, want in zip(arr.shape, shape))):
        want = "(" + ", ".join("?" if w is None else str(w) for w in shape) + ")"
        raise FormatError(f"{path}: array shape {arr.shape}, expected {want}")
    return arr
