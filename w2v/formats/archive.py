"""A model in one file: the native folder's members in an uncompressed zip archive, aligned for mapping.

The single-file form holds exactly the files the folder form holds
(``vectors.npy``, ``vocab.tsv``, what a full model adds, ``meta.json`` last),
with the same bytes, as the members of a zip archive (PKWARE's APPNOTE):

* every member is *stored*, not compressed, and not encrypted;
* the data of every member start at a multiple of :data:`ALIGNMENT` (64)
  bytes from the start of the file.  numpy pads an ``.npy`` header to 64
  bytes, so each array starts aligned too and is memory-mapped where it lies
  (``np.memmap(path, offset=...)``), as the folder's ``.npy`` files are;
* the padding is an extra field of the member's local header with id
  ``0xD935`` (the one Android's ``zipalign`` writes: the alignment as a
  little-endian uint16, then zero bytes);
* members over 4 GiB use the zip64 extension; every timestamp is
  1980-01-01 00:00, so that a save of the same model writes the same bytes.

``unzip model.w2v -d model`` gives the folder form, and ``np.load("model.w2v")``
opens the arrays as an ``.npz``.  An archive made by other tools loads too, if
its members are stored uncompressed (``zip -0 -j model.w2v model/*``); a member
whose data are not aligned is then read into memory instead of mapped.

The reader (:class:`ArchiveMembers`) checks the archive before any member is
read: a zip directory that parses, members of plain names (no folders), each
once, stored, not encrypted, whose local header agrees with the directory and
whose data lie inside the file without overlapping another's.  The members
themselves are checked as the folder's files are (:mod:`w2v.formats.members`).
CRC-32 checksums are written but not verified on loading (that would read every
byte of a file that is meant to be mapped); ``unzip -t`` verifies them.
"""
import io
import os
import stat
import struct
import zipfile

import numpy as np

from ..errors import FormatError
from .files import MAX_JSON_BYTES, load_npy_at
from .members import ModelMembers

__all__ = ["ALIGNMENT", "ArchiveMembers", "ArchiveWriter", "is_archive"]

#: the data of every member start at a multiple of this many bytes
ALIGNMENT = 64
#: the first bytes of a zip archive (a local file header)
MAGIC = b"PK\x03\x04"
#: the extra field that pads a local header (zipalign's)
_PAD_ID = 0xD935
_DATE = (1980, 1, 1, 0, 0, 0)
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")   # signature ... file name length, extra field length
_ZIP64_LOCAL_EXTRA = 20                      # what zipfile adds to a zip64 member's local header
_CHUNK = 16 << 20                            # bytes of an array written at once


def is_archive(path):
    """Whether ``path`` is a regular file that begins as a zip archive does.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    bool
        False for anything unreadable, and for what is not a regular file.
    """
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def _padding(unaligned):
    """The extra field that moves data ``unaligned`` bytes past an aligned offset to the next one."""
    pad = -unaligned % ALIGNMENT
    if pad == 0:
        return b""
    while pad < 6:       # id, length and the alignment take 6 bytes
        pad += ALIGNMENT
    return struct.pack("<HHH", _PAD_ID, pad - 4, ALIGNMENT) + bytes(pad - 6)


def _npy_header(array):
    """The ``.npy`` header (format 1.0, as ``np.save`` writes it) of the C-contiguous ``array``."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, np.lib.format.header_data_from_array_1_0(array))
    return out.getvalue()


class ArchiveWriter:
    """Writes the members of a model into ``fh`` as an aligned, uncompressed zip archive.

    A context manager: the zip directory is written when it exits without
    an error.

    Parameters
    ----------
    fh : binary file object
        Empty, open for writing and seekable (a temporary file that is then
        renamed into place: :func:`w2v.util.atomic.atomic_write`).
    """

    def __init__(self, fh):
        self._fh = fh
        self._zip = zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True)

    def add_bytes(self, name, data):
        """Store the bytes ``data`` as the member ``name``."""
        with self._open(name, len(data)) as out:
            out.write(data)

    def add_array(self, name, array):
        """Store ``array`` as the ``.npy`` member ``name`` (C order, no pickle), the bytes ``np.save`` writes."""
        array = np.ascontiguousarray(array)
        if array.dtype.hasobject:
            raise ValueError(f"{name}: an array of Python objects (it would need pickle)")
        header = _npy_header(array)
        data = memoryview(array.reshape(-1)).cast("B") if array.size else memoryview(b"")
        with self._open(name, len(header) + len(data)) as out:
            out.write(header)
            for at in range(0, len(data), _CHUNK):
                out.write(data[at:at + _CHUNK])

    def _open(self, name, size):
        """The write handle of a new member of ``size`` bytes whose data start aligned."""
        info = zipfile.ZipInfo(name, date_time=_DATE)
        info.compress_type = zipfile.ZIP_STORED
        info.file_size = size
        info.external_attr = 0o644 << 16   # -rw-r--r-- where it is unzipped
        zip64 = size * 1.05 > zipfile.ZIP64_LIMIT   # zipfile's own rule for a member of known size
        header = self._fh.tell() + _LOCAL_HEADER.size + len(name.encode("utf-8"))
        info.extra = _padding(header + (_ZIP64_LOCAL_EXTRA if zip64 else 0))
        out = self._zip.open(info, "w", force_zip64=zip64)
        start = info.header_offset + _LOCAL_HEADER.size + len(name.encode("utf-8")) + len(info.extra) + \
            (_ZIP64_LOCAL_EXTRA if zip64 else 0)
        if start % ALIGNMENT or start != self._fh.tell():   # zipfile wrote a header of another length
            out.close()
            raise RuntimeError(f"{name}: the member's data would start at {self._fh.tell()}, not at the "
                               f"aligned offset {start}")
        return out

    def close(self):
        """Write the zip directory."""
        self._zip.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            self.close()
            return False
        try:   # zipfile's state is released (the directory goes into the file the failed save discards)
            self._zip.close()
        except (OSError, ValueError):   # the error being raised already says what went wrong
            pass
        return False


def _open_regular(path):
    """``path`` opened for reading bytes, if it is a regular file (a pipe is refused, not waited on)."""
    f = open(path, "rb", opener=lambda p, flags: os.open(p, flags | getattr(os, "O_NONBLOCK", 0)))
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        raise FormatError(f"{path}: not a regular file; refused")
    return f


def _plain_name(name):
    """Whether ``name`` names a file at the archive's top level."""
    return bool(name) and "/" not in name and "\\" not in name and name not in (".", "..") and "\0" not in name


class ArchiveMembers(ModelMembers):
    """The members of a model saved as one file, checked before any is read (see the module docstring).

    Parameters
    ----------
    path : str or os.PathLike

    Raises
    ------
    FormatError
        Not a regular file, not a zip archive, or one whose directory or
        members break the rules of the module docstring; the message names
        the file (and the member).
    OSError
        The file cannot be opened.
    """

    def __init__(self, path):
        super().__init__(path)
        self._file = _open_regular(self.path)
        try:
            self._members = self._directory()
        except OSError as exc:
            self._file.close()
            raise FormatError(f"{self.path}: cannot read: {exc.strerror or exc}") from None
        except BaseException:
            self._file.close()
            raise

    def _directory(self):
        """``{name: (data offset, size)}`` of every member, checked."""
        size = os.fstat(self._file.fileno()).st_size
        try:
            with zipfile.ZipFile(self._file) as archive:   # leaves the file open: it was passed in
                infos = archive.infolist()
        except OSError:
            raise
        except Exception as exc:   # noqa: BLE001 - zipfile raises BadZipFile, struct.error, ValueError...
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise FormatError(f"{self.path}: not a readable zip archive (truncated or corrupt): {detail[:200]}") \
                from None
        members = {}
        for info in infos:
            name = info.filename
            if not _plain_name(name):
                raise FormatError(f"{self.path}: member {name[:80]!r}: a w2v model holds plain files, no folders")
            if name in members:
                raise FormatError(f"{self.label(name)}: the archive holds this member twice")
            if info.flag_bits & 0x1:
                raise FormatError(f"{self.label(name)}: encrypted; refused")
            if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
                raise FormatError(f"{self.label(name)}: compressed; the members of a single-file model are stored "
                                  "uncompressed, to be mapped in place (zip -0)")
            members[name] = (self._data_start(info, size), info.file_size)
        spans = sorted(members.values())
        for (a, n), (b, _) in zip(spans, spans[1:]):
            if a + n > b:
                raise FormatError(f"{self.path}: corrupt zip archive: the data of two members overlap")
        return members

    def _data_start(self, info, size):
        """Where the data of the member ``info`` start, from its local header (checked against the directory)."""
        label = self.label(info.filename)
        self._file.seek(info.header_offset)
        head = self._file.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size or head[:4] != MAGIC:
            raise FormatError(f"{label}: corrupt zip archive: no local header at byte offset {info.header_offset}")
        fields = _LOCAL_HEADER.unpack(head)
        flags, method, name_length, extra_length = fields[2], fields[3], fields[9], fields[10]
        raw_name = self._file.read(name_length)
        try:
            name = raw_name.decode("utf-8" if flags & 0x800 else "cp437")
        except UnicodeDecodeError:
            name = None
        if name != info.orig_filename or method != info.compress_type:
            raise FormatError(f"{label}: corrupt zip archive: the local header disagrees with the directory")
        start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
        if start + info.file_size > size:
            raise FormatError(f"{label}: truncated: the member's {info.file_size:,} bytes from byte offset "
                              f"{start:,} lie past the end of the file ({size:,} bytes)")
        return start

    def label(self, name):
        return f"{self.path}[{name}]"

    def has(self, name):
        return name in self._members

    def read_bytes(self, name, missing, limit=MAX_JSON_BYTES):
        label = self.label(name)
        if name not in self._members:
            raise FormatError(f"{label}: {missing}")
        start, size = self._members[name]
        if size > limit:
            raise FormatError(f"{label}: {size:,} bytes, more than the {limit:,} it may hold")
        try:
            self._file.seek(start)
            data = self._file.read(size)
        except OSError as exc:
            raise FormatError(f"{label}: cannot read: {exc.strerror or exc}") from None
        if len(data) != size:
            raise FormatError(f"{label}: changed while it was read")
        return data

    def load_npy(self, name, mmap, missing="missing file"):
        label = self.label(name)
        if name not in self._members:
            raise FormatError(f"{label}: {missing}")
        start, size = self._members[name]
        try:
            return load_npy_at(self._file, label, mmap, start, size)
        except OSError as exc:
            raise FormatError(f"{label}: cannot read: {exc.strerror or exc}") from None

    def close(self):
        self._file.close()
