"""Phrases over a whole corpus: learn passes on its id stream, join a model into it, write it as text.

The corpus is tokenized once (:func:`w2v.text.scanning.scan_corpus`); every pass
then counts and joins its int32 id stream in place, so no phrased text is
written between passes, nor before training (:func:`phrase_scanned`).
"""
import os
import queue
import sys
import threading
import time
from typing import NamedTuple

import numpy as np

from ..errors import ParameterError
from ..kernels.phrases import first_seen
from ..kernels.text import text_bytes, write_tokens
from ..text.scanning import ScannedCorpus
from ..util.atomic import atomic_write
from ..util.opener import compression_for_suffix, open_compressed_writer
from .settings import PhraseSettings, check_passes
from . import tables as phrase_tables
from .tables import JoinTable, RunTable, StreamIds, join_flags, join_ids, join_stream
from .model import FrozenPhrases, Phrases

#: what ``phrases="auto"`` learns: word2phrase's defaults (min_count 5, threshold 100), run twice as
#: word2vec's phrase demos run word2phrase, so that three-word phrases (new_york_times) can form
AUTO_PHRASES = dict(scoring="word2vec", min_count=5, threshold=100.0, passes=2)


class Joiner(NamedTuple):
    """One pass of joining bound to a stream: what :func:`w2v.phrases.tables.join_ids` needs."""

    stream_ids: StreamIds
    join: JoinTable
    out: np.ndarray      # the stream id of each phrase
    runs: RunTable
    chunk: int
    max_run: int

    def __call__(self, stream, counts=None):
        """Join this pass into ``stream`` in place (``counts``, per stream id, gets the new counts)."""
        join_stream(stream, self.stream_ids, self.join, self.out, self.runs, self.chunk, self.max_run, counts)

    def blocks(self, stream):
        """The joined stream, block by block, leaving ``stream`` as it is."""
        flags = join_flags(self.stream_ids, self.join)
        state = np.zeros(1, np.int64)
        carry = np.zeros(0, np.int32)
        size = phrase_tables.PIECE_IDS
        for i in range(0, stream.length, size):
            block = stream.read(i, size)
            piece = np.concatenate([carry, block]) if carry.size else block
            final = i + size >= stream.length
            consumed, out = join_ids(piece, final, self.stream_ids, self.join, self.out, self.runs, self.chunk,
                                     self.max_run, state, flags=flags)
            carry = piece[consumed:].copy()
            yield out


def learn_passes(stream, words, settings, passes, threads=1, report=None, join_last=True):
    """Learn ``passes`` passes of phrases on an id stream and join each into it, in place.

    Parameters
    ----------
    stream : w2v.text.encoded.IdStream
        Ids of ``words`` (a scanned corpus' provisional ids), ending with a sentence end.
    words : list of str
        Distinct words.
    settings : PhraseSettings
    passes : int
    threads : int
        Cores to use (:func:`counting_threads`).
    report : callable, optional
        ``report(message)`` after each pass.
    join_last : bool
        Join the last pass too; else it is left to the returned :class:`Joiner`
        (:func:`write_text` joins it as it writes).

    Returns
    -------
    (FrozenPhrases, words, counts, last)
        The phrases; the words of the joined stream (``words`` and then the new phrase
        tokens); with ``join_last`` their counts in it (else ``None``), and the
        :class:`Joiner` of the last pass (``None`` with ``join_last``).
    """
    passes = check_passes(passes)
    frozen = FrozenPhrases.on_tokens(settings, words)
    counts = last = None
    for k in range(passes):
        t0 = time.perf_counter()
        model = Phrases(threads=counting_threads(threads), **_phrases_args(settings))
        model.use_tokens(frozen.tokens)
        model.count_stream(stream, StreamIds.identity(model.connector_flags()), from_files=True)
        keys, runs, scores = model.phrase_pairs()
        frozen.add_layer(keys, runs, scores, model.runs, frozen.tokens)
        frozen.pruned = frozen.pruned or model.pruned
        pruned, pairs = model.pruned, len(model.pairs)
        del model
        join, _ = frozen.layers[-1]
        joiner = Joiner(StreamIds.identity(frozen.connector_flags()), join, join.out, frozen.runs,
                        settings.chunk(True), settings.max_sentence_length)
        if k + 1 < passes:
            joiner(stream)
        elif join_last:
            counts = np.zeros(len(frozen.tokens), np.int64)
            joiner(stream, counts)
        else:
            last = joiner
        if report is not None:
            report(f"phrases, pass {k + 1}: {len(join):,} phrases from {pairs:,} pairs"
                   f"{' (the pair table was pruned)' if pruned else ''} ({time.perf_counter() - t0:.1f}s)")
    return frozen, list(frozen.tokens), counts, last


def counting_threads(cores):
    """Threads (pair-table partitions) that count pairs for ``cores`` cores: one per two cores.
    Counting is bound by memory: on the 2-core reference host, the first pass over 17M tokens took
    0.6 s with two partitions and 0.5 s with one."""
    return max(1, cores // 2)


def _phrases_args(settings):
    return dict(min_count=settings.min_count, threshold=settings.threshold, scoring=settings.scoring,
                delimiter=settings.delimiter, connector_words=settings.connector_words,
                max_vocab_size=settings.max_table_size, max_sentence_length=settings.max_sentence_length)


def bind(frozen, words):
    """How a stream of ``words``' ids meets ``frozen``'s tokens.

    Returns
    -------
    (joint, joiners)
        ``joint``: ``words`` and then the phrase tokens that are not among them;
        ``joiners``: a :class:`Joiner` per pass, on joint ids.
    """
    index = dict(zip(words, range(len(words))))
    joint = list(words)
    outs = []
    for join, _ in frozen.layers:
        out = np.empty(len(join), np.int32)
        for i, t in enumerate(join.out.tolist()):
            w = frozen.tokens[t]
            j = index.get(w)
            if j is None:
                j = index[w] = len(joint)
                joint.append(w)
            out[i] = j
        outs.append(out)
    key_of = np.full(len(joint), -1, np.int32)
    for k, w in enumerate(frozen.tokens):
        j = index.get(w)
        if j is not None:
            key_of[j] = k
    conn = frozen.connector_words
    connector = np.array([w in conn for w in joint], np.bool_) if conn else np.zeros(len(joint), np.bool_)
    stream_ids = StreamIds.mapped(key_of, connector)
    s = frozen.settings
    return joint, [Joiner(stream_ids, join, out, frozen.runs, s.chunk(True), s.max_sentence_length)
                   for (join, _), out in zip(frozen.layers, outs)]


def join_frozen(stream, words, frozen, report=None, join_last=True):
    """Join the phrases of ``frozen`` into an id stream of ``words``' ids, in place.

    Returns
    -------
    (words, counts, last)
        The words of the joined stream; with ``join_last`` their counts (else ``None``) and
        ``None``, else the :class:`Joiner` of the last pass, left to the caller.
    """
    t0 = time.perf_counter()
    joint, joiners = bind(frozen, words)
    counts = last = None
    if not join_last and joiners:
        joiners, last = joiners[:-1], joiners[-1]
    for k, joiner in enumerate(joiners):
        if k + 1 == len(joiners) and join_last:
            counts = np.zeros(len(joint), np.int64)
        joiner(stream, counts)
    if join_last and counts is None:
        counts = _stream_counts(stream, len(joint))
    if report is not None:
        report(f"phrases: {len(frozen):,} phrases in {frozen.passes} pass(es) to join "
               f"({time.perf_counter() - t0:.1f}s)")
    return joint, counts, last


def _stream_counts(stream, n):
    counts = np.zeros(n, np.int64)
    size = phrase_tables.PIECE_IDS
    for i in range(0, stream.length, size):
        ids = stream.read(i, size)
        counts += np.bincount(ids[ids >= 0], minlength=n)
    return counts


def resolve_phrases(phrases):
    """What ``phrases`` asks for: ``("learn", settings, passes)`` or ``("join", FrozenPhrases)``.

    ``phrases`` is ``"auto"`` (:data:`AUTO_PHRASES`), a dict of learning options
    (those of :class:`PhraseSettings` and ``passes``, over :data:`AUTO_PHRASES`), a
    :class:`Phrases` or :class:`FrozenPhrases`, or the path of a saved model.

    Raises
    ------
    ParameterError
        Anything else, or invalid options.
    FormatError
        A saved model that is missing or corrupt.
    """
    if isinstance(phrases, str) and phrases == "auto":
        phrases = {}
    if isinstance(phrases, dict):
        options = {**AUTO_PHRASES, **phrases}
        passes = check_passes(options.pop("passes"))
        try:
            settings = PhraseSettings(**options)
        except TypeError as exc:
            raise ParameterError(f"phrases: {exc}") from None
        return "learn", settings, passes
    if isinstance(phrases, Phrases):
        return "join", phrases.freeze()
    if isinstance(phrases, FrozenPhrases):
        return "join", phrases
    if isinstance(phrases, (str, os.PathLike)):
        return "join", FrozenPhrases.load(phrases)
    raise ParameterError(f"phrases must be 'auto', a dict of options, a Phrases or FrozenPhrases, or the "
                         f"folder of a saved phrase model, not {type(phrases).__name__}")


def phrase_scanned(scanned, phrases, threads=1, report=None):
    """The scanned corpus with phrases joined into its id stream (in place), for training.

    On any error the id stream is closed before the error propagates.

    Parameters
    ----------
    scanned : w2v.text.scanning.ScannedCorpus
    phrases : see :func:`resolve_phrases`
    threads : int
        Cores to use (:func:`counting_threads`).
    report : callable, optional
        Progress messages.

    Returns
    -------
    (ScannedCorpus, FrozenPhrases)
        The corpus of the joined stream (its words and counts), and the phrases joined.
    """
    try:
        if scanned.count_floor > 1:    # a scan that spilled its counts: its rare words are not in the ids
            scanned.words.require_all("phrases are joined over every word of the corpus")
        how = resolve_phrases(phrases)
        if how[0] == "learn":
            frozen, words, counts, _ = learn_passes(scanned.stream, scanned.words, how[1], how[2], threads, report)
        else:
            frozen = how[1]
            words, counts, _ = join_frozen(scanned.stream, scanned.words, frozen, report)
        words, counts = renumber(scanned.stream, words, counts)
    except BaseException:
        scanned.stream.close()   # the id stream (maybe a temporary file) is not handed on
        raise
    joined = ScannedCorpus(words, counts, scanned.stream, int(counts.sum()), scanned.n_sentences, scanned.files)
    return joined, frozen


def renumber(stream, words, counts):
    """Number the words of a joined stream in order of first occurrence, as a scan of the joined
    text would (words that no longer occur are dropped): the vocabulary, and so the vectors at
    ``--threads 1``, are then those of training on the text ``w2v phrases`` writes.

    Returns
    -------
    (words, counts)
        The stream is rewritten in place.
    """
    order = np.full(len(words), -1, np.int64)
    state = np.zeros(1, np.int64)
    for i in range(0, stream.length, phrase_tables.PIECE_IDS):
        first_seen(stream.read(i, phrase_tables.PIECE_IDS), order, state)
    seen = np.flatnonzero(order >= 0)
    by_order = seen[np.argsort(order[seen])]
    table = np.full(len(words) + 1, -1, np.int32)   # shifted by one: index 0 is the sentence end
    table[1:][by_order] = np.arange(by_order.size, dtype=np.int32)
    stream.rewrite(lambda ids: table[ids + 1])
    return [words[i] for i in by_order.tolist()], counts[by_order]


def write_text(stream, words, fh, last=None):
    """Write an id stream of ``words``' ids as text to the binary file ``fh``: tokens separated by
    spaces, one line per non-empty sentence; ``last`` (a :class:`Joiner`) joins a last pass on the
    way.  Returns the bytes written."""
    encoded = [w.encode("utf-8") for w in words]
    sizes = np.fromiter(map(len, encoded), np.int64, len(encoded)) + 1   # each token and a space
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum(sizes, out=offsets[1:])
    arena = np.frombuffer(b" ".join(encoded) + b" " + bytes(8), np.uint8)   # 8 bytes for write_tokens' moves
    state = np.zeros(2, np.int64)   # a line is open; a separator is pending
    pending = 32
    total = 0
    size = phrase_tables.PIECE_IDS
    # the last pass joins in a thread of its own while this one writes: 0.65 s -> 0.4 s on 17M tokens
    blocks = blocks_ahead(last.blocks(stream)) if last is not None else (stream.read(i, size)
                                                                        for i in range(0, stream.length, size))
    for ids in blocks:
        buf = np.empty(text_bytes(ids, offsets) + 9, np.uint8)
        buf[0] = pending
        n = write_tokens(ids, arena, offsets, state, buf)
        if n:
            fh.write(memoryview(buf)[:n - 1])
            total += n - 1
            pending = buf[n - 1]
    if state[1]:
        fh.write(b"\n")   # the pending separator ends the last line
        total += 1
    return total


def blocks_ahead(blocks, depth=2):
    """Yield the items of the iterable ``blocks``, taken from it by a thread of their own up to
    ``depth`` items ahead (its kernels release the GIL, so it works while the caller does).

    An exception in that thread is raised here; when the caller stops early (an error, an
    interrupt), the thread stops after the item it is on.
    """
    items = queue.Queue(maxsize=depth)
    stop = threading.Event()
    end = object()

    def put(item):
        while not stop.is_set():
            try:
                items.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    def produce():
        try:
            for block in blocks:
                if not put((block, None)):
                    return
            put((end, None))
        except BaseException as exc:   # handed to the caller, which raises it
            put((end, exc))

    worker = threading.Thread(target=produce, daemon=True, name="w2v-phrases-ahead")
    worker.start()
    try:
        while True:
            block, exc = items.get()
            if block is end:
                if exc is not None:
                    raise exc
                return
            yield block
    finally:
        stop.set()
        worker.join()


def write_phrased(path, stream, words, last=None):
    """Write the joined corpus to ``path`` (``"-"``: standard output), atomically; a ``.gz``,
    ``.bz2`` or ``.xz`` suffix compresses; ``last`` as :func:`write_text`'s.  Returns the bytes
    of text written."""
    if path == "-":
        out = sys.stdout.buffer
        n = write_text(stream, words, out, last)
        out.flush()
        return n
    kind = compression_for_suffix(path)
    with atomic_write(path, "wb", flush_behind=True) as raw:   # the final fsync of 100 MB: 0.22 s -> ~0
        if kind is None:
            return write_text(stream, words, raw, last)
        with open_compressed_writer(raw, kind) as out:
            return write_text(stream, words, out, last)
