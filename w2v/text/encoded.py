"""The encoded corpus: the int32 id stream every epoch trains from.

:func:`w2v.text.scanning.scan_corpus` records the corpus once as provisional ids in
an :class:`IdStream` (in memory up to a budget, then in an anonymous
temporary file).  Once the vocabulary is known, :func:`encode_corpus` remaps
that stream to final vocabulary ids in place (:func:`remap_ids`), dropping
out-of-vocabulary tokens and collapsing the sentences left empty, and the
result is an :class:`EncodedCorpus` that the runners read in blocks.

Sentence boundaries (line ends and file ends) are stored in the stream itself
as the sentinel ``-1`` (:data:`SENTINEL`).  A scan that spilled its counts to
disk (docs/large-corpora.md) lists only the words that may enter the
vocabulary; the tokens of the others are :data:`UNLISTED` (``-2``) in its
provisional stream, and encoding drops them as it drops any word outside the
vocabulary.
"""
import os
import tempfile

import numpy as np

from ..errors import CorpusError

SENTINEL = -1  # sentence boundary in an encoded id stream
UNLISTED = -2  # in a provisional stream: a word the scan did not list (it spilled its counts; too rare to keep)
#: bytes of RAM for reading a corpus: the vocabulary's counting tables and the int32 ids kept in RAM together;
#: beyond, the ids go to an anonymous temporary file and the counts spill (docs/large-corpora.md).  1 GiB
#: counts about 8M distinct words in memory.
DEFAULT_MEMORY_BUDGET = 1 << 30


# --------------------------------------------------------------------------- id stream storage
class IdStream:
    """An append-only int32 stream kept in RAM up to a budget, then in an anonymous temp file.

    Parameters
    ----------
    memory_budget : int
        Bytes of ids kept in RAM; beyond this the stream moves to a temporary
        file (deleted automatically, even if the process is killed).  A scan
        moves it sooner when its counting tables need the RAM
        (:meth:`move_to_disk`).
    tmpdir : str, optional
        Directory for the temporary file (default: ``tempfile.gettempdir()``,
        which ``TMPDIR`` sets).

    Raises
    ------
    CorpusError
        The temporary file cannot be created or written (a full disk): the
        message names its folder.
    """

    def __init__(self, memory_budget=DEFAULT_MEMORY_BUDGET, tmpdir=None):
        self.memory_budget = int(memory_budget)
        self.tmpdir = tmpdir
        self._parts = []
        self._array = None
        self._file = None
        self.length = 0

    @property
    def on_disk(self):
        return self._file is not None

    @property
    def ram_bytes(self):
        """Bytes of ids held in RAM (0 once the stream is in its temporary file)."""
        return 0 if self._file is not None else 4 * self.length

    def append(self, ids):
        ids = np.ascontiguousarray(ids, dtype=np.int32)
        if self._file is None and (self.length + ids.size) * 4 > self.memory_budget:
            self.move_to_disk()
        if self._file is not None:
            self._write(ids)
        else:
            self._parts.append(ids)
        self.length += ids.size

    def move_to_disk(self):
        """Move the ids to the temporary file now (the scan does it when its counting tables need the
        RAM); later appends go there too."""
        if self._file is not None:
            return
        try:
            self._file = tempfile.TemporaryFile(dir=self.tmpdir)
        except OSError as exc:
            raise self._spill_error(exc) from None
        # the ids so far: a finished array (appends after finish) and the parts since
        for part in ([self._array] if self._array is not None else []) + self._parts:
            self._write(part)
        self._parts = []
        self._array = None

    def write_at(self, start, ids):
        """Overwrite the ids from ``start`` with ``ids`` (of a finished stream; as many as there are)."""
        ids = np.ascontiguousarray(ids, dtype=np.int32)
        if start < 0 or start + ids.size > self.length:
            raise ValueError(f"ids {start}..{start + ids.size} outside a stream of {self.length}")
        if self._file is None:
            self._array[start:start + ids.size] = ids
            return
        self._write(ids, at=start)
        try:
            self._file.seek(0, os.SEEK_END)   # appends go on at the end
        except OSError as exc:
            raise self._spill_error(exc) from None

    def _write(self, ids, at=None):
        try:
            if at is not None:
                self._file.seek(at * 4)
            self._file.write(ids.tobytes())
        except OSError as exc:
            raise self._spill_error(exc) from None

    def _spill_error(self, exc):
        folder = os.path.abspath(self.tmpdir or tempfile.gettempdir())
        return CorpusError(f"cannot keep the encoded corpus in a temporary file in {folder}: "
                           f"{exc.strerror or exc}; free space there, point TMPDIR at a larger folder, "
                           "or raise the memory budget (--memory-budget)")

    def finish(self):
        """Freeze the stream: concatenate the RAM parts, flush the file."""
        if self._file is None:
            if self._array is None or self._parts:
                # copy part by part, releasing each as it is copied: peak = total + one part
                parts = ([self._array] if self._array is not None else []) + self._parts
                self._parts = []
                self._array = None
                array = np.empty(self.length, np.int32)
                pos = 0
                parts.reverse()
                while parts:
                    part = parts.pop()
                    array[pos:pos + part.size] = part
                    pos += part.size
                    del part
                self._array = array
        else:
            try:
                self._file.flush()
            except OSError as exc:
                raise self._spill_error(exc) from None

    def read(self, start, count, out=None):
        """Read ``count`` ids from ``start`` (a view when in RAM, a fresh array from disk)."""
        count = max(0, min(count, self.length - start))
        if self._file is None:
            return self._array[start:start + count]
        buf = np.empty(count, np.int32) if out is None else out[:count]
        try:
            self._file.seek(start * 4)   # which writes what is still buffered
            got = self._file.readinto(memoryview(buf).cast("B"))
        except OSError as exc:
            raise self._spill_error(exc) from None
        if got != count * 4:
            raise CorpusError("temporary id stream is truncated (disk full?)")
        return buf

    def rewrite(self, transform, block=1 << 20):
        """Apply ``transform(ids) -> ids`` block by block; outputs may be shorter (filtering)."""
        if self._file is None:
            # in place as well: outputs are never longer than inputs
            wpos = 0
            for i in range(0, self.length, block):
                new = transform(self._array[i:i + block])
                self._array[wpos:wpos + new.size] = new
                wpos += new.size
            self._array = self._array[:wpos]
            self.length = wpos
            return
        # in place: the write position never overtakes the read position
        rpos = wpos = 0
        buf = np.empty(block, np.int32)
        while rpos < self.length:
            ids = self.read(rpos, block, out=buf)
            rpos += ids.size
            new = np.ascontiguousarray(transform(ids), dtype=np.int32)
            self._write(new, at=wpos)
            wpos += new.size
        try:
            self._file.truncate(wpos * 4)
            self._file.flush()
        except OSError as exc:
            raise self._spill_error(exc) from None
        self.length = wpos

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None
        self._array = None
        self._parts = []


class EncodedCorpus:
    """The corpus as final vocabulary ids (int32, ``SENTINEL`` between sentences).

    Epochs read it in blocks with :meth:`blocks`; nothing is tokenized again.
    """

    def __init__(self, stream, n_words, vocab_size):
        self.stream = stream
        self.n_words = int(n_words)        # in-vocabulary tokens (no sentinels)
        self.vocab_size = int(vocab_size)

    @property
    def length(self):
        """Stream length, sentinels included (the unit of the learning-rate schedule)."""
        return self.stream.length

    @property
    def on_disk(self):
        return self.stream.on_disk

    def has_context(self):
        """Whether some sentence holds two ids or more; without one no word has a context, and
        no epoch trains an example."""
        if self.n_words > self.length - self.n_words + 1:   # more words than sentences
            return True
        before = SENTINEL   # the last id of the block before
        for _, ids in self.blocks():
            words = ids >= 0
            if words.size and ((words[0] and before != SENTINEL) or bool(np.any(words[1:] & words[:-1]))):
                return True
            before = int(ids[-1]) if ids.size else before
        return False

    def blocks(self, block_size=1 << 22):
        """Yield ``(start, ids)`` blocks covering the stream, validated for the kernels.

        Every id is checked to lie in ``[-1, vocab_size)`` before it can reach
        a kernel that has no bounds checks.
        """
        for start in range(0, self.length, block_size):
            ids = self.stream.read(start, block_size)
            if ids.size and (int(ids.min()) < SENTINEL or int(ids.max()) >= self.vocab_size):
                raise CorpusError("encoded corpus holds an id outside the vocabulary")
            yield start, ids

    def close(self):
        self.stream.close()


def id_table(remap):
    """Look-up table for :func:`remap_ids`: ``remap`` shifted by one so that SENTINEL (-1) maps through index 0."""
    table = np.empty(len(remap) + 1, np.int32)
    table[0] = SENTINEL
    table[1:] = remap
    return table


def remap_ids(ids, table, after_sentinel, drop_unlisted=False):
    """Final ids of a block of provisional ids: out-of-vocabulary words dropped, empty sentences collapsed.

    Parameters
    ----------
    ids : numpy.ndarray of int32
        Provisional ids, SENTINEL between sentences.
    table : numpy.ndarray of int32
        From :func:`id_table`; ``-2`` marks a word outside the vocabulary.
    after_sentinel : bool
        Whether the stream before this block ended a sentence (or this block starts it).
    drop_unlisted : bool
        Drop :data:`UNLISTED` ids (a provisional stream of a scan that spilled
        its counts) as words outside the vocabulary; without it they are
        refused.

    Returns
    -------
    numpy.ndarray of int32

    Raises
    ------
    CorpusError
        An id outside the table (checked in the kernel: nothing is read out of bounds).
    """
    from ..kernels.encode import remap_block   # start-up: Numba (0.5 s to import) loads only to encode
    ids = np.ascontiguousarray(ids, dtype=np.int32)
    out = np.empty(ids.size, np.int32)
    n = remap_block(ids, table, bool(after_sentinel), out, bool(drop_unlisted))
    if n < 0:
        raise CorpusError(f"the id stream holds an id outside [-1, {table.size - 2}] (a corrupt temporary file?)")
    return out[:n]


def encode_corpus(scanned, remap, vocab_size):
    """Turn a scanned corpus into final ids, in place.

    Parameters
    ----------
    scanned : ScannedCorpus
    remap : numpy.ndarray of int32
        Final id of each provisional id, ``-2`` for words outside the vocabulary.
    vocab_size : int

    Returns
    -------
    EncodedCorpus
    """
    table = id_table(remap)
    prev_last = [SENTINEL]
    unlisted = scanned.count_floor > 1   # a scan that spilled its counts lists only some words

    def transform(ids):
        new = remap_ids(ids, table, prev_last[0] == SENTINEL, unlisted)
        if new.size:
            prev_last[0] = new[-1]
        return new

    scanned.stream.rewrite(transform)
    n_words = int(scanned.counts[remap >= 0].sum())
    return EncodedCorpus(scanned.stream, n_words, vocab_size)
