"""The inputs of a corpus: which files the paths name, how each is opened, and whether it is text.

:func:`resolve_inputs` expands files, folders and ``"-"`` into the list of
files to read, refusing what would silently train on another corpus than the
one named: a missing, unreadable or broken path, a file named twice, a folder
link that loops.  :class:`TextCheck` refuses an input that is not text (an
executable given by mistake) from its first :data:`TEXT_SAMPLE` characters.
"""
import codecs
import os
import re
import stat

from ..util import opener
from ..errors import CorpusError, ParameterError

__all__ = ["TEXT_SAMPLE", "MAX_NOT_TEXT_SHARE", "MIN_SHARE_SAMPLE", "TextCheck", "check_text_files", "input_size",
           "not_text_reason", "open_binary", "open_text", "resolve_inputs"]

#: characters at the start of each input that :class:`TextCheck` looks at
TEXT_SAMPLE = 1 << 16
#: largest share of undecodable or control characters in text (Latin-1 prose read as UTF-8: about 20%)
MAX_NOT_TEXT_SHARE = 0.3
#: fewer characters say nothing of a share (one Latin-1 word is half undecodable)
MIN_SHARE_SAMPLE = 256
# undecodable bytes (U+FFFD) and the control characters that are not whitespace
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\ufffd]")
_ALLOW = "pass --allow-binary (allow_binary=True) to read it anyway"


# --------------------------------------------------------------------------- paths
def resolve_inputs(paths):
    """Expand corpus arguments into a list of readable inputs.

    Parameters
    ----------
    paths : str or os.PathLike or sequence of them
        Files, directories or ``"-"`` for standard input.  A directory is
        walked recursively, files in sorted order, hidden files and folders
        skipped.  Links to files and folders inside it are followed.

    Returns
    -------
    list of str
        The files to read, in order (``"-"`` kept as is).

    Raises
    ------
    CorpusError
        A path does not exist or is unreadable; a directory holds an
        unreadable file or folder, a broken link, something that is neither
        a file nor a folder, or no file at all; one file is reached twice
        (named twice, named and inside a folder named, or through a link),
        or a folder link leads back to a folder already read (a loop).
        Skipping any of these would train on another corpus than the one
        named, without a word.
    """
    if paths is None:
        raise CorpusError("no corpus given")
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    try:
        paths = [os.fsdecode(p) for p in paths]
    except TypeError:
        raise ParameterError(f"a corpus is a path or a list of paths, not {paths!r}") from None
    if not paths:
        raise CorpusError("no corpus given")
    walk = _Walk()
    for p in paths:
        if p == "-":
            if "-" in walk.files:
                raise CorpusError("standard input (-) given more than once")
            walk.files.append(p)
        elif os.path.isdir(p):
            walk.folder(p)
        else:
            walk.top_file(p)
    return walk.files


class _Walk:
    """The files found so far, and the files and folders seen (by device and inode)."""

    def __init__(self):
        self.files = []
        self.seen_files = {}   # (st_dev, st_ino) -> the path it was first reached by
        self.seen_dirs = {}

    def top_file(self, p):
        if not os.path.exists(p):
            if os.path.islink(p):
                raise CorpusError(f"corpus path is a broken link: {p} -> {os.readlink(p)}")
            raise CorpusError(f"corpus path not found: {p}")
        try:
            st = os.stat(p)
        except OSError as exc:
            raise CorpusError(f"cannot read corpus {p}: {exc.strerror}") from None
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
            raise CorpusError(f"not a regular file: {p}")
        self.add_file(p, st)

    def add_file(self, path, st):
        if not os.access(path, os.R_OK):
            raise CorpusError(f"cannot read corpus {path}: permission denied")
        key = (st.st_dev, st.st_ino)
        if key in self.seen_files:
            raise CorpusError(f"corpus file {path} {_also(path, self.seen_files[key])}: it would be read "
                              "twice; name each file once")
        self.seen_files[key] = path
        self.files.append(path)

    def folder(self, top):
        """Add the files under ``top``, depth first in sorted order (as ``os.walk`` gives them)."""
        count = len(self.files)
        stack = [(top, ())]
        while stack:
            d, ancestors = stack.pop()
            key = self.enter(d, ancestors)
            subdirs = []
            for entry in self.entries(d):
                full = entry.path
                try:
                    st = os.stat(full)   # follows links
                except OSError as exc:
                    if os.path.islink(full) and not os.path.exists(full):
                        raise CorpusError(f"broken link in corpus folder: {full} -> {os.readlink(full)}") from None
                    raise CorpusError(f"cannot read corpus {full}: {exc.strerror}") from None
                if stat.S_ISDIR(st.st_mode):
                    subdirs.append((full, ancestors + (key,)))
                elif stat.S_ISREG(st.st_mode):
                    self.add_file(full, st)
                else:
                    raise CorpusError(f"corpus folder holds something that is not a file: {full}")
            stack.extend(reversed(subdirs))
        if len(self.files) == count:
            raise CorpusError(f"directory has no readable files: {top}")

    def enter(self, d, ancestors):
        try:
            st = os.stat(d)
        except OSError as exc:
            raise CorpusError(f"cannot read corpus folder {d}: {exc.strerror}") from None
        key = (st.st_dev, st.st_ino)
        if key in ancestors:
            raise CorpusError(f"corpus folder {d} is a link back to {self.seen_dirs[key]}: a loop")
        if key in self.seen_dirs:
            raise CorpusError(f"corpus folder {d} {_also(d, self.seen_dirs[key])}: its files would be read "
                              "twice; name each file once")
        self.seen_dirs[key] = d
        return key

    @staticmethod
    def entries(d):
        """The entries of ``d`` that are not hidden, sorted by name."""
        try:
            with os.scandir(d) as it:
                return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
        except OSError as exc:
            raise CorpusError(f"cannot read corpus folder {d}: {exc.strerror}") from None


def _also(path, other):
    return "is given twice" if path == other else f"is also given as {other}"


def input_size(files):
    """Total size in bytes of the (possibly compressed) inputs; None if unknown (stdin)."""
    total = 0
    for f in files:
        if f == "-":
            return None
        try:
            total += os.path.getsize(f)
        except OSError:
            return None
    return total


# --------------------------------------------------------------------------- opening
def open_binary(path):
    """Open a corpus file for reading bytes, decompressed as its first bytes say
    (:func:`w2v.util.opener.open_binary`); ``"-"`` is standard input."""
    try:
        return opener.open_binary(path)
    except OSError as exc:
        raise CorpusError(f"cannot open corpus {path}: {exc.strerror or exc}") from None


def open_text(path):
    """Open a corpus file as UTF-8 text, each undecodable byte sequence replaced by U+FFFD
    and counted (:func:`w2v.util.opener.open_text`, :func:`w2v.util.opener.replaced_sequences`)."""
    try:
        return opener.open_text(path)
    except OSError as exc:
        raise CorpusError(f"cannot open corpus {path}: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- is it text?
def not_text_reason(sample):
    """Why ``sample`` (the decoded start of an input) is not text, or ``None`` if it is.

    It is not text if it holds a NUL character (as git, grep and diff
    decide: executables, images, archives, UTF-16 text), or if more than
    :data:`MAX_NOT_TEXT_SHARE` of its characters are undecodable bytes
    (U+FFFD) or control characters other than whitespace (text in another
    8-bit encoding, random bytes), counted over :data:`MIN_SHARE_SAMPLE`
    characters or more.  UTF-8 text in any language passes, with a few bad
    bytes too; Latin-1 prose read as UTF-8 has about 20% of them.

    Parameters
    ----------
    sample : str
        Decoded as UTF-8 with each undecodable byte sequence as U+FFFD.

    Returns
    -------
    str or None
    """
    if "\x00" in sample:
        return "it holds NUL bytes (a binary file, or text in UTF-16?)"
    bad = len(_NOT_TEXT.findall(sample))
    if len(sample) >= MIN_SHARE_SAMPLE and bad > MAX_NOT_TEXT_SHARE * len(sample):
        return (f"{bad / len(sample):.0%} of its first {len(sample):,} characters are bytes that are not "
                "UTF-8 or control characters (a binary file, or text in another encoding?)")
    return None


class TextCheck:
    """Refuse an input that is not text (:func:`not_text_reason`) from its first :data:`TEXT_SAMPLE` characters.

    The reader feeds what it reads (:meth:`feed_text` or :meth:`feed_bytes`)
    and calls :meth:`end` at the end of the input; the check decides once it
    has seen :data:`TEXT_SAMPLE` characters or the whole input, the same way
    whatever the chunks and whichever reader.

    Parameters
    ----------
    path : str
        The input, for the message.
    allow_binary : bool
        Check nothing.
    """

    def __init__(self, path, allow_binary=False):
        self.path = path
        self.pending = not allow_binary
        self.parts = []
        self.size = 0
        self.decoder = None

    def feed_text(self, text):
        """The next characters of the input."""
        if self.pending:
            self.parts.append(text[:TEXT_SAMPLE - self.size])
            self.size += len(self.parts[-1])
            if self.size >= TEXT_SAMPLE:
                self.end()

    def feed_bytes(self, data):
        """The next bytes of the input (UTF-8; a character cut at the end is completed by the next call)."""
        if self.pending:
            if self.decoder is None:
                self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
            # a character is at most 4 bytes, and an undecodable byte 1 character
            self.feed_text(self.decoder.decode(data[:4 * (TEXT_SAMPLE - self.size) + 4]))

    def end(self):
        """Decide on what was fed.

        Raises
        ------
        CorpusError
            The input is not text.
        """
        if not self.pending:
            return
        self.pending = False
        if self.decoder is not None and self.size < TEXT_SAMPLE:
            self.parts.append(self.decoder.decode(b"", final=True))
        reason = not_text_reason("".join(self.parts)[:TEXT_SAMPLE])
        self.parts = []
        if reason is not None:
            raise CorpusError(f"corpus {self.path} does not look like text: {reason}; {_ALLOW}")

    def chunks(self, chunks):
        """Yield the text ``chunks`` of one input, checking them on the way."""
        for chunk in chunks:
            self.feed_text(chunk)
            yield chunk
        self.end()


def check_text_files(paths, allow_binary=False):
    """Refuse any file of the corpus ``paths`` that is not text, reading the start of each.

    For a corpus read elsewhere (Dask workers); the local scan checks each
    input as it reads it.  Standard input is not read here.

    Raises
    ------
    CorpusError
        An input that cannot be read, or is not text (:func:`not_text_reason`).
    """
    if allow_binary:
        return
    for path in resolve_inputs(paths):
        if path == "-" or stat.S_ISFIFO(os.stat(path).st_mode):   # a pipe can be read only once
            continue
        check = TextCheck(path)
        with open_binary(path) as fh:
            try:
                check.feed_bytes(fh.read(4 * TEXT_SAMPLE + 4))
            except opener.DECODE_ERRORS as exc:
                raise CorpusError(f"cannot read corpus {path}: {exc}") from None
        check.end()
