"""Where the commands write: files checked before any work, and the vectors of ``train`` and ``convert``.

Both commands choose the vectors' format by one rule,
:func:`w2v.formats.format_for_path`: ``.bin`` (or another compressed name, or
a device) is word2vec binary, ``.txt``/``.vec`` word2vec text, any other
name a native folder; ``--to`` (and ``train``'s ``--text``) overrides it.
"""
import dataclasses
import os

import click

from w2v.errors import OutputError
from w2v.formats import FORMATS, format_for_path, is_native_dir
from w2v.util.atomic import creation_error

__all__ = ["FORMAT_NAMES", "VectorsOutput", "check_can_create", "check_writable", "to_option"]

#: how the messages name each format
FORMAT_NAMES = {"bin": "binary", "text": "text", "native": "native folder"}


def to_option(help_text):
    """The ``--to bin|text|native`` option (parameter ``to``), with ``help_text``."""
    return click.option("--to", "to", type=click.Choice(list(FORMATS)), default=None, help=help_text)


def check_writable(path):
    """Fail before training, not after, if ``path`` cannot be written.

    The file is written as a temporary file in its folder, renamed over it
    (:func:`w2v.util.atomic.atomic_write`), so a temporary file is created there
    and removed: the permission bits do not bind root, and ``/proc`` takes
    no new file whatever they say.  A device or a pipe is written through,
    and only its permissions are checked.
    """
    path = os.path.abspath(path)
    parent = os.path.dirname(path)
    if os.path.isdir(path):
        raise OutputError(f"output path is a directory: {path}")
    if not os.path.isdir(parent):
        raise OutputError(f"output directory does not exist: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"output directory is not writable: {parent}")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise OutputError(f"output file is not writable: {path}")
    if os.path.exists(path) and not os.path.isfile(path):
        return
    check_can_create(parent, f"output directory is not writable: {parent}")


def check_can_create(directory, message):
    """Raise ``OutputError(message)``, with the reason, unless a file can be created in ``directory``."""
    reason = creation_error(directory)
    if reason is not None:
        raise OutputError(f"{message} (creating a file there failed: {reason})")


def check_native_folder(path, option):
    """Fail before training if vectors cannot be written as a native folder at ``path``.

    As :func:`w2v.vectors.keyed.save_native` will: an empty folder or a native
    model of vectors is replaced; a file, a link, another folder or a full
    model (``--save-model``'s, holding ``model.json``) is not.
    """
    target = os.path.abspath(path)
    if os.path.lexists(target):
        if not os.path.isdir(target) or os.path.islink(target):
            raise OutputError(f"{option} {path}: exists and is not a folder, and vectors named without .bin, .txt "
                              f"or .vec go to a native folder; --to bin or --to text writes a file")
        if os.listdir(target) and not is_native_dir(target):
            raise OutputError(f"{option} {path}: refusing to replace a folder that is not a w2v model")
        if os.path.lexists(os.path.join(target, "model.json")):
            raise OutputError(f"{option} {path}: refusing to replace a full model (it holds model.json) "
                              "with vectors only")
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise OutputError(f"output directory does not exist: {parent}")
    check_can_create(parent, f"output directory is not writable: {parent}")


@dataclasses.dataclass(frozen=True)
class VectorsOutput:
    """Vectors to write: a path and a format (``'bin'``, ``'text'`` or ``'native'``)."""

    path: str
    format: str

    @classmethod
    def named(cls, path, to=None, text=False):
        """The output ``path`` names (:func:`w2v.formats.format_for_path`), unless ``text``
        (``train --text``) or ``to`` chooses the format."""
        return cls(os.fspath(path), format_for_path(path, "text" if text else to))

    @property
    def format_name(self):
        """The format as the messages name it: binary, text or native folder."""
        return FORMAT_NAMES[self.format]

    def check(self, option="-o"):
        """Fail before any work if the vectors cannot be written (:func:`check_writable`,
        :func:`check_native_folder`)."""
        if self.format == "native":
            check_native_folder(self.path, option)
        else:
            check_writable(self.path)

    def write(self, kv):
        """Write the vectors ``kv`` (a :class:`w2v.KeyedVectors`), atomically."""
        from w2v.vectors.keyed import save   # start-up: loads scipy.linalg (+0.3 s)

        save(kv, self.path, format=self.format)
