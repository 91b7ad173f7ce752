"""Corpus reading: files, directories, stdin and compressed inputs in bounded chunks, tokenized once.

:func:`scan_corpus` reads the text in chunks of ``chunk_chars`` characters
(never a whole line: text8-style corpora are one enormous line), splits it
into tokens, and maps every token to a *provisional* id (its rank of first
occurrence) while counting.  The provisional ids are recorded in an
:class:`w2v.text.encoded.IdStream` (in memory up to a budget, spilled to an
anonymous temporary file beyond it), which :func:`w2v.text.encoded.encode_corpus`
turns into final vocabulary ids once the vocabulary is known: no epoch pays
Python tokenization again.

Sentence boundaries (line ends and file ends) are stored in the stream itself
as the sentinel ``-1``.  Sentences longer than ``max_sentence_length`` are
split by the training kernel, never truncated.

Which files a corpus names, how each is opened and whether it is text is
:mod:`w2v.text.inputs`'s to decide (:func:`resolve_inputs` is re-exported here).
"""
import os
import re
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..util import opener
from .counting import BoundedCount
from .encoded import DEFAULT_MEMORY_BUDGET, SENTINEL, IdStream
from ..errors import CorpusError, CorpusWarning, ParameterError
from .inputs import TextCheck, input_size, open_binary, open_text, resolve_inputs
from ..util.opener import replaced_sequences
from ..util.caller_warnings import warn

__all__ = ["TOKENIZERS", "DEFAULT_CHUNK_CHARS", "DEFAULT_MEMORY_BUDGET", "ScannedCorpus", "scan_corpus",
           "iter_token_lines", "read_chunks", "token_pieces", "warn_replaced_bytes", "resolve_inputs", "open_binary",
           "open_text", "input_size"]

TOKENIZERS = ("whitespace", "simple", "char")
DEFAULT_CHUNK_CHARS = 1 << 18  # characters read at a time (bounded transient memory)
SCAN_LAG = 2          # chunks the counting stage of the threaded scan may fall behind the split
MAX_TOKEN_CHUNKS = 64  # a run without a separator longer than this many chunks is cut (bounded memory)
_SIMPLE_TOKEN = re.compile(r"[^\W_]+")
_SIMPLE_SEPARATOR = re.compile(r"[\W_]")   # what ``simple`` never keeps
_SPACE = re.compile(r"\s")                 # exactly str.isspace()


# --------------------------------------------------------------------------- reading
def _tokenize_lines_fn(tokenizer, lowercase):
    """Return ``f(text) -> list[list[str]]``: the tokens of each ``\\n``-separated line."""
    if tokenizer not in TOKENIZERS:
        raise ParameterError(f"unknown tokenizer {tokenizer!r} (choose from {', '.join(TOKENIZERS)})")
    if tokenizer == "whitespace":
        if lowercase:
            return lambda text: [line.split() for line in text.lower().split("\n")]
        return lambda text: [line.split() for line in text.split("\n")]
    if tokenizer == "simple":
        findall = _SIMPLE_TOKEN.findall
        return lambda text: [findall(line) for line in text.lower().split("\n")]

    # char: every non-whitespace character is a token (whitespace cannot be
    # stored in the word2vec formats, so it only separates nothing here).
    def chars(text):
        if lowercase:
            text = text.lower()
        return [list("".join(line.split())) for line in text.split("\n")]

    return chars


def iter_token_lines(paths, tokenizer="whitespace", lowercase=False, chunk_chars=DEFAULT_CHUNK_CHARS,
                     on_bytes=None, allow_binary=False):
    """Yield ``(tokens, ends_sentence)`` pieces of the corpus, reading bounded chunks.

    A line longer than a chunk comes out in several pieces with
    ``ends_sentence=False`` on all but the last; no piece holds more than
    a chunk and the end of a token carried over from the one before (under
    65 chunks in all), so memory stays bounded whatever the line
    length.  Tokens never straddle two pieces, except a run of more than
    64 chunks without a separator, which is cut.

    Parameters
    ----------
    paths : list of str
        Inputs as returned by :func:`resolve_inputs`.
    tokenizer : {"whitespace", "simple", "char"}
    lowercase : bool
        Lowercase before splitting (``simple`` always lowercases).
    chunk_chars : int
        Characters read at a time.
    on_bytes : callable, optional
        Called with the number of characters consumed, for progress.
    allow_binary : bool
        Read inputs that do not look like text (:func:`w2v.text.inputs.not_text_reason`).

    Raises
    ------
    CorpusError
        An input is missing, unreadable, or not text (unless ``allow_binary``).
    """
    for path in resolve_inputs(paths):
        fh = open_text(path)
        try:
            chunks = TextCheck(path, allow_binary).chunks(read_chunks(fh, path, chunk_chars, on_bytes))
            yield from token_pieces(chunks, tokenizer, lowercase, chunk_chars)
        finally:
            if path != "-":
                fh.close()


def read_chunks(fh, path, chunk_chars, on_bytes=None, limit=None):
    """Yield chunks of at most ``chunk_chars`` characters (or bytes) read from ``fh``.

    Parameters
    ----------
    fh : file object
        Open for reading text or bytes.
    path : str
        The input's name, for error messages.
    chunk_chars : int
        Characters (or bytes) per chunk.
    on_bytes : callable, optional
        Called with the length of each chunk read.
    limit : int, optional
        Chunks to read at most (default: to the end).

    Raises
    ------
    CorpusError
        A read or decoding error.
    """
    while limit is None or limit > 0:
        if limit is not None:
            limit -= 1
        try:
            data = fh.read(chunk_chars)
        except (*opener.DECODE_ERRORS, ValueError) as exc:
            raise CorpusError(f"cannot read corpus {path}: {exc}") from None
        if not data:
            return
        if on_bytes is not None:
            on_bytes(len(data))
        yield data


def token_pieces(chunks, tokenizer="whitespace", lowercase=False, chunk_chars=DEFAULT_CHUNK_CHARS):
    """Turn a stream of text chunks (one input) into ``(tokens, ends_sentence)`` pieces.

    Each chunk is cut after its last whitespace and the rest carried to the
    next one, so no token is split; the end of the stream ends a sentence.
    """
    split_lines = _tokenize_lines_fn(tokenizer, lowercase)
    cut_anywhere = tokenizer == "char"
    separator = _SIMPLE_SEPARATOR if tokenizer == "simple" else _SPACE
    carry = ""
    while True:
        data = next(chunks, "")
        if not data:
            text, carry = carry, ""
            final = True
        else:
            text = carry + data
            final = False
            if cut_anywhere:
                cut = len(text)
            else:
                # cut after the last whitespace so that no token is split
                cut = max(text.rfind(" "), text.rfind("\n"), text.rfind("\t"), text.rfind("\r")) + 1
                if cut == 0:
                    if len(text) < MAX_TOKEN_CHUNKS * chunk_chars:
                        carry = text
                        continue
                    # a forced cut: after any other separator (\v, \f, NO-BREAK SPACE, ...; for
                    # ``simple``, any character that is not part of a token), else inside the token
                    last = separator.search(text[::-1])
                    cut = len(text) - (last.start() if last is not None else 0)
            text, carry = text[:cut], text[cut:]
        if text:
            lines = split_lines(text)
            last = len(lines) - 1
            for i, toks in enumerate(lines):
                # the last piece of a chunk continues on the next chunk's first line
                yield toks, (i < last) or final
        elif final:
            yield [], True
        if final:
            return


class ScannedCorpus:
    """Result of the single tokenization pass.

    Attributes
    ----------
    words : list of str
        Distinct tokens in order of first occurrence (index = provisional id).
        After a scan that spilled its counts to disk, a
        :class:`w2v.text.vocab.ListedWords`: only the words that occur at
        least :attr:`count_floor` times (and those of the vocabulary the scan
        was given), in the same order.
    counts : numpy.ndarray of int64
        Occurrences of each word in ``words``.
    stream : IdStream
        Provisional ids with ``SENTINEL`` at sentence ends (and ``UNLISTED``
        for the tokens of words left out of ``words``).
    n_tokens : int
        Total tokens read.
    n_sentences : int
        Sentence ends read: every ``\n`` and every end of a file, so empty
        lines count and a file that ends with ``\n`` counts one more than
        its lines (gensim's ``corpus_count`` counts non-empty lines; the
        empty sentences are dropped when the corpus is encoded).
    """

    def __init__(self, words, counts, stream, n_tokens, n_sentences, files, spill=None):
        self.words = words
        self.counts = counts
        self.stream = stream
        self.n_tokens = n_tokens
        self.n_sentences = n_sentences
        self.files = files
        self.spill = spill      # what the count wrote to disk (generations, bytes), or None

    @property
    def count_floor(self):
        """Every word occurring at least this many times is in :attr:`words` (1: every word is)."""
        return getattr(self.words, "count_floor", 1)

    @property
    def n_distinct(self):
        """Distinct words of the corpus, listed in :attr:`words` or not."""
        return getattr(self.words, "n_distinct", len(self.words))

    @property
    def absolute_files(self):
        """The inputs as absolute paths (``"-"`` as is), as a model records them."""
        return [f if f == "-" else os.path.abspath(f) for f in self.files]


def scan_corpus(paths, tokenizer="whitespace", lowercase=False, memory_budget=DEFAULT_MEMORY_BUDGET,
                chunk_chars=DEFAULT_CHUNK_CHARS, tmpdir=None, progress=None, threads=1, allow_binary=False,
                min_count=1, vocabulary=None):
    """Read the corpus once: count tokens and record the provisional id stream.

    Parameters
    ----------
    paths : str or list of str
        Corpus files, directories or ``"-"``.
    tokenizer : {"whitespace", "simple", "char"}
    lowercase : bool
    memory_budget : int
        Bytes of RAM for the counting tables and the ids kept in RAM: the ids
        go to a temporary file first, then the counts spill to temporary files
        in ``tmpdir`` (docs/large-corpora.md).
    chunk_chars : int
        Characters read at a time.
    tmpdir : str, optional
    progress : callable, optional
        ``progress(chars_read, tokens_read)`` called as the scan goes on (after
        each chunk of the whitespace byte scan, every 65,536 or so tokens of
        the others) and once at its end.
    threads : int
        With 2 or more, one chunk is split (or tokenized) while a second thread
        counts the ones before (up to :data:`SCAN_LAG` behind); the same result.
    allow_binary : bool
        Read inputs that do not look like text.  By default an input is
        refused when its first 65,536 characters hold a NUL byte, or more
        than 30% of them are bytes that are not UTF-8 or control characters
        (:func:`w2v.text.inputs.not_text_reason`): an executable or an image
        given by mistake would train nonsense.
    min_count : int
        After a spill, the words occurring fewer times are left out of
        ``words`` (``UNLISTED`` in the stream); 1 lists every word.
    vocabulary : sequence of str, optional
        Words listed after a spill whatever their counts (a model's
        vocabulary, to encode the corpus with it).

    Returns
    -------
    ScannedCorpus

    Raises
    ------
    CorpusError
        Missing or unreadable inputs, an input that is not text (unless
        ``allow_binary``), no token at all, or a temporary file that cannot
        be written (the message names its folder).
    BudgetError
        After a spill, the words to list need more than the budget.
    """
    files = resolve_inputs(paths)
    if tokenizer not in TOKENIZERS:
        raise ParameterError(f"unknown tokenizer {tokenizer!r} (choose from {', '.join(TOKENIZERS)})")
    stream = IdStream(memory_budget, tmpdir)
    replaced_before = replaced_sequences()
    counter = BoundedCount(memory_budget, min_count, vocabulary, tmpdir)
    try:
        if tokenizer == "whitespace" and not lowercase:
            words, counts, n_tokens, n_sentences = _scan_bytes(files, stream, chunk_chars, progress, threads,
                                                               allow_binary, counter)
        else:
            words, counts, n_tokens, n_sentences = _scan_text(files, stream, tokenizer, lowercase, chunk_chars,
                                                              progress, allow_binary, counter, threads)
        stream.finish()
    except BaseException:
        stream.close()
        raise
    finally:
        counter.close()
    spill = counter.stats or None
    if n_tokens == 0:
        stream.close()
        raise CorpusError("corpus is empty: no tokens in " + ", ".join(files))
    warn_replaced_bytes(words, counts, files, replaced_sequences() - replaced_before, tokenizer, stacklevel=3,
                        unlisted=spill["unlisted_replaced"] if spill else (0, 0))
    return ScannedCorpus(words, counts, stream, n_tokens, n_sentences, files, spill)


def warn_replaced_bytes(words, counts, files, sequences=0, tokenizer="whitespace", stacklevel=2, unlisted=(0, 0)):
    """Warn (:class:`CorpusWarning`) when bytes of the corpus were not UTF-8.

    The corpus readers decode with ``errors="replace"`` (a stray byte never
    stops a run), so each undecodable byte sequence became U+FFFD.  This
    says how many tokens hold it (words holding U+FFFD: a corpus that holds
    U+FFFD itself counts too) or, when the tokenizer dropped it (``simple``
    keeps only letters and digits), how many sequences were replaced.

    Parameters
    ----------
    words, counts : list of str, array_like of int
        The scanned vocabulary (before ``min_count``).
    files : list of str
        The corpus files, for the message.
    sequences : int
        Byte sequences the text readers replaced (:func:`replaced_sequences`).
    tokenizer : str
        For the message.
    unlisted : (int, int)
        Words holding U+FFFD that a scan which spilled its counts left out
        of ``words``, and their tokens.
    """
    bad = [i for i, w in enumerate(words) if "\ufffd" in w]
    n_bad = len(bad) + unlisted[0]
    if not n_bad and not sequences:
        return
    where = ", ".join(files[:3]) + (f" and {len(files) - 3} more files" if len(files) > 3 else "")
    if n_bad:
        tokens = int(np.asarray(counts, np.int64)[bad].sum()) + unlisted[1]
        detail = f"{tokens:,} tokens ({n_bad:,} distinct word{'s' if n_bad > 1 else ''}) hold it"
    else:
        detail = f"{sequences:,} byte sequences, which the {tokenizer} tokenizer then dropped"
    warn(f"{where}: bytes that are not UTF-8 were read as U+FFFD: {detail}", CorpusWarning, stacklevel=stacklevel)


def _scan_text(files, stream, tokenizer, lowercase, chunk_chars, progress, allow_binary=False, counter=None,
               threads=1):
    """The general scan: the text decoded and split by the Python tokenizers.

    The tokens of each batch of about 65,536 are joined by spaces, with a
    ``\n`` after each sentence, and counted by the byte scan
    (:class:`_ByteScan`, in ``counter`` as :func:`_scan_bytes` counts), which
    splits them back one for one: no token holds whitespace.  So the counts
    keep to the memory budget here too, and the ids are in order of first
    occurrence.
    """
    if counter is None:
        counter = BoundedCount(stream.memory_budget, tmpdir=stream.tmpdir)
    scan = _ByteScan(stream, chunk_chars, progress, threads, counter)
    pending = []       # tokens joined by spaces, each piece followed by " " or (a sentence end) "\n"
    pending_len = 0
    try:
        for toks, ends in iter_token_lines(files, tokenizer, lowercase, chunk_chars, scan.count_read, allow_binary):
            pending.append(" ".join(toks))
            pending.append("\n" if ends else " ")
            pending_len += len(toks) + 1
            if pending_len >= (1 << 16):
                scan.count_text("".join(pending))
                pending.clear()
                pending_len = 0
        if pending:
            scan.count_text("".join(pending))
        scan.collect()
    finally:
        scan.close()
    if progress is not None:
        progress(scan.done, scan.n_tokens)
    n_sentences = counter.n_lines
    words, counts = _counted_words(counter, stream, scan.generation_starts)
    return words, counts, scan.n_tokens, n_sentences


def _scan_bytes(files, stream, chunk_bytes, progress, threads=1, allow_binary=False, counter=None):
    """The whitespace scan over raw bytes (:mod:`w2v.kernels.tokenize`).

    Gives the same words, counts and id stream as :func:`_scan_text` with
    the whitespace tokenizer: words are decoded once each with
    ``errors="replace"``, and byte strings that decode to the same word (only
    possible with undecodable bytes) are merged into the first one's id.

    With ``threads`` > 1 the two stages overlap: this thread reads and splits
    chunk *k* (:func:`~w2v.kernels.tokenize.split_tokens`) while a second one
    counts the chunks before (:func:`~w2v.kernels.tokenize.count_tokens`, the
    only writer of the vocabulary, so ids keep their order of first
    occurrence), up to :data:`SCAN_LAG` chunks behind, so that neither stage
    waits on the other's slower chunks.  Both stages run without the GIL.

    ``counter`` (a :class:`~w2v.text.counting.BoundedCount`, default: one
    with the stream's budget) holds the counts; when it spilled them to
    disk, the words are the ones it lists (:meth:`~w2v.text.counting.BoundedCount.finish`).
    """
    if counter is None:
        counter = BoundedCount(stream.memory_budget, tmpdir=stream.tmpdir)
    scan = _ByteScan(stream, chunk_bytes, progress, threads, counter)
    try:
        for path in files:
            scan.read_file(path, TextCheck(path, allow_binary))
    finally:
        scan.close()
    if progress is not None:
        progress(scan.done, scan.n_tokens)
    n_sentences = counter.n_lines + len(files)
    words, counts = _counted_words(counter, stream, scan.generation_starts)
    if not counter.spilled and len(set(words)) < len(words):   # a spilled count merged them on disk
        words, counts = _merge_same_words(words, counts, stream)
    return words, counts, scan.n_tokens, n_sentences


def _counted_words(counter, stream, generation_starts):
    """The words the count lists and their counts: those of its tables, or after a spill those of
    :meth:`~w2v.text.counting.BoundedCount.finish` (which rewrites the stream's ids)."""
    if counter.spilled:
        stream.finish()
        return counter.finish(stream, generation_starts)
    words = counter.vocab.words()
    return words, counter.vocab.counts[:len(words)].copy()


class _ByteScan:
    """The state of :func:`_scan_bytes`: the counting tables, the split buffers, the counts in flight."""

    def __init__(self, stream, chunk_bytes, progress, threads, counter):
        from ..kernels.tokenize import TokenItems   # Numba (0.5 s to import): not at start-up
        self.stream = stream
        self.chunk_bytes = chunk_bytes
        self.progress = progress
        self.counter = counter
        # chunk k is split into one of these while up to SCAN_LAG chunks before it are counted
        self.batches = [TokenItems() for _ in range(SCAN_LAG + 1)]
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="w2v-scan") if threads > 1 else None
        self.pending = deque()  # (count result or future, its TokenItems) of the chunks not collected yet
        self.generation_starts = [0]   # where the ids of each generation of the counts begin in the stream
        self.n_tokens = 0
        self.done = 0
        self.chunks = 0

    def collect(self, keep=0):
        """Wait for the pending counts, oldest first, until ``keep`` are left; their ids go to
        the stream (in chunk order)."""
        while len(self.pending) > keep:
            job, items = self.pending.popleft()
            written, newlines, cuts = job.result() if self.pool is not None else job
            self.generation_starts.extend(self.stream.length + cut for cut in cuts)
            if written:
                self.stream.append(items.ids[:written].copy())   # the arrays are reused SCAN_LAG + 1 chunks on
            self.n_tokens += written - newlines

    def count_read(self, n):
        """Record ``n`` more characters (or bytes) read, for progress."""
        self.done += n

    def count_text(self, text):
        """Split and count ``text`` (a ``str``), whole tokens each followed by a space or a ``\n``."""
        self.split(text.encode("utf-8"), True)
        if self.progress is not None:
            self.progress(self.done, self.n_tokens)

    def read_file(self, path, check):
        """Split and count one input, chunk by chunk, checking that it is text (``check``, a
        :class:`~w2v.text.inputs.TextCheck`); the end of a file ends a sentence."""
        fh = open_binary(path)
        try:
            carry = b""
            while True:
                data = b"".join(read_chunks(fh, path, self.chunk_bytes, limit=1))
                final = not data
                if data:
                    check.feed_bytes(data)
                else:
                    check.end()
                self.done += len(data)
                text = carry + data if carry else data
                if not text:
                    break
                carry = text[self.split(text, final):]
                if self.progress is not None:
                    self.progress(self.done, self.n_tokens)
                if final:
                    break
        finally:
            if path != "-":
                fh.close()
        self.collect()
        self.stream.append(np.full(1, SENTINEL, np.int32))

    def split(self, text, final):
        """Split the tokens of ``text`` and start counting them; return the bytes consumed."""
        buf = np.frombuffer(text, np.uint8)
        # a "token" longer than MAX_TOKEN_CHUNKS chunks is cut (memory stays bounded), as
        # token_pieces does
        force = not final and buf.size >= MAX_TOKEN_CHUNKS * self.chunk_bytes
        n = _char_boundary(buf) if force else buf.size
        self.collect(keep=SCAN_LAG)   # the count that last used these arrays is done
        # the ids in RAM and the counting tables share the budget: the ids go to disk first
        # (the tables may double while this chunk is counted)
        stream = self.stream
        if stream.ram_bytes and stream.ram_bytes + 2 * self.counter.table_bytes > stream.memory_budget:
            stream.move_to_disk()
        items = self.batches[self.chunks % len(self.batches)]
        self.chunks += 1
        consumed, n_items = items.split(buf, n, final or force)
        if self.pool is not None:
            self.pending.append((self.pool.submit(self.counter.count, buf, items, n_items), items))
        else:
            self.pending.append((self.counter.count(buf, items, n_items), items))
        return consumed

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)   # no count runs on after an error


def _char_boundary(buf):
    """Length of ``buf`` (UTF-8 bytes) without a multi-byte character cut off at its end.

    A forced cut of an overlong token must not split a character: both halves
    would decode to U+FFFD (and be reported as bytes that are not UTF-8).
    """
    n = buf.size
    for back in range(1, min(4, n) + 1):
        b = int(buf[n - back])
        if b < 0x80:
            return n                              # ASCII: the buffer ends after it
        if b >= 0xC0:                             # a lead byte: does its character fit?
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return n if need <= back else n - back
    return n                                      # continuation bytes only: invalid anyway


def _merge_same_words(words, counts, stream):
    """Give byte strings that decoded to the same word one provisional id (the first)."""
    first = {}
    premap = np.empty(len(words) + 1, np.int32)   # shifted by one: index 0 is the sentinel
    premap[0] = SENTINEL
    merged_words = []
    for i, w in enumerate(words):
        j = first.setdefault(w, len(merged_words))
        if j == len(merged_words):
            merged_words.append(w)
        premap[i + 1] = j
    merged_counts = np.bincount(premap[1:], weights=counts, minlength=len(merged_words)).astype(np.int64)
    stream.finish()
    stream.rewrite(lambda ids: premap[ids + 1])
    return merged_words, merged_counts
