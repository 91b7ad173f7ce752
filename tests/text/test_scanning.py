import bz2
import functools
import gzip
import io
import lzma
import os
import sys
import warnings

import numpy as np
import pytest

from w2v.text.scanning import iter_token_lines, resolve_inputs, scan_corpus
from w2v.text.encoded import SENTINEL, IdStream, encode_corpus
from w2v.errors import CorpusError, CorpusWarning, ParameterError
from w2v.text.vocab import build_vocab


def tokens_of(paths, **kw):
    out = []
    for toks, _ in iter_token_lines(paths, **kw):
        out.extend(toks)
    return out


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 13, 64, 1000])
def test_single_line_chunked_reading_equals_split(tmp_path, chunk):
    rng = np.random.default_rng(chunk)
    words = ["".join(rng.choice(list("abcdéxyz"), rng.integers(1, 9))) for _ in range(500)]
    seps = rng.choice([" ", "  ", "\t", " \r "], len(words))
    text = "".join(w + s for w, s in zip(words, seps))
    p = tmp_path / "one_line.txt"
    p.write_text(text, encoding="utf-8")
    assert tokens_of([str(p)], chunk_chars=chunk) == text.split()


def test_pieces_never_exceed_chunk_and_mark_sentence_ends(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("a b c\nd e\n\nf g h i j k\n", encoding="utf-8")
    pieces = list(iter_token_lines([str(p)], chunk_chars=4))
    assert [t for toks, _ in pieces for t in toks] == list("abcdefghijk")
    # sentence ends: after c, after e, (blank line), after k
    ends = []
    acc = []
    for toks, end in pieces:
        acc.extend(toks)
        if end:
            ends.append(len(acc))
    assert [e for i, e in enumerate(ends) if i == 0 or e != ends[i - 1]] == [3, 5, 11]


@pytest.mark.parametrize("opener,suffix", [(gzip.open, ".gz"), (bz2.open, ".bz2"), (lzma.open, ".xz"),
                                           (functools.partial(lzma.open, format=lzma.FORMAT_ALONE), ".lzma")])
def test_compressed_inputs(tmp_path, opener, suffix):
    text = "the quick brown fox\njumps over the lazy dog\n" * 50
    p = tmp_path / ("c.txt" + suffix)
    with opener(p, "wt", encoding="utf-8") as f:
        f.write(text)
    assert tokens_of([str(p)], chunk_chars=17) == text.split()


def test_directory_input_sorted_and_hidden_skipped(tmp_path):
    (tmp_path / "b.txt").write_text("two\n")
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / ".hidden").write_text("secret\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "c.txt").write_text("three\n")
    hidden = tmp_path / ".git"
    hidden.mkdir()
    (hidden / "d.txt").write_text("objects\n")
    assert tokens_of([str(tmp_path)]) == ["one", "two", "three"]


def test_directory_files_are_read_in_sorted_order_whatever_the_creation_order(tmp_path):
    names = [f"part-{i:02d}.txt" for i in range(20)]
    for i in np.random.default_rng(5).permutation(len(names)):
        (tmp_path / names[i]).write_text(f"w{i}\n")
    assert resolve_inputs([str(tmp_path)]) == [str(tmp_path / n) for n in names]
    assert tokens_of([str(tmp_path)]) == [f"w{i}" for i in range(20)]


def test_undecodable_bytes_are_replaced(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"caf\xe9 ok \xff\xfe word\n")
    toks = tokens_of([str(p)])
    assert toks[1] == "ok" and toks[-1] == "word" and "\ufffd" in toks[0]


def test_undecodable_bytes_are_reported(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"caf\xe9 ok \xff\xfe word\n" * 3)
    # whitespace (byte scan) and char tokenizers keep U+FFFD in the words: tokens are counted
    with pytest.warns(CorpusWarning, match=r"bad.txt: bytes that are not UTF-8 were read as U\+FFFD: "
                                           r"6 tokens \(2 distinct words\) hold it"):
        scan_corpus([str(p)]).stream.close()
    with pytest.warns(CorpusWarning, match=r"9 tokens \(1 distinct word\) hold it"):
        scan_corpus([str(p)], tokenizer="char").stream.close()
    # the simple tokenizer drops it: the replaced sequences are counted (3 per line)
    with pytest.warns(CorpusWarning, match=r"9 byte sequences, which the simple tokenizer then dropped"):
        sc = scan_corpus([str(p)], tokenizer="simple")
    assert sc.words == ["caf", "ok", "word"]
    sc.stream.close()
    good = tmp_path / "good.txt"
    good.write_text("café ok word\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for tok in ("whitespace", "simple", "char"):
            scan_corpus([str(good)], tokenizer=tok).stream.close()


def test_undecodable_bytes_warning_names_three_files_and_counts_the_rest(tmp_path):
    paths = []
    for name in "abcde":
        p = tmp_path / f"{name}.txt"
        p.write_bytes(b"ok caf\xe9\n")
        paths.append(str(p))
    with pytest.warns(CorpusWarning) as record:
        scan_corpus(paths).stream.close()
    [w] = record
    assert str(w.message).startswith(f"{paths[0]}, {paths[1]}, {paths[2]} and 2 more files: ")
    assert "5 tokens (1 distinct word) hold it" in str(w.message)


def test_stdin(monkeypatch):
    fake = io.TextIOWrapper(io.BytesIO(b"x y z\nx\n"))
    monkeypatch.setattr(sys, "stdin", fake)
    assert tokens_of(["-"]) == ["x", "y", "z", "x"]


def test_a_named_pipe_is_read_as_a_corpus(tmp_path):
    # what `w2v train <(zcat corpus.gz)` passes: a FIFO, not a regular file
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert resolve_inputs([str(fifo)]) == [str(fifo)]

    def write():
        with open(fifo, "wb") as f:      # blocks until the scan opens the pipe
            f.write(b"a b a\nc\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    sc = scan_corpus([str(fifo)])
    writer.join(10)
    assert (sc.words, sc.counts.tolist(), sc.n_tokens) == (["a", "b", "c"], [2, 1, 1], 4)
    sc.stream.close()


def test_tokenizers(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("Hello, World! It's 2024 -- naïve_Café\n", encoding="utf-8")
    assert tokens_of([str(p)]) == ["Hello,", "World!", "It's", "2024", "--", "naïve_Café"]
    assert tokens_of([str(p)], lowercase=True) == ["hello,", "world!", "it's", "2024", "--", "naïve_café"]
    assert tokens_of([str(p)], tokenizer="simple") == ["hello", "world", "it", "s", "2024", "naïve", "café"]
    assert tokens_of([str(p)], tokenizer="char")[:6] == list("Hello,")
    assert " " not in tokens_of([str(p)], tokenizer="char")


@pytest.mark.parametrize("threads", [1, 2])
def test_scan_lowercases_with_the_whitespace_tokenizer(tmp_path, threads):
    p = tmp_path / "t.txt"
    text = "The CAT saw the Cat\nÉté été\n"
    p.write_text(text, encoding="utf-8")
    sc = scan_corpus([str(p)], lowercase=True, threads=threads)
    want = text.lower().split()
    assert sc.words == list(dict.fromkeys(want))
    assert sc.counts.tolist() == [want.count(w) for w in sc.words]
    sc.stream.close()


@pytest.mark.parametrize("tokenizer,lowercase", [("whitespace", False), ("whitespace", True), ("simple", False)])
def test_scan_progress_ends_at_the_whole_input_and_every_token(tmp_path, tokenizer, lowercase):
    p = tmp_path / "t.txt"
    p.write_text("alpha beta gamma\ndelta epsilon\n" * 40, encoding="ascii")   # ASCII: characters = bytes
    calls = []
    sc = scan_corpus([str(p)], tokenizer=tokenizer, lowercase=lowercase, chunk_chars=64,
                     progress=lambda done, tokens: calls.append((done, tokens)))
    assert calls and calls == sorted(calls)
    assert calls[-1] == (p.stat().st_size, sc.n_tokens) and sc.n_tokens == 200
    sc.stream.close()


def test_bad_inputs(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        resolve_inputs([str(tmp_path / "missing.txt")])
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises(CorpusError, match="no readable files"):
        resolve_inputs([str(empty_dir)])
    with pytest.raises(CorpusError, match="no corpus given"):
        resolve_inputs(None)
    with pytest.raises(CorpusError, match="more than once"):
        resolve_inputs(["-", "-"])
    with pytest.raises(ParameterError, match="a corpus is a path or a list of paths"):
        resolve_inputs(5)
    with pytest.raises(ParameterError, match="a corpus is a path or a list of paths"):
        resolve_inputs([str(tmp_path), 3])
    (tmp_path / "one.txt").write_text("a b")
    assert resolve_inputs(os.fsencode(tmp_path / "one.txt")) == [str(tmp_path / "one.txt")]   # bytes, as open()
    blank = tmp_path / "blank.txt"
    blank.write_text("  \n\n \t\n")
    with pytest.raises(CorpusError, match="empty"):
        scan_corpus([str(blank)])
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.txt"
        locked.write_text("a b")
        locked.chmod(0)
        with pytest.raises(CorpusError):
            resolve_inputs([str(locked)])


def test_corrupt_compressed_file_is_a_corpus_error(tmp_path):
    p = tmp_path / "broken.xz"
    data = lzma.compress(b"hello world " * 1000)
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorpusError, match="broken.xz"):
        scan_corpus([str(p)])


def test_scan_counts_first_occurrence_and_sentinels(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("b a b\n\nc b a\n")
    sc = scan_corpus([str(p)])
    assert sc.words == ["b", "a", "c"]
    assert sc.counts.tolist() == [3, 2, 1]
    assert sc.n_tokens == 6
    sc.stream.finish()
    ids = sc.stream.read(0, 100).tolist()
    # the blank line is an empty sentence: repeated sentinels (collapsed later by encode_corpus)
    collapsed = [x for i, x in enumerate(ids) if not (x == SENTINEL and i and ids[i - 1] == SENTINEL)]
    assert collapsed == [0, 1, 0, SENTINEL, 2, 0, 1, SENTINEL]


@pytest.mark.parametrize("budget", [0, 1 << 30])
def test_encode_drops_oov_and_collapses_empty_sentences(tmp_path, budget):
    p = tmp_path / "c.txt"
    p.write_text("b a b\nc b a\n" * 3 + "rare z\n")
    sc = scan_corpus([str(p)], memory_budget=budget)
    assert sc.stream.on_disk == (budget == 0)
    vocab, remap = build_vocab(sc.words, sc.counts, min_count=2)
    enc = encode_corpus(sc, remap, len(vocab))
    ids = np.concatenate([b for _, b in enc.blocks(4)]).tolist()
    b, a, c = vocab.index["b"], vocab.index["a"], vocab.index["c"]
    assert ids == [b, a, b, SENTINEL, c, b, a, SENTINEL] * 3   # "rare z" is all OOV: gone
    assert enc.n_words == 18
    enc.close()


def _remap_reference(ids, remap, after_sentinel):
    """Plain NumPy: look up, drop OOV (-2), drop a sentinel that follows a sentinel."""
    new = np.where(ids == SENTINEL, SENTINEL, remap[np.maximum(ids, 0)])
    new = new[new != -2]
    if new.size == 0:
        return new
    sent = new == SENTINEL
    prev = np.concatenate([[after_sentinel], sent[:-1]])
    return new[~(sent & prev)]


def test_remap_ids_equals_the_numpy_reference_block_by_block():
    from w2v.text.encoded import id_table, remap_ids
    rng = np.random.default_rng(7)
    for trial in range(200):
        nwords = int(rng.integers(1, 30))
        remap = np.where(rng.random(nwords) < 0.3, -2, rng.permutation(nwords)).astype(np.int32)
        ids = rng.integers(-1, nwords, int(rng.integers(0, 60))).astype(np.int32)
        after = bool(rng.integers(2))
        got = remap_ids(ids, id_table(remap), after)
        assert got.dtype == np.int32
        assert got.tolist() == _remap_reference(ids, remap, after).tolist(), (trial, ids, remap, after)


def test_remap_ids_refuses_an_id_outside_the_table():
    from w2v.text.encoded import id_table, remap_ids
    table = id_table(np.array([0, -2, 1], np.int32))
    for bad in (3, 1000, -2, -(2 ** 31)):
        with pytest.raises(CorpusError, match="outside"):
            remap_ids(np.array([0, bad, 1], np.int32), table, True)


def test_idstream_spill_equals_memory():
    rng = np.random.default_rng(1)
    parts = [rng.integers(-1, 100, rng.integers(0, 50)).astype(np.int32) for _ in range(40)]
    mem, disk = IdStream(1 << 30), IdStream(64)
    for p in parts:
        mem.append(p)
        disk.append(p)
    mem.finish()
    disk.finish()
    assert disk.on_disk and not mem.on_disk
    assert np.array_equal(mem.read(0, 10 ** 6), disk.read(0, 10 ** 6))
    assert np.array_equal(mem.read(37, 100), disk.read(37, 100))


def test_idstream_spills_only_beyond_its_budget_and_keeps_the_ids_before_the_spill():
    stream = IdStream(40)                                  # 10 int32 ids
    stream.append(np.arange(6))
    stream.append(np.arange(6, 10))
    assert not stream.on_disk                              # exactly the budget: still in RAM
    stream.append(np.arange(10, 11))
    assert stream.on_disk
    stream.append(np.arange(11, 15))
    stream.finish()
    assert stream.length == 15 and stream.read(0, 100).tolist() == list(range(15))
    stream.close()


def test_idstream_in_ram_grows_on_after_finish():
    stream = IdStream(1 << 20)
    stream.append(np.arange(3))
    stream.finish()
    stream.append(np.arange(3, 5))
    stream.finish()
    assert not stream.on_disk and stream.read(0, 100).tolist() == list(range(5))


def test_idstream_spill_after_finish_keeps_the_finished_ids():
    # the spill once wrote only the parts appended since finish(): the earlier ids were lost
    stream = IdStream(40)
    stream.append(np.arange(10))
    stream.finish()
    stream.append(np.arange(10, 15))                       # beyond the budget: spills
    assert stream.on_disk
    assert stream.read(0, 100).tolist() == list(range(15))


def test_idstream_on_disk_refuses_a_truncated_file():
    stream = IdStream(0)
    stream.append(np.arange(100))
    stream.finish()
    stream._file.truncate(40)                  # what a full disk leaves behind
    assert stream.read(0, 10).tolist() == list(range(10))
    with pytest.raises(CorpusError, match="truncated"):
        stream.read(0, 100)
    stream.close()


@pytest.mark.parametrize("budget", [0, 1 << 30])
def test_idstream_rewrite_that_filters_equals_numpy_over_many_blocks(budget):
    rng = np.random.default_rng(11)
    ids = rng.integers(-1, 20, 1000).astype(np.int32)
    stream = IdStream(budget)
    for part in np.array_split(ids, 9):
        stream.append(part)
    stream.finish()
    assert stream.on_disk == (budget == 0)
    stream.rewrite(lambda block: block[block % 3 != 0] * 2, block=37)
    want = ids[ids % 3 != 0] * 2
    assert stream.length == want.size
    assert np.array_equal(stream.read(0, 10 ** 6), want)
    stream.close()


@pytest.mark.parametrize("budget", [0, 1 << 30])
def test_encode_carries_the_sentence_state_across_rewrite_blocks(budget):
    # the stream is rewritten in blocks of 2**20 ids: a sentinel that opens a block after a
    # word ends a sentence and must stay; one that follows a sentinel (or nothing) is dropped
    from w2v.text.scanning import ScannedCorpus
    block = 1 << 20
    rng = np.random.default_rng(12)
    nwords = 40
    remap = np.where(np.arange(nwords) % 4 == 3, -2, np.arange(nwords)).astype(np.int32)
    ids = rng.integers(-1, nwords, 3 * block + 5).astype(np.int32)
    ids[block - 1], ids[block] = 0, SENTINEL               # a word ends block 0, a sentinel opens block 1
    ids[2 * block:3 * block] = 3                           # block 2: only a word outside the vocabulary
    ids[3 * block - 1], ids[3 * block] = SENTINEL, SENTINEL
    stream = IdStream(budget)
    stream.append(ids)
    counts = np.bincount(ids[ids >= 0], minlength=nwords)
    sc = ScannedCorpus([f"w{i}" for i in range(nwords)], counts, stream, int(counts.sum()), 0, ["x"])
    stream.finish()
    vocab_size = int(remap.max()) + 1
    enc = encode_corpus(sc, remap, vocab_size)
    want = _remap_reference(ids, remap, True)
    assert enc.length == want.size
    assert np.array_equal(np.concatenate([b for _, b in enc.blocks(block)]), want)
    assert enc.n_words == int(counts[remap >= 0].sum())
    enc.close()


def test_encoded_blocks_refuse_an_id_outside_the_vocabulary():
    # the training kernels have no bounds checks: vocab_size itself is one past the end
    from w2v.text.encoded import EncodedCorpus
    for bad in (3, -2):
        stream = IdStream()
        stream.append(np.array([0, 1, SENTINEL, 2, bad, SENTINEL], np.int32))
        stream.finish()
        enc = EncodedCorpus(stream, 4, vocab_size=3)
        with pytest.raises(CorpusError, match="outside the vocabulary"):
            list(enc.blocks(4))
    stream = IdStream()
    stream.append(np.array([0, 1, SENTINEL, 2, SENTINEL], np.int32))
    stream.finish()
    assert [b.tolist() for _, b in EncodedCorpus(stream, 4, vocab_size=3).blocks(4)] == [[0, 1, -1, 2], [-1]]


# --------------------------------------------------------------------------- byte-level scan
# Every character str.split() treats as whitespace, and bytes that are not valid UTF-8.
_SPACES = ["\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", " ", "\x85", "\xa0", "\u1680",
           "\u2000", "\u2005", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
_WORDS = ["a", "bb", "é", "日本", "\u200b", "\ufffd", "\u2001x", "x\u180e"]   # U+200B, U+180E: not spaces
_RAW = [b"\xff", b"\xfe", b"\xe2\x80", b"\xc2", b"\xe2", b"\xe1\x9a", b"\xe3\x80", b"\xef\xbf\xbd",
        b"\xed\xa0\x80", b"\x80", b"\xf0\x9f\x98", b"\xc2\xc2\xa0"]


def scan_via_text(paths, chunk):
    """The same corpus read as decoded text, split by str.split and counted in a dict, for comparison."""
    index = {}
    counts = []
    ids = []
    n_sentences = 0
    for toks, ends in iter_token_lines(resolve_inputs(paths), "whitespace", False, chunk):
        for t in toks:
            if t not in index:
                index[t] = len(index)
                counts.append(0)
            counts[index[t]] += 1
            ids.append(index[t])
        if ends:
            ids.append(SENTINEL)
            n_sentences += 1
    return (list(index), np.array(counts, np.int64), np.array(ids, np.int32), len(ids) - n_sentences,
            n_sentences)


def test_the_whitespace_tokenizer_sees_every_str_isspace_character():
    import sys as _sys
    spaces = {c for c in range(_sys.maxunicode + 1) if chr(c).isspace()}
    assert spaces == {ord(c) for c in _SPACES} | {0x2001, 0x2002, 0x2003, 0x2004, 0x2006, 0x2007, 0x2008,
                                                  0x2009}


@pytest.mark.filterwarnings("ignore::w2v.errors.CorpusWarning")   # bad bytes on purpose (reported: see above)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
def test_byte_scan_equals_text_scan_on_unicode_spaces_and_bad_bytes(tmp_path, chunk, threads):
    rng = np.random.default_rng(chunk)
    allspaces = _SPACES + ["\u2001", "\u2002", "\u2003", "\u2004", "\u2006", "\u2007", "\u2008", "\u2009"]
    for trial in range(40):
        parts = []
        for k in range(int(rng.integers(0, 80))):
            if k % 8 == 7:          # tokens stay under 64 bytes: no forced cut of an overlong token
                parts.append(b" ")
                continue
            u = rng.random()
            if u < 0.25:
                parts.append(_RAW[rng.integers(len(_RAW))])
            elif u < 0.6:
                parts.append(allspaces[rng.integers(len(allspaces))].encode())
            else:
                parts.append(_WORDS[rng.integers(len(_WORDS))].encode())
        p = tmp_path / f"t{trial}.txt"
        p.write_bytes(b"".join(parts))
        q = tmp_path / f"u{trial}.txt"
        q.write_bytes(b"".join(reversed(parts)))
        want_words, want_counts, want_ids, want_tokens, want_sentences = scan_via_text([str(p), str(q)], chunk)
        if want_tokens == 0:
            continue
        got = scan_corpus([str(p), str(q)], chunk_chars=chunk, threads=threads)
        assert got.words == want_words, (trial, b"".join(parts))
        assert np.array_equal(got.counts, want_counts)
        assert np.array_equal(got.stream.read(0, got.stream.length), want_ids)
        assert (got.n_tokens, got.n_sentences) == (want_tokens, want_sentences)
        got.stream.close()


@pytest.mark.filterwarnings("ignore::w2v.errors.CorpusWarning")   # bad bytes on purpose (reported: see above)
def test_byte_strings_that_decode_alike_are_one_word(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"\xff x \xfe \xef\xbf\xbd x\n\xff")     # three spellings of U+FFFD
    sc = scan_corpus([str(p)])
    assert sc.words == ["\ufffd", "x"]
    assert sc.counts.tolist() == [4, 2]
    assert sc.stream.read(0, sc.stream.length).tolist() == [0, 1, 0, 0, 1, SENTINEL, 0, SENTINEL]


@pytest.mark.parametrize("threads", [1, 2])
def test_byte_scan_grows_its_tables_and_counts_exactly(tmp_path, threads):
    # chunks of 4 KiB: many chunks, so that with 2 threads splitting and counting overlap
    from collections import Counter
    rng = np.random.default_rng(3)
    words = [f"w{int(i)}" for i in rng.zipf(1.3, 300_000) % 200_000]
    p = tmp_path / "many.txt"
    p.write_text(" ".join(words[:150_000]) + "\n" + " ".join(words[150_000:]), encoding="utf-8")
    sc = scan_corpus([str(p)], chunk_chars=4096, threads=threads)
    want = Counter(words)
    assert len(sc.words) == len(want)
    assert dict(zip(sc.words, sc.counts.tolist())) == dict(want)
    assert sc.words == list(dict.fromkeys(words))                      # first-occurrence order
    ids = sc.stream.read(0, sc.stream.length)
    assert [sc.words[i] for i in ids[ids >= 0]] == words


def test_byte_vocabulary_keeps_each_word_once_as_its_table_grows():
    # scan_corpus merges words that decode alike, which would hide a word the table lost on
    # growing (added again under a second id): the vocabulary itself must hold it once
    from collections import Counter

    from w2v.kernels.tokenize import ByteVocabulary, TokenItems
    rng = np.random.default_rng(9)
    lines = [" ".join(f"w{int(i)}" for i in rng.zipf(1.2, 500) % 3000) for _ in range(12)]
    vocab = ByteVocabulary(16)                        # a 32-slot table: rebuilt many times
    items = TokenItems()
    ids = []
    for line in lines:
        buf = np.frombuffer((line + "\n").encode(), np.uint8)
        consumed, n_items = items.split(buf, buf.size, True)
        assert consumed == buf.size
        written, newlines = vocab.count(buf, items, n_items)
        assert newlines == 1
        ids.extend(items.ids[:written].tolist())
    tokens = " \n ".join(lines).split(" ") + ["\n"]
    assert vocab.words() == list(dict.fromkeys(t for t in tokens if t != "\n"))
    want = Counter(t for t in tokens if t != "\n")
    assert vocab.counts[:vocab.size].tolist() == [want[w] for w in vocab.words()]
    assert [vocab.words()[i] if i >= 0 else "\n" for i in ids] == tokens


def test_byte_scan_counts_words_longer_than_its_first_arena(tmp_path):
    # the byte vocabulary keeps every word's bytes in an arena of 1 MiB at first
    p = tmp_path / "long.txt"
    a, b = "a" * 600_000, "b" * 700_000
    p.write_text(f"{a} {b} {a}\n", encoding="ascii")
    sc = scan_corpus([str(p)])
    assert sc.words == [a, b] and sc.counts.tolist() == [2, 1]
    assert sc.stream.read(0, sc.stream.length).tolist() == [0, 1, 0, SENTINEL, SENTINEL]
    sc.stream.close()


def test_an_unreadable_file_or_folder_inside_a_corpus_directory_is_an_error(tmp_path, monkeypatch):
    # skipping it would train on part of the corpus without a word (permissions do not
    # bind root, which runs CI here, so os.access and os.scandir stand in for them)
    import w2v.text.scanning as corpus_module

    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    for name in ("a.txt", "b.txt", "sub/c.txt"):
        (d / name).write_text("one two three\n")
    assert resolve_inputs([str(d)]) == [str(d / "a.txt"), str(d / "b.txt"), str(d / "sub" / "c.txt")]
    real_access = os.access
    monkeypatch.setattr(corpus_module.os, "access",
                        lambda p, mode: not str(p).endswith("b.txt") and real_access(p, mode))
    with pytest.raises(CorpusError, match="b.txt: permission denied"):
        resolve_inputs([str(d)])
    monkeypatch.setattr(corpus_module.os, "access", real_access)
    real_scandir = os.scandir

    def scandir(path="."):
        if str(path).endswith("sub"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(CorpusError, match="sub: Permission denied"):
        resolve_inputs([str(d)])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("chunk", [3, 4, 7])
def test_a_forced_cut_of_an_overlong_token_never_splits_a_character(tmp_path, chunk, threads):
    # a run without whitespace longer than 64 chunks is cut; the byte scan must cut it
    # between characters, not inside one (both halves would become U+FFFD, with a warning)
    p = tmp_path / "long.txt"
    for tok in ["é" * 500, "a" + "日" * 300, "😀" * 200]:
        p.write_text("start " + tok + " end\n", encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("error", CorpusWarning)
            sc = scan_corpus([str(p)], chunk_chars=chunk, threads=threads)
        toks = [sc.words[i] for i in sc.stream.read(0, sc.stream.length) if i >= 0]
        assert len(toks) > 3 and "".join(toks[1:-1]) == tok and (toks[0], toks[-1]) == ("start", "end")
        # cut after 64 chunks (plus what was carried into the first of them): memory stays bounded
        assert max(len(t.encode()) for t in toks) < 65 * chunk
        sc.stream.close()


@pytest.mark.parametrize("tokenizer,lowercase", [("whitespace", True), ("simple", False), ("char", False)])
def test_text_scan_cuts_a_run_without_any_separator_into_pieces_of_64_chunks(tmp_path, tokenizer, lowercase):
    # memory stays bounded: the run comes out in pieces of at most 64 chunks, none lost
    run = "abcdefghij" * 100
    p = tmp_path / "run.txt"
    p.write_text("x " + run + " y\n", encoding="utf-8")
    toks = tokens_of([str(p)], tokenizer=tokenizer, lowercase=lowercase, chunk_chars=3)
    assert "".join(toks) == "x" + run + "y"
    if tokenizer != "char":
        assert len(toks) > 3 and (toks[0], toks[-1]) == ("x", "y")
        assert max(len(t) for t in toks) < 65 * 3     # 64 chunks and what was carried into the first


@pytest.mark.parametrize("sep", ["\x0b", "\x0c", "\x1c", "\u00a0", "\u3000", ","])
@pytest.mark.parametrize("tokenizer,lowercase", [("whitespace", True), ("simple", False)])
def test_text_scan_cuts_a_long_run_at_any_separator_not_inside_a_token(tmp_path, sep, tokenizer, lowercase):
    # no ASCII space, tab or line end for more than 64 chunks: the cut must still fall
    # at a separator the tokenizer splits at, not inside a word
    rng = np.random.default_rng(0)
    words = ["".join("abcdefg"[k] for k in rng.integers(0, 7, rng.integers(1, 12))) for _ in range(300)]
    if sep == "," and tokenizer == "whitespace":
        sep = ", "                      # one 3,000-character word otherwise (cut: it has no separator)
    text = sep.join(words)
    p = tmp_path / "seps.txt"
    p.write_text(text, encoding="utf-8")
    want = text.split() if tokenizer == "whitespace" else words
    assert tokens_of([str(p)], tokenizer=tokenizer, lowercase=lowercase, chunk_chars=5) == want
