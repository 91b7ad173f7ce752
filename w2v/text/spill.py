"""Anonymous temporary files of array blocks: where a vocabulary count spills (:mod:`w2v.text.counting`).

:class:`BlockFiles` appends *blocks* (a few arrays written one after the
other, tagged with an integer) to a set of temporary files and reads them
back.  The files are anonymous (``tempfile.TemporaryFile``: no name in the
folder), so they are gone when they are closed or the process ends, however
it ends (an exception, Ctrl-C, SIGTERM or SIGKILL), as the encoded corpus'
file is (:class:`w2v.text.encoded.IdStream`).  An ``OSError`` (a full disk, a
folder that cannot be written) becomes a :class:`~w2v.errors.CorpusError`
that names the folder.
"""
import os
import tempfile

import numpy as np

from ..errors import CorpusError


def open_temporary(folder):
    """A new anonymous temporary file in ``folder`` (binary, read and write)."""
    return tempfile.TemporaryFile(dir=folder)


class BlockFiles:
    """``n_files`` anonymous temporary files, each a sequence of tagged blocks of arrays.

    Parameters
    ----------
    n_files : int
    tmpdir : str, optional
        Their folder (default: ``tempfile.gettempdir()``, which ``TMPDIR``
        sets).  A file is made when its first block is written.
    what : str
        What the files hold, for error messages.
    """

    def __init__(self, n_files, tmpdir=None, what="the vocabulary counts"):
        self.tmpdir = tmpdir
        self.what = what
        self._files = [None] * n_files
        self._ends = [0] * n_files
        self._blocks = [[] for _ in range(n_files)]   # per file: (tag, offset, [(dtype, size), ...])
        self.bytes_written = 0

    @property
    def n_files(self):
        return len(self._files)

    def folder(self):
        """The folder of the files, absolute."""
        return os.path.abspath(self.tmpdir or tempfile.gettempdir())

    def error(self, exc):
        """The :class:`CorpusError` for ``exc`` (an ``OSError``), naming the folder."""
        return CorpusError(f"cannot spill {self.what} to a temporary file in {self.folder()}: "
                           f"{exc.strerror or exc}; free space there, point TMPDIR at a larger folder, "
                           "or raise the memory budget (--memory-budget)")

    def write(self, index, tag, arrays):
        """Append a block of ``arrays`` (contiguous NumPy arrays), tagged ``tag``, to file ``index``."""
        try:
            if self._files[index] is None:
                self._files[index] = open_temporary(self.tmpdir)
            fh = self._files[index]
            fh.seek(self._ends[index])
            shapes = []
            for a in arrays:
                a = np.ascontiguousarray(a)
                fh.write(memoryview(a).cast("B"))
                shapes.append((a.dtype, a.size))
            fh.flush()
        except OSError as exc:
            raise self.error(exc) from None
        size = sum(dtype.itemsize * n for dtype, n in shapes)
        self._blocks[index].append((tag, self._ends[index], shapes))
        self._ends[index] += size
        self.bytes_written += size

    def blocks(self, index):
        """The blocks of file ``index``: a list of ``(tag, sizes)``, ``sizes`` the arrays' lengths."""
        return [(tag, [n for _, n in shapes]) for tag, _, shapes in self._blocks[index]]

    def read(self, index, block):
        """The arrays of block number ``block`` of file ``index``."""
        _, offset, shapes = self._blocks[index][block]
        fh = self._files[index]
        out = []
        try:
            fh.seek(offset)
            for dtype, n in shapes:
                a = np.empty(n, dtype)
                got = fh.readinto(memoryview(a).cast("B"))
                if got != a.nbytes:
                    raise CorpusError(f"a temporary file of {self.what} in {self.folder()} is truncated "
                                      "(disk full?)")
                out.append(a)
        except OSError as exc:
            raise self.error(exc) from None
        return out

    def drop(self, index):
        """Close file ``index`` (its disk space is freed at once)."""
        fh = self._files[index]
        self._files[index] = None
        self._blocks[index] = []
        self._ends[index] = 0
        if fh is not None:
            try:
                fh.close()
            except OSError:   # a write that failed before: the error was raised then, the data is dropped
                pass

    def close(self):
        """Close every file."""
        for i in range(len(self._files)):
            self.drop(i)
