"""Corpus shards for distributed training (no dask needed): byte ranges, counts, encoding."""
import functools
import lzma
import os
import subprocess
import sys

import numpy as np
import pytest

from w2v.text.scanning import iter_token_lines, scan_corpus
from w2v.text.encoded import SENTINEL, encode_corpus
from w2v.errors import CorpusError
from w2v.text.shards import (ALIGN_WINDOW, Shard, align_offset, count_shard, encode_ids, iter_shard_token_lines,
                             merge_counts, plan_shards, scan_shard)
from w2v.text.vocab import build_vocab

from ..conftest import BUNDLED, ROOT


def _tokens(pieces):
    return [t for toks, _ in pieces for t in toks]


@pytest.fixture(scope="module")
def one_line(tmp_path_factory, small_corpus):
    """text8-style: the small corpus as one line (no newline to cut at), with tabs and CRs."""
    text = small_corpus.read_text(encoding="utf-8")
    words = text.split()
    body = " ".join(words[:60000]).replace(" of ", " of\t").replace(" and ", " and\r ")
    path = tmp_path_factory.mktemp("oneline") / "one.txt"
    path.write_text(body + " caf\u00e9 na\u00efve \u4e2d\u6587 end", encoding="utf-8")
    return path


@pytest.mark.parametrize("tokenizer", ["whitespace", "simple", "char"])
@pytest.mark.parametrize("shard_bytes", [1 << 30, 100_000, 33_333, 777])
def test_shards_yield_exactly_the_tokens_of_the_whole_file(small_corpus, one_line, tokenizer, shard_bytes):
    for path in (small_corpus, one_line):
        ref = _tokens(iter_token_lines([str(path)], tokenizer))
        shards = plan_shards([str(path)], shard_bytes)
        assert len(shards) == max(1, -(-os.path.getsize(path) // shard_bytes))
        got = [t for sh in shards for t in _tokens(iter_shard_token_lines(sh, tokenizer, chunk_chars=4096))]
        assert got == ref


def test_align_offset_cuts_after_newline_else_whitespace(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"alpha beta\ngamma delta epsilon\nzeta")
    size = p.stat().st_size
    with open(p, "rb") as fh:
        assert align_offset(fh, 0, size) == 0
        assert align_offset(fh, size, size) == size
        assert align_offset(fh, 3, size) == 11           # after the first newline
        assert align_offset(fh, 11, size) == 11          # already at a line start
        assert align_offset(fh, 12, size) == 31
    q = tmp_path / "b.txt"
    q.write_bytes(b"one two three")
    with open(q, "rb") as fh:
        assert align_offset(fh, 2, 13) == 4              # no newline: after the next space
        assert align_offset(fh, 10, 13) == 13            # inside the last word: the end
    r = tmp_path / "c.txt"
    r.write_bytes(b"one\ttwo three\rfour")
    with open(r, "rb") as fh:
        assert align_offset(fh, 2, 18) == 4              # the first whitespace byte, a tab
        assert align_offset(fh, 10, 18) == 14            # a carriage return
    # a run without whitespace longer than the window searched at a time: searched on
    run = b"x" * (ALIGN_WINDOW + 100)
    t = tmp_path / "d.txt"
    t.write_bytes(b"a " + run + b" b c")
    with open(t, "rb") as fh:
        assert align_offset(fh, 5, t.stat().st_size) == len(run) + 3


def test_compressed_and_directories_make_whole_file_shards(tmp_path, small_corpus):
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "a.txt").write_text("x y z\n" * 20000, encoding="utf-8")
    with lzma.open(d / "b.txt.xz", "wt", encoding="utf-8") as f:
        f.write("p q\n" * 1000)
    shards = plan_shards([str(d)], shard_bytes=50_000)
    assert [s.end is None for s in shards] == [False, False, False, True]
    assert shards[-1].path.endswith("b.txt.xz")
    ref = _tokens(iter_token_lines([str(d)]))
    assert [t for sh in shards for t in _tokens(iter_shard_token_lines(sh))] == ref
    with pytest.raises(CorpusError, match="standard input"):
        plan_shards(["-"])


def test_min_shards_cuts_finer(small_corpus):
    assert len(plan_shards([str(small_corpus)])) == 1
    assert len(plan_shards([str(small_corpus)], min_shards=4)) == 4


def test_min_shards_never_cuts_below_64_kib(tmp_path):
    p = tmp_path / "small.txt"
    p.write_text("a b c\n" * 5000, encoding="utf-8")        # 30,000 bytes
    assert len(plan_shards([str(p)], min_shards=8)) == 1
    q = tmp_path / "big.txt"
    q.write_text("a b c\n" * 50000, encoding="utf-8")       # 300,000 bytes
    # 8 shards would be 37,500 bytes each: cut at 64 KiB at most instead, evened out
    assert [s.size for s in plan_shards([str(q)], min_shards=8)] == [60000] * 5


def test_shard_tokens_at_an_incomplete_character_at_the_end_of_the_file(tmp_path):
    # the undecodable bytes that end the file become U+FFFD, as when the file is read whole
    p = tmp_path / "cut.txt"
    p.write_bytes(b"alpha beta\ngamma caf\xc3")
    ref = _tokens(iter_token_lines([str(p)]))
    assert ref[-1] == "caf\ufffd"
    for shard_bytes in (1 << 20, 8):
        shards = plan_shards([str(p)], shard_bytes)
        assert [t for sh in shards for t in _tokens(iter_shard_token_lines(sh))] == ref


def test_a_shard_that_starts_with_an_empty_line_encodes_as_the_single_process_stream(tmp_path):
    p = tmp_path / "blank.txt"
    p.write_text("\n\nb a b\n\nc b a\n", encoding="utf-8")
    single = scan_corpus([str(p)])
    vocab, remap = build_vocab(single.words, single.counts, min_count=1)
    ref = encode_corpus(single, remap, len(vocab))
    [sh] = plan_shards([str(p)])
    scan = scan_shard(sh)
    assert scan.ids[0] == SENTINEL                  # the empty first line
    ids = encode_ids(scan.ids, scan.words, vocab.index)
    assert ids.tolist() == ref.stream.read(0, ref.length).tolist()
    assert ids[0] != SENTINEL
    ref.close()


def test_tree_merged_counts_equal_a_single_pass(small_corpus, one_line, tmp_path):
    files = [str(small_corpus), str(one_line)]
    single = scan_corpus(files, tokenizer="simple")
    shards = plan_shards(files, 50_000)
    parts = [count_shard(sh, "simple") for sh in shards]
    # pairwise, in corpus order (any bracketing gives the same result)
    level = parts
    while len(level) > 1:
        level = [merge_counts(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    for words, counts in (level[0], functools.reduce(merge_counts, parts)):
        assert words == single.words
        assert np.array_equal(counts, single.counts)
    single.stream.close()


def test_encoded_shards_equal_the_single_process_stream(small_corpus):
    single = scan_corpus([str(small_corpus)])
    vocab, remap = build_vocab(single.words, single.counts, min_count=3)
    ref = encode_corpus(single, remap, len(vocab))
    ref_ids = ref.stream.read(0, ref.length)
    shards = plan_shards([str(small_corpus)], 100_000)
    enc = [encode_ids(s.ids, s.words, vocab.index) for s in (scan_shard(sh) for sh in shards)]
    ids = np.concatenate(enc)
    # shards are cut after newlines here, so even the sentence boundaries are the same
    assert np.array_equal(ids, ref_ids)
    assert all(e[-1] == SENTINEL and e[0] != SENTINEL for e in enc)
    ref.close()


def test_split_lanes_gives_contiguous_non_empty_lanes_cut_nearest_the_even_split():
    from w2v.distributed import split_lanes
    rng = np.random.default_rng(6)
    for trial in range(300):
        n = int(rng.integers(1, 30))
        sizes = rng.integers(0, 1000, n).tolist()
        if trial % 3 == 0:
            sizes[0] = 10 ** 6                         # one shard bigger than all the others
        n_lanes = int(rng.integers(1, 12))
        lanes = split_lanes(sizes, n_lanes)
        assert len(lanes) == min(n_lanes, n)
        assert lanes[0][0] == 0 and lanes[-1][1] == n
        assert all(a < b for a, b in lanes) and all(x[1] == y[0] for x, y in zip(lanes, lanes[1:]))
        cum = np.concatenate([[0.0], np.cumsum(np.maximum(sizes, 1.0))])
        for k in range(1, len(lanes)):
            # the cut k/L of the way through the bytes: the shard boundary nearest to it among
            # those that leave no lane empty (zero-byte shards count as one byte)
            cut, target = lanes[k][0], cum[-1] * k / len(lanes)
            feasible = np.arange(lanes[k - 1][0] + 1, n - (len(lanes) - k) + 1)
            assert abs(cum[cut] - target) == np.abs(cum[feasible] - target).min(), (sizes, n_lanes, k)


def test_slice_pieces_cover_exactly_the_lane_tokens_asked_for():
    from w2v.distributed import slice_pieces
    rng = np.random.default_rng(8)
    for _ in range(300):
        lengths = rng.integers(0, 6, int(rng.integers(1, 6))).tolist()
        total = sum(lengths)
        lo = int(rng.integers(0, total + 1))
        hi = int(rng.integers(lo, total + 1))
        # reference: every token of the lane as (shard, offset), grouped into runs per shard
        where = [(k, i) for k, n in enumerate(lengths) for i in range(n)][lo:hi]
        want = []
        for k, i in where:
            if want and want[-1][0] == k:
                want[-1][2] = i + 1
            else:
                want.append([k, i, i + 1])
        assert [list(p) for p in slice_pieces(lengths, lo, hi)] == want, (lengths, lo, hi)


def test_shard_str_and_empty_file(tmp_path):
    p = tmp_path / "empty.txt"
    p.write_text("", encoding="utf-8")
    [sh] = plan_shards([str(p)])
    assert sh == Shard(str(p), 0, None, 0) and str(sh) == str(p)
    words, counts = count_shard(sh)
    assert words == [] and counts.size == 0
    assert str(Shard("f", 1, 5, 4)) == "f[1:5]"


def test_import_w2v_does_not_import_dask():
    code = ("import sys, w2v, w2v.model.word2vec, w2v.text.shards, w2v_cli.main\n"
            "from w2v import Word2Vec\n"
            "assert 'dask' not in sys.modules and 'distributed' not in sys.modules, 'dask imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


_NO_DASK = ("import sys\n"
            "for name in ('dask', 'distributed'):\n"
            "    sys.modules[name] = None   # any import of them fails as if not installed\n")


def test_package_and_cli_work_without_dask(small_corpus, tmp_path):
    code = _NO_DASK + (
        "from w2v import Word2Vec\n"
        "from w2v.distributed import DistributedError\n"
        f"m = Word2Vec(dim=16, epochs=1, threads=1, min_count=3).train({str(small_corpus)!r})\n"
        "assert m.last_train.words > 0\n"
        "try:\n"
        f"    Word2Vec(dim=16).train({str(small_corpus)!r}, client=object())\n"
        "except DistributedError as exc:\n"
        "    assert \"pip install 'w2v[dist]'\" in str(exc), exc\n"
        "else:\n"
        "    raise AssertionError('no error')\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    cli = _NO_DASK + ("from w2v_cli.main import main\n"
                      "main(['train', sys.argv[1], '--dask-workers', '2', '-o', sys.argv[2], '-q'])\n")
    out = tmp_path / "v.bin"
    proc = subprocess.run([sys.executable, "-c", cli, str(small_corpus), str(out)], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "pip install 'w2v[dist]'" in lines[0]
    assert not out.exists()


def test_bundled_corpus_is_one_shard():
    assert plan_shards([str(BUNDLED)], 1 << 10, min_shards=8) == [Shard(str(BUNDLED), 0, None,
                                                                           BUNDLED.stat().st_size)]
