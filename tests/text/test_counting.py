"""The vocabulary count past its memory budget: spilled to disk, merged, exact (w2v.text.counting)."""
import bz2
import errno
import gzip
import io
import lzma
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from w2v.errors import BudgetError, CorpusError, CorpusWarning
from w2v.text import counting, spill
from w2v.text.encoded import SENTINEL, UNLISTED, encode_corpus
from w2v.text.scanning import scan_corpus
from w2v.text.vocab import ListedWords, build_vocab, final_vocab_min_count, kept_words

TINY = 20_000   # bytes: counting tables of about a hundred words, so that a small corpus spills many times


@pytest.fixture
def tiny_tables(monkeypatch):
    """Let a budget of a few KiB hold the counting tables and the listed words (normally at least
    MIN_TABLE_BYTES, and 80 bytes per listed word beside its bytes)."""
    monkeypatch.setattr(counting, "MIN_TABLE_BYTES", 0)
    monkeypatch.setattr(counting, "LISTED_WORD_BYTES", 0)


def make_corpus(seed, n_tokens=30_000, zipf_words=1500, unique=2000, line=40):
    """Tokens of a Zipf vocabulary plus ``unique`` words seen once, on lines of about ``line`` tokens."""
    rng = np.random.default_rng(seed)
    ids = rng.zipf(1.2, n_tokens) % zipf_words
    tokens = [f"w{i}" for i in ids]
    for k, pos in enumerate(rng.choice(n_tokens, unique, replace=False)):
        tokens[pos] = f"u{k}x"
    lines, i = [], 0
    while i < len(tokens):
        n = int(rng.integers(0, 2 * line))
        lines.append(" ".join(tokens[i:i + n]))
        i += n
    return "\n".join(lines) + "\n"


def ids_of(scanned):
    return scanned.stream.read(0, scanned.stream.length).copy()


def scan_both(paths, budget=TINY, **kw):
    """The in-memory scan and the spilled one of ``paths``."""
    ref = scan_corpus(paths, **{k: v for k, v in kw.items() if k != "min_count"})
    assert ref.spill is None and ref.count_floor == 1
    got = scan_corpus(paths, memory_budget=budget, **kw)
    assert got.spill is not None and got.spill["generations"] > 3, got.spill
    return ref, got


# --------------------------------------------------------------------------- same result as in memory
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("chunk", [97, 4096])
def test_a_spilled_scan_lists_the_words_counts_and_ids_of_the_in_memory_scan(tmp_path, tiny_tables, threads,
                                                                            chunk):
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(threads * chunk), encoding="utf-8")
    ref, got = scan_both([str(p)], threads=threads, chunk_chars=chunk)
    assert isinstance(got.words, ListedWords) and got.count_floor == 1
    assert list(got.words) == ref.words                       # every word, in order of first occurrence
    assert np.array_equal(got.counts, ref.counts)
    assert np.array_equal(ids_of(got), ids_of(ref))           # the same provisional ids
    assert (got.n_tokens, got.n_sentences, got.n_distinct) == (ref.n_tokens, ref.n_sentences, len(ref.words))


@pytest.mark.parametrize("tokenizer,lowercase", [("whitespace", True), ("simple", False), ("char", False)])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_python_tokenizers_spill_too(tmp_path, tiny_tables, tokenizer, lowercase, threads):
    text = make_corpus(23).replace("w1", "W1,é").replace("u1", "U-1") + "Ω ω. ΩΩ\n"
    if tokenizer == "char":                       # enough distinct characters to fill a few tables
        text += " ".join(chr(c) for c in range(0x4E00, 0x4E00 + 2000)) + "\n"
    p = tmp_path / "c.txt"
    p.write_text(text, encoding="utf-8")
    kw = dict(tokenizer=tokenizer, lowercase=lowercase, threads=threads, chunk_chars=1000)
    ref, got = scan_both([str(p)], budget=2 * TINY, **kw)
    assert list(got.words) == ref.words and np.array_equal(got.counts, ref.counts)
    assert np.array_equal(ids_of(got), ids_of(ref))
    assert (got.n_tokens, got.n_sentences) == (ref.n_tokens, ref.n_sentences)
    present = {"whitespace": ("ωω", "ω."), "simple": ("ωω", "ω"), "char": ("Ω", ".")}[tokenizer]
    absent = {"whitespace": "Ω", "simple": "ω.", "char": "ωω"}[tokenizer]
    assert set(present) <= set(got.words) and absent not in got.words


@pytest.mark.parametrize("min_count,max_vocab", [(2, None), (3, None), (5, 40), (2, 7)])
def test_a_spilled_scan_gives_the_vocabulary_and_encoded_corpus_of_the_in_memory_scan(tmp_path, tiny_tables,
                                                                                     min_count, max_vocab):
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(min_count), encoding="utf-8")
    ref, got = scan_both([str(p)], min_count=min_count)
    assert got.count_floor == min_count and got.n_distinct == len(ref.words)
    listed = ref.counts >= min_count
    assert list(got.words) == [w for w, k in zip(ref.words, listed) if k]
    assert np.array_equal(got.counts, ref.counts[listed])
    ids = ids_of(got)
    assert np.array_equal(ids == UNLISTED, np.isin(ids_of(ref), np.flatnonzero(~listed)))
    for scanned in (ref, got):
        eff = final_vocab_min_count(scanned.counts, min_count, None)
        scanned.vocab, scanned.remap = build_vocab(scanned.words, scanned.counts, eff, max_vocab,
                                                   kept_words(scanned.words, scanned.counts, eff))
    assert got.vocab.words == ref.vocab.words and np.array_equal(got.vocab.counts, ref.vocab.counts)
    a = encode_corpus(ref, ref.remap, len(ref.vocab))
    b = encode_corpus(got, got.remap, len(got.vocab))
    assert (a.n_words, a.length) == (b.n_words, b.length)
    assert np.array_equal(a.stream.read(0, a.length), b.stream.read(0, b.length))


def test_ties_keep_their_order_of_first_occurrence_across_generations_and_partitions(tmp_path, tiny_tables):
    # 600 words seen exactly twice each, first in one order, then again much later; between them
    # junk that fills many generations: equal counts, first occurrences in different generations
    rng = np.random.default_rng(5)
    twice = [f"t{i}" for i in rng.permutation(600)]
    junk = [f"j{i}" for i in range(3000)]
    text = " ".join(twice[:300]) + "\n" + " ".join(junk) + "\n" + " ".join(twice[300:]) + "\n" \
        + " ".join(reversed(twice)) + "\n"
    p = tmp_path / "ties.txt"
    p.write_text(text, encoding="utf-8")
    ref, got = scan_both([str(p)], min_count=2)
    assert list(got.words) == twice and got.counts.tolist() == [2] * 600
    vocab, _ = build_vocab(got.words, got.counts, 2)
    assert vocab.words == build_vocab(ref.words, ref.counts, 2)[0].words == twice


def test_a_partition_too_large_for_the_budget_is_split_before_it_is_merged(tmp_path, tiny_tables, monkeypatch):
    splits = []
    real = counting.BoundedCount._split

    def spy(self, files, index, level, listing, resolved):
        splits.append(level)
        return real(self, files, index, level, listing, resolved)

    monkeypatch.setattr(counting.BoundedCount, "_split", spy)
    monkeypatch.setattr(counting, "PARTITIONS", 2)
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(11), encoding="utf-8")
    ref, got = scan_both([str(p)])
    assert splits and max(splits) >= 1                      # split, and a part of a split split again
    assert list(got.words) == ref.words and np.array_equal(got.counts, ref.counts)
    assert np.array_equal(ids_of(got), ids_of(ref))


@pytest.mark.filterwarnings("ignore::w2v.errors.CorpusWarning")
def test_byte_strings_that_decode_alike_are_one_word_across_generations(tmp_path, tiny_tables):
    # three spellings of U+FFFD and two of "a\ufffd", far apart: first seen in different generations
    junk = " ".join(f"j{i}" for i in range(2000)).encode()
    data = b"\xff x a\xfe " + junk + b" \xef\xbf\xbd a\xef\xbf\xbd\n" + junk.replace(b"j", b"k") + b" \xfe a\xc2\n"
    p = tmp_path / "bad.txt"
    p.write_bytes(data)
    ref, got = scan_both([str(p)])
    assert list(got.words) == ref.words and np.array_equal(got.counts, ref.counts)
    assert np.array_equal(ids_of(got), ids_of(ref))
    assert got.counts[got.words.index("\ufffd")] == 3 and got.counts[got.words.index("a\ufffd")] == 3


def test_words_left_out_still_count_in_the_replaced_bytes_warning(tmp_path, tiny_tables):
    junk = " ".join(f"j{i}" for i in range(2000)).encode()
    p = tmp_path / "bad.txt"
    p.write_bytes(b"\xffa b b " + junk + b" c\xfe \xffa\n")
    messages = []
    for budget, min_count in ((None, 1), (TINY, 2)):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            kw = {} if budget is None else {"memory_budget": budget, "min_count": min_count}
            sc = scan_corpus([str(p)], **kw)
        messages.append([str(w.message) for w in record if issubclass(w.category, CorpusWarning)])
        assert (sc.spill is not None) == (budget is not None)
    assert messages[0] == messages[1] and "3 tokens (2 distinct words) hold it" in messages[0][0]


# --------------------------------------------------------------------------- inputs
def test_stdin_through_a_pipe_spills_and_counts_exactly(tiny_tables, monkeypatch, tmp_path):
    import threading
    text = make_corpus(21)
    p = tmp_path / "c.txt"
    p.write_text(text, encoding="utf-8")
    ref = scan_corpus([str(p)])
    r, w = os.pipe()                                   # read once: no seek, no second pass

    def feed():
        with os.fdopen(w, "wb") as f:
            f.write(gzip.compress(text.encode()))

    writer = threading.Thread(target=feed)
    writer.start()
    with os.fdopen(r, "rb") as raw:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(raw))
        got = scan_corpus(["-"], memory_budget=TINY, min_count=2)
    writer.join()
    assert got.spill["generations"] > 3
    keep = ref.counts >= 2
    assert list(got.words) == [w for w, k in zip(ref.words, keep) if k]
    assert np.array_equal(got.counts, ref.counts[keep])


@pytest.mark.parametrize("opener,suffix", [(gzip.open, ".gz"), (bz2.open, ".bz2"), (lzma.open, ".xz")])
def test_a_compressed_corpus_spills_and_counts_exactly(tmp_path, tiny_tables, opener, suffix):
    text = make_corpus(len(suffix))
    plain = tmp_path / "c.txt"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / f"c.txt{suffix}"
    with opener(packed, "wt", encoding="utf-8") as f:
        f.write(text)
    ref = scan_corpus([str(plain)])
    got = scan_corpus([str(packed)], memory_budget=TINY, threads=2)
    assert got.spill["generations"] > 3
    assert list(got.words) == ref.words and np.array_equal(got.counts, ref.counts)
    assert np.array_equal(ids_of(got), ids_of(ref))


# --------------------------------------------------------------------------- the temporary files
def spill_fds(folder):
    """This process' open files in ``folder`` (anonymous temporary files show as deleted ones there)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder) + "/"):
            found.append(target)
    return found


def test_the_spill_files_are_anonymous_and_closed_after_a_scan(tmp_path, tiny_tables, monkeypatch):
    folder = tmp_path / "tmp"
    folder.mkdir()
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(3), encoding="utf-8")
    seen = []
    real = counting.BoundedCount._merge

    def spy(self, *args):
        seen.append(len(spill_fds(folder)))
        return real(self, *args)

    monkeypatch.setattr(counting.BoundedCount, "_merge", spy)
    sc = scan_corpus([str(p)], memory_budget=TINY, tmpdir=str(folder))
    assert max(seen) > 1                         # the partition files were open in that folder...
    assert os.listdir(folder) == []              # ...without a name there
    sc.stream.close()
    assert spill_fds(folder) == []               # and closed once the scan is over


def test_the_spill_files_are_closed_after_an_exception(tmp_path, tiny_tables, monkeypatch):
    folder = tmp_path / "tmp"
    folder.mkdir()
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(4), encoding="utf-8")

    def interrupted(self, *args):
        assert spill_fds(folder)
        raise KeyboardInterrupt

    monkeypatch.setattr(counting.BoundedCount, "_rewrite", interrupted)
    with pytest.raises(KeyboardInterrupt):
        scan_corpus([str(p)], memory_budget=TINY, tmpdir=str(folder), threads=2)
    assert spill_fds(folder) == [] and os.listdir(folder) == []


class FullDisk:
    """A temporary file that takes ``room`` bytes, then fails as a full disk does."""

    def __init__(self, fh, room):
        self.fh = fh
        self.room = room

    def write(self, data):
        n = memoryview(data).nbytes
        if n > self.room[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room[0] -= n
        return self.fh.write(data)

    def __getattr__(self, name):
        return getattr(self.fh, name)


@pytest.mark.parametrize("room", [0, 5_000, 60_000])
def test_a_full_disk_during_the_spill_is_a_corpus_error_naming_the_folder(tmp_path, tiny_tables, monkeypatch,
                                                                          room):
    folder = tmp_path / "tmp"
    folder.mkdir()
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(6), encoding="utf-8")
    left = [room]
    real = spill.open_temporary
    monkeypatch.setattr(spill, "open_temporary", lambda d: FullDisk(real(d), left))
    with pytest.raises(CorpusError) as info:
        scan_corpus([str(p)], memory_budget=TINY, tmpdir=str(folder), threads=2)
    message = str(info.value)
    assert f"cannot spill the vocabulary counts to a temporary file in {folder}: No space left on device" \
        in message and "--memory-budget" in message and "\n" not in message
    assert spill_fds(folder) == [] and os.listdir(folder) == []


def test_a_temporary_folder_that_cannot_be_written_is_named_in_the_error(tmp_path, tiny_tables):
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(7), encoding="utf-8")
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    with pytest.raises(CorpusError, match=f"temporary file in {not_a_folder}: "):
        scan_corpus([str(p)], memory_budget=TINY, tmpdir=str(not_a_folder))


def test_a_corpus_that_fits_writes_no_temporary_file(tmp_path, monkeypatch):
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(8), encoding="utf-8")
    monkeypatch.setattr(spill, "open_temporary", lambda d: pytest.fail("a temporary file was made"))
    sc = scan_corpus([str(p)], memory_budget=64 << 20)
    assert sc.spill is None and type(sc.words) is list and not sc.stream.on_disk


def test_sigterm_during_a_spilled_scan_leaves_no_file(tmp_path):
    folder = tmp_path / "tmp"
    folder.mkdir()
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(9, n_tokens=300_000, unique=40_000), encoding="utf-8")
    child = textwrap.dedent(f"""
        import os, signal, sys
        from w2v.text import counting
        from w2v.text.scanning import scan_corpus
        counting.MIN_TABLE_BYTES = 0
        real = counting.BoundedCount._merge
        def merge(self, *args):
            print("merging", flush=True)
            sys.stdin.readline()                  # wait here until the test has looked, then killed us
            return real(self, *args)
        counting.BoundedCount._merge = merge
        scan_corpus([{str(p)!r}], memory_budget={TINY * 20}, tmpdir={str(folder)!r})
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "merging"
        held = [os.readlink(f"/proc/{proc.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{proc.pid}/fd")]
        assert sum(h.startswith(str(folder) + "/") for h in held) > 1
        proc.terminate()
        assert proc.wait(timeout=60) == -15
    finally:
        proc.kill()
    assert os.listdir(folder) == []


# --------------------------------------------------------------------------- the budget and what it lists
def test_a_budget_too_small_for_the_listed_words_says_the_smallest_that_works(tmp_path, monkeypatch):
    monkeypatch.setattr(counting, "MIN_TABLE_BYTES", 0)
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(12), encoding="utf-8")
    with pytest.raises(BudgetError) as info:
        scan_corpus([str(p)], memory_budget=TINY, min_count=1)
    needed = info.value.needed
    assert needed > TINY and "give --memory-budget 1 (MiB) or more" in str(info.value)
    assert scan_corpus([str(p)], memory_budget=needed).count_floor == 1        # enough
    with pytest.raises(BudgetError):
        scan_corpus([str(p)], memory_budget=needed - 1)                        # the smallest
    assert scan_corpus([str(p)], memory_budget=TINY, min_count=50).count_floor == 50   # fewer words listed


def test_the_ids_move_to_disk_when_the_tables_need_the_budget(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(13, n_tokens=100_000, unique=20_000), encoding="utf-8")
    # 0.4 MB of ids and 2.8 MB of counting tables (21,500 words): the ids would fit 4 MiB alone,
    # but not beside twice the tables (which may double as a chunk is counted)
    shared = scan_corpus([str(p)], memory_budget=4 << 20, chunk_chars=1 << 14)
    assert shared.spill is None and shared.stream.on_disk and shared.stream.length * 4 < 1 << 20
    roomy = scan_corpus([str(p)], memory_budget=16 << 20, chunk_chars=1 << 14)
    assert roomy.spill is None and not roomy.stream.on_disk
    assert np.array_equal(ids_of(shared), ids_of(roomy))


def test_choices_that_need_words_left_out_are_refused(tmp_path, tiny_tables):
    from w2v.text.vocab import Vocab, merge_vocab, vocab_ids
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(14), encoding="utf-8")
    got = scan_corpus([str(p)], memory_budget=TINY, min_count=3)
    with pytest.raises(BudgetError, match="min_count=2 needs the words occurring 2 times or more"):
        kept_words(got.words, got.counts, 2)
    with pytest.raises(BudgetError, match="min_count=2"):
        build_vocab(got.words, got.counts, 2)
    with pytest.raises(BudgetError, match="trim_rule"):
        kept_words(got.words, got.counts, 3, trim_rule=lambda w, c, m: 0)
    vocab = Vocab(["w1", "u0x"], [1, 1])
    with pytest.raises(BudgetError, match="vocabulary"):
        vocab_ids(vocab, got.words)
    with pytest.raises(BudgetError, match="vocabulary"):
        merge_vocab(vocab, got.words, got.counts, 3)
    with pytest.raises(BudgetError) as info:
        kept_words(got.words, got.counts, 1)
    assert f"listed only the {len(got.words):,} that occur at least 3 times" in str(info.value)
    assert kept_words(got.words, got.counts, 4).sum() == (got.counts >= 4).sum()   # above the floor: fine
    # the budget the error gives counts every word in memory: nothing is left out then
    needed = info.value.needed
    assert needed == got.words.needed and f"--memory-budget {-(-needed // (1 << 20))})" in str(info.value)
    whole = scan_corpus([str(p)], memory_budget=needed, min_count=3)
    assert whole.spill is None and whole.count_floor == 1
    assert len(kept_words(whole.words, whole.counts, 1)) == got.n_distinct


def test_the_words_of_a_vocabulary_are_listed_whatever_their_counts(tmp_path, tiny_tables):
    from w2v.text.vocab import Vocab, merge_vocab, vocab_ids
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(15), encoding="utf-8")
    ref = scan_corpus([str(p)])
    vocab = Vocab(["u5x", "w3", "u1999x", "nowhere", "w1"], [1, 1, 1, 1, 1])
    got = scan_corpus([str(p)], memory_budget=TINY, min_count=4, vocabulary=vocab.words)
    listed = (ref.counts >= 4) | np.isin(ref.words, vocab.words)
    assert list(got.words) == [w for w, k in zip(ref.words, listed) if k]
    assert np.array_equal(got.counts, ref.counts[listed])
    # encoding with the model's vocabulary (read_corpus) and an update (merge_vocab) are exact
    a = encode_corpus(ref, vocab_ids(vocab, ref.words), len(vocab))
    b = encode_corpus(got, vocab_ids(vocab, got.words), len(vocab))
    assert np.array_equal(a.stream.read(0, a.length), b.stream.read(0, b.length))
    ref2 = scan_corpus([str(p)])
    got2 = scan_corpus([str(p)], memory_budget=TINY, min_count=4, vocabulary=vocab.words)
    va, _ = merge_vocab(vocab, ref2.words, ref2.counts, 4)
    vb, _ = merge_vocab(vocab, got2.words, got2.counts, 4)
    assert va.words == vb.words and np.array_equal(va.counts, vb.counts)


def test_phrases_refuse_a_scan_that_left_words_out(tmp_path, tiny_tables):
    from w2v.phrases.corpus import phrase_scanned
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(16), encoding="utf-8")
    got = scan_corpus([str(p)], memory_budget=TINY, min_count=2)
    with pytest.raises(BudgetError, match="phrases are joined over every word"):
        phrase_scanned(got, "auto")


# --------------------------------------------------------------------------- training
def test_training_on_a_spilled_corpus_gives_the_same_vectors(tmp_path, tiny_tables, monkeypatch):
    from w2v import Word2Vec
    spills = []
    real = counting.BoundedCount.finish

    def spy(self, *args):
        result = real(self, *args)
        spills.append(self.stats["generations"])
        return result

    monkeypatch.setattr(counting.BoundedCount, "finish", spy)
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(17, n_tokens=60_000), encoding="utf-8")
    kw = dict(dim=16, epochs=1, threads=1, min_count=3, seed=5)
    a = Word2Vec(**kw).build_vocab(str(p))
    b = Word2Vec(memory_budget=TINY, **kw).build_vocab(str(p))
    assert len(spills) == 1 and spills[0] > 3
    assert b.corpus_total_words == a.corpus_total_words and b.corpus_count == a.corpus_count
    assert b.vocab.words == a.vocab.words
    a.train(str(p))
    b.train(str(p))
    assert np.array_equal(a.syn0, b.syn0)
    # a second corpus read with the model's vocabulary (what --resume does) spills and encodes exactly
    q = tmp_path / "d.txt"
    q.write_text(make_corpus(18, n_tokens=60_000), encoding="utf-8")
    a.read_corpus(str(q))
    b.read_corpus(str(q))
    assert len(spills) == 2
    assert np.array_equal(a.encoded_corpus.stream.read(0, a.encoded_corpus.length),
                          b.encoded_corpus.stream.read(0, b.encoded_corpus.length))


def test_a_sentinel_and_unlisted_ids_are_what_the_stream_holds(tmp_path, tiny_tables):
    p = tmp_path / "c.txt"
    p.write_text(make_corpus(19), encoding="utf-8")
    got = scan_corpus([str(p)], memory_budget=TINY, min_count=2)
    ids = ids_of(got)
    assert ids.min() == UNLISTED and ids.max() == len(got.words) - 1
    assert np.count_nonzero(ids == SENTINEL) == got.n_sentences


# --------------------------------------------------------------------------- the kernels
def random_keys(rng, n, alphabet=(0x61, 0x62, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xA0, 0xED, 0x9F, 0xEF, 0xBD,
                                  0xF0, 0x90, 0xF4, 0x8F, 0xF5, 0xFF, 0xC0)):
    keys = [bytes(rng.choice(alphabet, int(rng.integers(0, 7))).astype(np.uint8)) for _ in range(n)]
    lens = np.fromiter(map(len, keys), np.int64, n)
    return keys, np.frombuffer(b"".join(keys) + b"\0", np.uint8), np.cumsum(lens) - lens, lens


def test_invalid_utf8_is_what_pythons_decoder_refuses():
    from w2v.kernels.spill import invalid_utf8
    rng = np.random.default_rng(1)
    keys, buf, starts, lens = random_keys(rng, 20_000)
    keys += ["héllo".encode(), "€".encode(), "\U0010FFFF".encode(), "\ufffd".encode(), b"\xed\xa0\x80", b"\xf4\x90"]
    buf = np.frombuffer(b"".join(keys) + b"\0", np.uint8)
    lens = np.fromiter(map(len, keys), np.int64, len(keys))
    starts = np.cumsum(lens) - lens
    out = np.zeros(len(keys), np.bool_)
    bad = invalid_utf8(buf, starts, lens, out)

    def refused(k):
        try:
            k.decode("utf-8")
            return False
        except UnicodeDecodeError:
            return True

    want = np.array([refused(k) for k in keys])
    assert np.array_equal(out, want) and bad == want.sum() and 0 < bad < len(keys)


def test_merge_keys_adds_up_records_by_key_as_a_dict_does():
    from w2v.kernels.spill import find_keys, merge_keys
    rng = np.random.default_rng(2)
    keys, buf, starts, lens = random_keys(rng, 30_000, alphabet=(0x61, 0x62, 0x63))
    n = len(keys)
    counts = rng.integers(1, 10, n)
    firsts = rng.permutation(n).astype(np.int64)
    table = np.full(1 << (2 * n - 1).bit_length(), -1, np.int64)
    word_record, word_count, word_first = (np.empty(n, np.int64) for _ in range(3))
    record_word = np.empty(n, np.int32)
    nw = merge_keys(buf, starts, lens, counts, firsts, table, word_record, word_count, word_first, record_word)
    want = {}
    for k, c, f in zip(keys, counts.tolist(), firsts.tolist()):
        total, first = want.get(k, (0, f))
        want[k] = (total + c, min(first, f))
    assert nw == len(want)
    assert {keys[word_record[w]]: (word_count[w], word_first[w]) for w in range(nw)} == want
    assert all(keys[word_record[record_word[i]]] == keys[i] for i in range(n))
    # the table finds exactly the merged keys (and nothing else) in other records
    others, obuf, ostarts, olens = random_keys(np.random.default_rng(3), 5000, alphabet=(0x61, 0x62, 0x63, 0x64))
    found = np.zeros(len(others), np.bool_)
    # find_keys needs word w to be known record w: the merged words' keys, laid out in that order
    kbuf = np.frombuffer(b"".join(keys[word_record[w]] for w in range(nw)) + b"\0", np.uint8)
    klens = lens[word_record[:nw]]
    kstarts = np.cumsum(klens) - klens
    ktable = np.full(table.size, -1, np.int64)
    merge_keys(kbuf, kstarts, klens, np.zeros(nw, np.int64), np.zeros(nw, np.int64), ktable, np.empty(nw, np.int64),
               np.empty(nw, np.int64), np.empty(nw, np.int64), np.empty(nw, np.int32))
    find_keys(obuf, ostarts, olens, np.arange(len(others)), ktable, kbuf, kstarts, klens, found)
    assert found.tolist() == [k in want for k in others] and 0 < found.sum() < len(others)


def test_scatter_records_groups_records_by_the_chosen_bits_in_their_order():
    from w2v.kernels.spill import scatter_records
    rng = np.random.default_rng(4)
    keys, buf, starts, lens = random_keys(rng, 10_000)
    hashes = rng.integers(0, 2 ** 63, len(keys), dtype=np.uint64) * np.uint64(2)
    local = np.arange(len(keys), dtype=np.int64)
    counts = rng.integers(1, 100, len(keys))
    for shift, n_parts in ((58, 64), (30, 8), (0, 1)):
        out = np.empty(len(keys), np.int32), np.empty(len(keys), np.int32), np.empty(len(keys), np.int64)
        out_keys = np.empty(int(lens.sum()), np.uint8)
        bounds, key_bounds = np.empty(n_parts + 1, np.int64), np.empty(n_parts + 1, np.int64)
        scatter_records(hashes, shift, n_parts, buf, starts, lens, local, counts, *out, out_keys, bounds,
                        key_bounds)
        part = ((hashes >> np.uint64(shift)) & np.uint64(n_parts - 1)).astype(np.int64)
        order = np.argsort(part, kind="stable")
        assert np.array_equal(out[0], lens[order]) and np.array_equal(out[1], order)
        assert np.array_equal(out[2], counts[order])
        assert out_keys.tobytes() == b"".join(keys[i] for i in order)
        assert np.array_equal(bounds, np.concatenate([[0], np.cumsum(np.bincount(part, minlength=n_parts))]))
        assert np.array_equal(key_bounds, np.concatenate([[0], np.cumsum(lens[order])])[bounds])
