import bz2
import gzip
import io
import lzma
import os
import sys

import numpy as np
import pytest

from w2v.corpus import (SENTINEL, IdStream, encode_corpus, iter_token_lines, resolve_inputs, scan_corpus)
from w2v.errors import CorpusError
from w2v.vocab import build_vocab


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


@pytest.mark.parametrize("opener,suffix", [(gzip.open, ".gz"), (bz2.open, ".bz2"), (lzma.open, ".xz")])
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
    assert tokens_of([str(tmp_path)]) == ["one", "two", "three"]


def test_undecodable_bytes_are_replaced(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"caf\xe9 ok \xff\xfe word\n")
    toks = tokens_of([str(p)])
    assert toks[1] == "ok" and toks[-1] == "word" and "\ufffd" in toks[0]


def test_stdin(monkeypatch):
    fake = io.TextIOWrapper(io.BytesIO(b"x y z\nx\n"))
    monkeypatch.setattr(sys, "stdin", fake)
    assert tokens_of(["-"]) == ["x", "y", "z", "x"]


def test_tokenizers(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("Hello, World! It's 2024 -- naïve_Café\n", encoding="utf-8")
    assert tokens_of([str(p)]) == ["Hello,", "World!", "It's", "2024", "--", "naïve_Café"]
    assert tokens_of([str(p)], lowercase=True) == ["hello,", "world!", "it's", "2024", "--", "naïve_café"]
    assert tokens_of([str(p)], tokenizer="simple") == ["hello", "world", "it", "s", "2024", "naïve", "café"]
    assert tokens_of([str(p)], tokenizer="char")[:6] == list("Hello,")
    assert " " not in tokens_of([str(p)], tokenizer="char")


def test_bad_inputs(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        resolve_inputs([str(tmp_path / "missing.txt")])
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises(CorpusError, match="no readable files"):
        resolve_inputs([str(empty_dir)])
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
