"""The members of a saved model, read and written alike whether it is a folder or one file.

A native model (:mod:`w2v.formats.native`) and a full model
(:mod:`w2v.model.persist`) are a few named members -- ``meta.json``,
``vectors.npy``, ``vocab.tsv``, ``model.json`` and more ``.npy`` arrays --
kept either as the files of a directory (:class:`FolderMembers`,
:class:`FolderWriter`) or inside one file (:class:`~w2v.formats.archive.ArchiveMembers`,
:class:`~w2v.formats.archive.ArchiveWriter`).  The readers check every member
as :mod:`w2v.formats.files` checks a file, and name it in their messages
(``model/vectors.npy`` in a folder, ``model.w2v[vectors.npy]`` in one file).
"""
import os

from .files import (MAX_JSON_BYTES, check_array, load_npy, parse_json, read_model_file, write_array)
from .vocab_tsv import max_vocab_bytes, parse_vocab

__all__ = ["FolderMembers", "FolderWriter", "ModelMembers"]

#: what the messages say of a member a native model must hold
MISSING = "missing file (not a complete w2v native model)"


class ModelMembers:
    """The members of a saved model, for its readers; a context manager that closes what it opened.

    Subclasses provide :meth:`label`, :meth:`has`, :meth:`read_bytes` and
    :meth:`load_npy`; the checked readers of JSON headers, arrays and
    vocabularies are shared.

    Attributes
    ----------
    path : str
        The model (a directory or a file).
    """

    def __init__(self, path):
        self.path = os.fspath(path)

    def label(self, name):
        """How the messages name the member ``name``."""
        raise NotImplementedError

    def has(self, name):
        """Whether the member ``name`` is there (a folder's link or pipe counts: reading it is refused)."""
        raise NotImplementedError

    def read_bytes(self, name, missing, limit=MAX_JSON_BYTES):
        """The bytes of the small member ``name`` (at most ``limit``); ``missing``: what a message says
        of an absent one.  Raises FormatError naming the member."""
        raise NotImplementedError

    def load_npy(self, name, mmap, missing="missing file"):
        """The ``.npy`` array of the member ``name``, checked as :func:`w2v.formats.files.load_npy` checks
        a file (memory-mapped read-only when ``mmap``).  Raises FormatError naming the member."""
        raise NotImplementedError

    def read_json(self, name, missing):
        """The JSON of the header member ``name`` (see :func:`w2v.formats.files.read_json`)."""
        return parse_json(self.read_bytes(name, missing), self.label(name))

    def read_array(self, name, dtype, shape=None, mmap=False):
        """The array of the member ``name``, of exactly ``dtype`` and ``shape`` (see
        :func:`w2v.formats.files.read_array`)."""
        return check_array(self.load_npy(name, mmap), self.label(name), dtype, shape)

    def read_vocab(self, name, count):
        """The words and counts of the ``vocab.tsv`` member ``name`` of ``count`` lines (see
        :func:`w2v.formats.vocab_tsv.read_vocab`)."""
        raw = self.read_bytes(name, MISSING, limit=max_vocab_bytes(count))
        return parse_vocab(raw, self.label(name), count)

    def close(self):
        """Release what reading the members holds open."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class FolderMembers(ModelMembers):
    """The files of a model directory, each opened by :func:`w2v.formats.files.open_model_file`."""

    def label(self, name):
        return os.path.join(self.path, name)

    def has(self, name):
        return os.path.lexists(self.label(name))

    def read_bytes(self, name, missing, limit=MAX_JSON_BYTES):
        return read_model_file(self.label(name), missing, limit)

    def load_npy(self, name, mmap, missing="missing file"):
        return load_npy(self.label(name), mmap, missing)


class FolderWriter:
    """Writes the members of a model as files of the directory ``folder``, each fsynced.

    Parameters
    ----------
    folder : str
    """

    def __init__(self, folder):
        self.folder = folder

    def add_array(self, name, array):
        """Write ``array`` as the ``.npy`` member ``name`` (C order, no pickle)."""
        write_array(os.path.join(self.folder, name), array)

    def add_bytes(self, name, data):
        """Write the bytes ``data`` as the member ``name``."""
        with open(os.path.join(self.folder, name), "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
