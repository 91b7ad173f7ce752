"""w2v.phrases.model: gensim's Phrases API over the Numba engine, checked against gensim 4 itself.

The identity tests count and join the same tokens with w2v and with gensim's ``Phrases`` and
``FrozenPhrases`` (default scorer and npmi, without and with ``ENGLISH_CONNECTOR_WORDS``) and
compare the counts, the phrase sets and the joined sentences.  word2phrase is compared in
tests/cli/test_phrases.py.
"""
import json
import os

import numpy as np
import pytest

from w2v.phrases import tables as phrase_tables

from ..conftest import ROOT
from w2v.text.encoded import IdStream
from w2v.errors import CorpusError, FormatError, ParameterError
from w2v.phrases.corpus import learn_passes
from w2v.phrases.model import (ENGLISH_CONNECTOR_WORDS, FrozenPhrases, Phrases, load_phrases, npmi_scorer,
                               original_scorer)

gensim_phrases = pytest.importorskip("gensim.models.phrases")
from gensim.models.word2vec import LineSentence  # noqa: E402

# the shared corpora sit beside the checkout (../shared/data), as the benchmarks expect them
WIKI = ROOT.parent / "shared" / "data" / "corpus-wiki-1.txt.xz"
CONFIGS = [("default", 10.0, frozenset()), ("npmi", 0.5, frozenset()),
           ("default", 10.0, ENGLISH_CONNECTOR_WORDS), ("npmi", 0.5, ENGLISH_CONNECTOR_WORDS)]


def _ids(config):
    scoring, _, conn = config
    return f"{scoring}-{'english' if conn else 'none'}"


@pytest.fixture(scope="module")
def sentences(small_corpus):
    with open(small_corpus, encoding="utf-8") as f:
        return [line.split() for line in f][:1500]


@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_counts_phrases_and_joined_sentences_are_gensims(sentences, config):
    scoring, threshold, conn = config
    g = gensim_phrases.Phrases(sentences, min_count=5, threshold=threshold, scoring=scoring, connector_words=conn)
    m = Phrases(sentences, min_count=5, threshold=threshold, scoring=scoring, connector_words=conn)
    assert m.vocab == g.vocab
    assert m.corpus_word_count == g.corpus_word_count
    assert m.export_phrases() == g.export_phrases()
    assert len(m.export_phrases()) > 50
    frozen, gfrozen = m.freeze(), g.freeze()
    assert frozen.phrasegrams == gfrozen.phrasegrams
    for s in sentences:
        assert m[s] == g[s] == frozen[s] == gfrozen[s]
    assert list(m[sentences]) == list(g[sentences])
    assert m.find_phrases(sentences) == g.find_phrases(sentences) == frozen.find_phrases(sentences)


@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_files_are_read_as_gensims_linesentence_reads_them(tmp_path, sentences, config, monkeypatch):
    # one long line: gensim's LineSentence cuts it every max_sentence_length words; small pieces of
    # the id stream make every carry between pieces happen
    scoring, threshold, conn = config
    path = tmp_path / "one-line.txt"
    path.write_text(" ".join(" ".join(s) for s in sentences) + "\n", encoding="utf-8")
    monkeypatch.setattr(phrase_tables, "PIECE_IDS", 997)
    g = gensim_phrases.Phrases(LineSentence(str(path), max_sentence_length=1000), min_count=3, threshold=threshold,
                               scoring=scoring, connector_words=conn)
    m = Phrases(str(path), min_count=3, threshold=threshold, scoring=scoring, connector_words=conn,
                max_sentence_length=1000)
    assert m.vocab == g.vocab
    assert m.export_phrases() == g.export_phrases()
    scanned_words = path.read_text(encoding="utf-8").split()
    stream = IdStream()
    index = {w: i for i, w in enumerate(dict.fromkeys(scanned_words))}
    stream.append(np.array([index[w] for w in scanned_words] + [-1], np.int32))
    stream.finish()
    frozen, words, _, _ = learn_passes(stream, list(index), m.settings, 1)
    joined = [words[i] for i in stream.read(0, stream.length).tolist() if i >= 0]
    expected = [t for s in g.freeze()[LineSentence(str(path), max_sentence_length=1000)] for t in s]
    assert joined == expected


@pytest.mark.skipif(not WIKI.exists(), reason="the wiki corpus is not on this machine")
@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_wiki_slice_is_gensims_but_for_tokens_holding_the_delimiter(config):
    # raw Wikipedia text has tokens such as Put_Line: gensim keys a pair by its joined string, so
    # such a token and the pair (Put, Line) share one count, and export_phrases splits the key
    # back at every delimiter; w2v keeps them apart (see the module doc of w2v.phrases.model)
    import lzma
    with lzma.open(WIKI, "rt", encoding="utf-8") as f:
        lines = [next(f).split() for _ in range(3000)]
    scoring, threshold, conn = config
    g = gensim_phrases.Phrases(lines, min_count=5, threshold=threshold, scoring=scoring, connector_words=conn)
    m = Phrases(lines, min_count=5, threshold=threshold, scoring=scoring, connector_words=conn)
    ours, theirs = m.export_phrases(), g.export_phrases()
    delimited = {w for s in lines for w in s if "_" in w}
    assert delimited

    def plain(phrases):
        return {p: s for p, s in phrases.items() if not any(w in p for w in delimited)}
    assert plain(ours) == plain(theirs)
    assert len(set(ours) ^ set(theirs)) <= 5
    assert [m[s] for s in lines] == [g[s] for s in lines]


def test_gensims_delimiter_bug_that_w2v_does_not_copy():
    # gensim counts the token "a_b" as the pair "a b", so a_b is a phrase though a never precedes b
    text = [["a_b", "x"]] * 10 + [["a", "y"], ["b", "y"]] * 10
    g = gensim_phrases.Phrases(text, min_count=1, threshold=0.1)
    assert "a_b" in g.export_phrases()
    assert "a_b" not in Phrases(text, min_count=1, threshold=0.1).export_phrases()
    # and FrozenPhrases splits keys at every delimiter, so it loses what Phrases joins
    text = [["x_y", "z"]] * 10 + [["w"]] * 10
    g = gensim_phrases.Phrases(text, min_count=1, threshold=0.1)
    assert g[["x_y", "z"]] == ["x_y_z"] and g.freeze()[["x_y", "z"]] == ["x_y", "z"]
    m = Phrases(text, min_count=1, threshold=0.1)
    assert m[["x_y", "z"]] == m.freeze()[["x_y", "z"]] == ["x_y_z"]


def test_word2vec_scoring_is_word2phrases_float_arithmetic():
    text = [["new", "york", "is", "big"]] * 7 + [["new", "car"], ["old", "york"]] * 3
    m = Phrases(text, min_count=5, threshold=0.0, scoring="word2vec")
    n = np.float32(m.corpus_word_count)
    expected = np.float32(7 - 5) / np.float32(10) / np.float32(10) * n
    assert m.export_phrases()["new_york"] == pytest.approx(float(expected), rel=0, abs=0)
    # word2phrase: a word seen fewer than min_count times never joins; gensim's scorer has no such rule
    rare = [["rare", "word"]] * 6 + [["rare", "x"]] * 0 + [["common", "word"]] * 1
    assert "rare_word" in Phrases(rare, min_count=5, threshold=0.0, scoring="word2vec").export_phrases()
    rare = [["rare", "word"]] * 4
    assert Phrases(rare, min_count=5, threshold=0.0, scoring="word2vec").export_phrases() == {}


def test_scorers_are_gensims():
    args = dict(worda_count=50, wordb_count=30, bigram_count=20, len_vocab=1000, min_count=5, corpus_word_count=10000)
    assert original_scorer(**args) == gensim_phrases.original_scorer(**args)
    assert npmi_scorer(**args) == gensim_phrases.npmi_scorer(**args)
    assert npmi_scorer(**{**args, "bigram_count": 2}) == float("-inf")


def test_threads_count_the_same_pairs(sentences):
    one = Phrases(sentences, min_count=3, threshold=5.0, connector_words=ENGLISH_CONNECTOR_WORDS, threads=1)
    three = Phrases(sentences, min_count=3, threshold=5.0, connector_words=ENGLISH_CONNECTOR_WORDS, threads=3)
    assert [a.tolist() for a in one.pairs.entries()] == [a.tolist() for a in three.pairs.entries()]
    assert one.export_phrases() == three.export_phrases()


def test_pruning_bounds_the_table_drops_rare_pairs_and_is_recorded(sentences, monkeypatch):
    # word2vec scoring: its N is the tokens counted, which pruning does not change (gensim's is the
    # table size, which it does)
    options = dict(min_count=3, threshold=20.0, scoring="word2vec")
    full = Phrases(sentences, **options)
    assert not full.pruned
    monkeypatch.setattr(phrase_tables, "PIECE_IDS", 5000)
    small = Phrases(sentences, max_vocab_size=5000, threads=2, **options)
    assert small.pruned and small.min_reduce > 1
    assert len(small.pairs) <= 5000
    kept = dict(zip(zip(*small.pairs.entries()[:2]), small.pairs.entries()[2]))
    truth = dict(zip(zip(*full.pairs.entries()[:2]), full.pairs.entries()[2]))
    assert all(c <= truth[k] for k, c in kept.items())
    # the most frequent phrases survive (a pair counted since its first pruning lost at most
    # min_reduce counts each time)
    counts = full.vocab
    top = sorted(full.export_phrases(), key=lambda p: -counts[p])[:20]
    assert set(top) <= set(small.export_phrases())
    # and the same with one thread: pruning does not depend on the threads
    one = Phrases(sentences, max_vocab_size=5000, threads=1, **options)
    assert [a.tolist() for a in one.pairs.entries()] == [a.tolist() for a in small.pairs.entries()]


def test_add_vocab_adds_counts(sentences):
    whole = Phrases(sentences, min_count=3, threshold=5.0)
    parts = Phrases(sentences[:700], min_count=3, threshold=5.0)
    parts.add_vocab(sentences[700:])
    assert parts.vocab == whole.vocab
    assert parts.export_phrases() == whole.export_phrases()


def test_counts_save_and_load_without_pickle(tmp_path, sentences):
    m = Phrases(sentences, min_count=3, threshold=5.0, connector_words=ENGLISH_CONNECTOR_WORDS)
    m.save(tmp_path / "model")
    names = sorted(os.listdir(tmp_path / "model"))
    assert names == ["meta.json", "pairs.npy", "run_offsets.npy", "runs.npy", "tokens.txt", "unigram.npy"]
    back = Phrases.load(tmp_path / "model")
    assert back.vocab == m.vocab and back.export_phrases() == m.export_phrases()
    assert back.corpus_word_count == m.corpus_word_count and back.settings == m.settings
    assert isinstance(load_phrases(tmp_path / "model"), Phrases)
    frozen = FrozenPhrases.load(tmp_path / "model")   # counts frozen on load
    assert frozen.phrasegrams == m.export_phrases()


def test_frozen_passes_save_and_load(tmp_path, sentences):
    stream = IdStream()
    words = list(dict.fromkeys(w for s in sentences for w in s))
    index = {w: i for i, w in enumerate(words)}
    stream.append(np.array([i for s in sentences for i in [index[w] for w in s] + [-1]], np.int32))
    stream.finish()
    settings = Phrases(min_count=3, threshold=20.0, scoring="word2vec").settings
    frozen, _, _, _ = learn_passes(stream, words, settings, 2)
    assert frozen.passes == 2 and any(p.count("_") >= 2 for p in frozen.phrasegrams)
    frozen.save(tmp_path / "f")
    back = FrozenPhrases.load(tmp_path / "f")
    assert back.phrasegrams == frozen.phrasegrams and back.passes == 2
    assert [back[s] for s in sentences] == [frozen[s] for s in sentences]
    assert len((tmp_path / "f" / "tokens.txt").read_text().split("\n")) < len(words)   # only the tokens used


def test_save_replaces_a_model_but_no_other_folder(tmp_path, sentences):
    m = Phrases(sentences[:200], min_count=2, threshold=1.0)
    m.save(tmp_path / "m")
    m.save(tmp_path / "m")
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    with pytest.raises(Exception, match="does not hold a phrase model"):
        m.save(other)
    assert (other / "keep.txt").read_text() == "x"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]


def _corrupt(path, name, data):
    (path / name).write_bytes(data)


@pytest.mark.parametrize("damage, message", [
    (lambda p: (p / "meta.json").unlink(), "meta.json: missing"),
    (lambda p: _corrupt(p, "meta.json", b"{not json"), "corrupt JSON"),
    (lambda p: _corrupt(p, "meta.json", b'{"format": "w2v-native"}'), "not a w2v phrase model"),
    (lambda p: (p / "pairs.npy").unlink(), "pairs.npy: missing"),
    (lambda p: _corrupt(p, "pairs.npy", (p / "pairs.npy").read_bytes()[:-8]), "truncated"),
    (lambda p: _corrupt(p, "tokens.txt", b"a\nb\n"), "tokens, meta.json says"),
    (lambda p: _corrupt(p, "tokens.txt", b"\xff\xfe\n"), "not UTF-8"),
    (lambda p: np.save(p / "pairs.npy", np.array([[0, 10 ** 9, 0, 1]], np.int64)), "out of range"),
    (lambda p: np.save(p / "unigram.npy", np.zeros(3, np.float64)), "dtype"),
])
def test_a_damaged_model_is_a_format_error(tmp_path, sentences, damage, message):
    Phrases(sentences[:300], min_count=2, threshold=1.0).save(tmp_path / "m")
    damage(tmp_path / "m")
    with pytest.raises(FormatError, match=message):
        Phrases.load(tmp_path / "m")


def test_a_bad_setting_in_meta_is_a_format_error(tmp_path, sentences):
    Phrases(sentences[:300], min_count=2, threshold=1.0).save(tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "meta.json").read_text())
    meta["settings"]["threshold"] = -3
    (tmp_path / "m" / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(FormatError, match="bad settings: threshold must be > 0"):
        load_phrases(tmp_path / "m")
    with pytest.raises(FormatError, match="no such phrase model"):
        load_phrases(tmp_path / "missing")


@pytest.mark.parametrize("kwargs, message", [
    (dict(min_count=0), "min_count must be an integer from 1"),
    (dict(threshold=0), "threshold must be > 0 for gensim scoring"),
    (dict(threshold=-1.0, scoring="word2vec"), "threshold must be >= 0 for word2vec"),
    (dict(threshold=1.5, scoring="npmi"), r"threshold must be in \[-1, 1\] for npmi"),
    (dict(threshold=-1.01, scoring="npmi"), r"threshold must be in \[-1, 1\] for npmi"),
    (dict(threshold=float("nan")), "threshold must be a finite number"),
    (dict(scoring="pmi"), "scoring must be one of"),
    (dict(scoring=len), r"scoring function missing expected parameters \['worda_count'"),
    (dict(scoring=lambda worda_count, wordb_count: 1.0), r"missing expected parameters \['bigram_count'"),
    (dict(delimiter=b"_"), "delimiter must be a string"),
    (dict(max_vocab_size=0), "max_table_size must be an integer from 1"),
    (dict(connector_words="the"), "connector_words must be a set of words"),
    (dict(threads=0), "threads must be an integer from 1"),
])
def test_bad_settings_are_parameter_errors(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        Phrases(**kwargs)


def test_bad_input_is_typed(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    with pytest.raises(CorpusError, match="corpus is empty"):
        Phrases(str(empty))
    with pytest.raises(CorpusError):
        Phrases(str(tmp_path / "missing.txt"))
    with pytest.raises(ParameterError, match="not a string"):
        Phrases([["a", "b"], "a b"])
    with pytest.raises(ParameterError, match="non-empty string"):
        Phrases([["a", ""]])
    m = Phrases([["a", "b"]] * 3, min_count=1, threshold=0.1)
    assert m[[]] == [] and m[["unknown", "words"]] == ["unknown", "words"]


def test_blocks_ahead_yields_in_order_raises_the_producers_error_and_stops_its_thread():
    import threading

    from w2v.phrases.corpus import blocks_ahead

    def ahead_threads():
        return [t for t in threading.enumerate() if t.name == "w2v-phrases-ahead" and t.is_alive()]

    assert list(blocks_ahead(iter(range(50)))) == list(range(50))

    def failing():
        yield 1
        raise ValueError("bad block")

    got = []
    with pytest.raises(ValueError, match="bad block"):
        for x in blocks_ahead(failing()):
            got.append(x)
    assert got == [1]
    taken = []

    def endless():
        i = 0
        while True:
            taken.append(i)
            yield i
            i += 1

    gen = blocks_ahead(endless(), depth=2)
    assert [next(gen) for _ in range(3)] == [0, 1, 2]
    gen.close()   # the writer stops early: the thread stops after the item it is on
    assert not ahead_threads()
    assert len(taken) <= 3 + 2 + 1


def test_join_table_filter_holds_every_phrase_and_misses_most_other_pairs():
    from w2v.kernels.phrases import may_hold, pair_hash
    rng = np.random.default_rng(5)
    keys = np.unique(rng.integers(0, 1 << 40, 5000, dtype=np.int64))
    runs = np.where(rng.random(keys.size) < 0.2, rng.integers(1, 50, keys.size), 0).astype(np.int64)
    join = phrase_tables.JoinTable(keys, runs, np.arange(keys.size, dtype=np.int32))
    assert join.filter.size * 64 >= 16 * keys.size
    assert all(may_hold(join.filter, np.uint64(pair_hash(k, r))) for k, r in zip(keys.tolist(), runs.tolist()))
    others = np.setdiff1d(rng.integers(0, 1 << 40, 20000, dtype=np.int64), keys)
    passed = sum(bool(may_hold(join.filter, np.uint64(pair_hash(k, 0)))) for k in others.tolist())
    assert passed / others.size < 0.1   # ~16 bits per phrase: about 4% pass


def test_a_candidate_with_a_connector_run_never_joins_as_a_phrase_without_one():
    # a later pass's phrases may have no connector run (a join table of two columns) while the
    # stream still holds connectors: "a of b" is not the phrase a_b
    from w2v.phrases.tables import JoinTable, RunTable, StreamIds, join_ids
    n = 20000
    conn = 0
    runs = RunTable()
    assert runs.intern([conn]) == 1          # the run "of" is known from an earlier pass
    a = np.arange(1, 2 * n, 2, dtype=np.int64)
    b = a + 1
    join = JoinTable((a << 32) | b, np.zeros(n, np.int64), np.arange(2 * n + 1, 3 * n + 1, dtype=np.int32))
    assert join.table.shape[1] == 2
    join.filter[:] = ~np.uint64(0)   # a filter every pair passes: each candidate is probed
    flags = np.zeros(3 * n + 1, np.bool_)
    flags[conn] = True
    stream = np.stack([a, np.full(n, conn), b, np.full(n, -1)], axis=1).ravel().astype(np.int32)
    _, out = join_ids(stream, True, StreamIds.identity(flags), join, join.out, runs, 0, 100, np.zeros(1, np.int64))
    assert out.tolist() == stream.tolist()
    plain = np.stack([a, b, np.full(n, -1)], axis=1).ravel().astype(np.int32)   # and without "of", they join
    _, out = join_ids(plain, True, StreamIds.identity(flags), join, join.out, runs, 0, 100, np.zeros(1, np.int64))
    assert out.tolist() == np.stack([join.out, np.full(n, -1)], axis=1).ravel().tolist()


def test_pair_tables_without_runs_refuse_pairs_with_runs():
    from w2v.phrases.tables import CountOptions, PairCounts, RunTable, StreamIds, count_stream
    pairs = PairCounts(1, 100, runs=False)
    with pytest.raises(ValueError, match="without runs"):
        pairs.add(np.array([1 << 32 | 2]), np.array([1]), np.array([5]))
    with pytest.raises(ValueError, match="without runs"):
        count_stream([np.array([0, 1, 2, -1], np.int32)], StreamIds.identity(np.array([False, True, False])),
                     np.zeros(3, np.int64), pairs, RunTable(), CountOptions(False, 0, 100, 1))
    assert len(pairs) == 0
