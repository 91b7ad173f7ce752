"""Iterable corpora (w2v.text.iterables): sentences scanned into the same words, counts and id stream as files."""
import itertools
from collections import Counter

import numpy as np
import pytest

import w2v.text.iterables as iterables
from w2v.text.scanning import scan_corpus
from w2v.errors import CorpusError, ParameterError
from w2v.text.iterables import CorpusSource, corpus_source, line_sentences, scan_sentences


def _stream(scanned):
    ids = scanned.stream.read(0, scanned.stream.length)
    return np.array(ids, copy=True)


def _reference(sentences):
    """Provisional ids by first occurrence, exact counts, -1 after each sentence: a dict, one token at a time."""
    index, counts, ids = {}, Counter(), []
    for sentence in sentences:
        for token in sentence:
            ids.append(index.setdefault(token, len(index)))
            counts[token] += 1
        ids.append(-1)
    words = list(index)
    return words, [counts[w] for w in words], ids


def _collapse(ids):
    """Ids with runs of sentinels collapsed, leading ones dropped (empty sentences do not train)."""
    out = []
    for i in ids:
        if i == -1 and (not out or out[-1] == -1):
            continue
        out.append(int(i))
    return out


def test_sentences_scan_to_the_words_counts_and_stream_of_the_same_text_as_a_file(tmp_path, small_corpus):
    lines = small_corpus.read_text(encoding="utf-8").splitlines()[:2000]
    path = tmp_path / "c.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from_file = scan_corpus(str(path))
    from_sentences = scan_sentences([line.split() for line in lines])
    assert from_sentences.words == from_file.words
    assert np.array_equal(from_sentences.counts, from_file.counts)
    assert _collapse(_stream(from_sentences)) == _collapse(_stream(from_file))
    assert from_sentences.n_sentences == len(lines)
    assert from_sentences.n_tokens == from_file.n_tokens == sum(len(x.split()) for x in lines)
    assert from_sentences.files == []


ODD = [["plain", "words"], ["", "a b"], ["tab\tbed", "x"], ["new\nline"], ["nbsp\u00a0x", "plain"],
       ["sur\ud800rogate", "words"], [], ["plain"], [" "], ["a", "b", "a b"]]


@pytest.mark.parametrize("at", [0, 3, 50])
def test_tokens_the_byte_scanner_would_split_differently_are_kept_as_given(monkeypatch, at):
    # empty tokens, tokens with whitespace or a lone surrogate: from the batch that holds the first one
    # on, tokens are counted through a dict, with the same ids and counts as one look-up per token
    monkeypatch.setattr(iterables, "BATCH_TOKENS", 4)
    plain = [["w%d" % (i % 7), "v%d" % (i % 5), "plain"] for i in range(at)]
    sentences = plain + ODD + plain
    scanned = scan_sentences(sentences)
    words, counts, ids = _reference(sentences)
    assert scanned.words == words
    assert scanned.counts.tolist() == counts
    assert _stream(scanned).tolist() == ids
    assert scanned.n_sentences == len(sentences)
    assert scanned.n_tokens == sum(map(len, sentences))


def test_a_corpus_without_odd_tokens_is_counted_by_the_byte_scanner_with_the_same_result(monkeypatch):
    monkeypatch.setattr(iterables, "BATCH_TOKENS", 5)
    sentences = [["été", "naïve", "x%d" % (i % 11)] * (i % 4) for i in range(300)]
    used = []
    real = iterables._SentenceScan.count_in_dict
    monkeypatch.setattr(iterables._SentenceScan, "count_in_dict", lambda *a: used.append(1) or real(*a))
    scanned = scan_sentences(sentences)
    words, counts, ids = _reference(sentences)
    assert (scanned.words, scanned.counts.tolist(), _stream(scanned).tolist()) == (words, counts, ids)
    assert not used


def test_sentences_of_any_sized_or_plain_iterable_type():
    sentences = [("a", "b"), np.array(["c", "a"]), (w for w in ["b", "c"]), iter(["a"])]
    scanned = scan_sentences(sentences)
    assert scanned.words == ["a", "b", "c"]
    assert scanned.counts.tolist() == [3, 2, 2]


@pytest.mark.parametrize("sentences, message", [
    (["a sentence as a str"], "sentence 0 is a str"),
    ([["ok"], None], "sentence 1 is a NoneType"),
    ([["ok"], [1, 2]], "tokens must be str, not int"),
    ([["ok"], [["nested"]]], "not hashable"),
    ([[], []], "corpus is empty"),
    ([], "corpus is empty"),
])
def test_what_is_not_sentences_of_str_tokens_is_a_corpus_error(sentences, message):
    with pytest.raises(CorpusError, match=message):
        scan_sentences(sentences)


def test_the_id_stream_spills_to_a_temporary_file_beyond_the_memory_budget():
    sentences = [["w%d" % (i % 100) for i in range(j, j + 50)] for j in range(2000)]
    scanned = scan_sentences(sentences, memory_budget=1024)
    assert scanned.stream.on_disk
    words, counts, ids = _reference(sentences)
    assert (scanned.words, scanned.counts.tolist(), _stream(scanned).tolist()) == (words, counts, ids)


def test_no_sentence_is_kept_once_its_batch_is_counted():
    import gc
    import weakref

    class Sentence(list):
        pass

    refs = []

    def sentences():
        for _ in range(3 * iterables.BATCH_TOKENS // 100):
            s = Sentence(["w%d" % (j % 50) for j in range(100)])
            refs.append(weakref.ref(s))
            yield s

    scan_sentences(sentences())
    gc.collect()
    assert sum(r() is not None for r in refs) == 0


@pytest.mark.parametrize("max_sentence_length", [1, 3, 4, 10000])
def test_line_sentences_counts_what_gensims_line_sentence_yields(tmp_path, max_sentence_length):
    gensim = pytest.importorskip("gensim")
    files = []
    for k, text in enumerate(["a b c\n\n d e f g h i j\nk l\n", "x " * 25 + "\n\nlast line without end",
                              "", "\n\n"]):
        files.append(tmp_path / f"{k}.txt")
        files[-1].write_text(text, encoding="utf-8")
    expected = sum(len(list(gensim.models.word2vec.LineSentence(str(f), max_sentence_length))) for f in files)
    scanned = scan_corpus([str(f) for f in files[:2]])
    assert line_sentences(scanned.stream, max_sentence_length, block=3) == expected
    assert line_sentences(scanned.stream, max_sentence_length) == expected


def test_corpus_source_reads_paths_as_files_and_anything_else_as_sentences(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("a b\n", encoding="utf-8")
    assert corpus_source(str(f)).paths == [str(f)]
    assert corpus_source([str(f), f]).paths == [str(f), f]
    assert corpus_source(None, corpus_file=f).paths == [f]
    assert corpus_source(None) is None
    sentences = [["a", "b"]]
    source = corpus_source(sentences)
    assert source.paths is None and source.iterable is sentences and source.is_same(sentences)
    sentences.append(["c"])
    assert not source.is_same(sentences)        # a list that grew is another corpus
    assert not source.is_same([["a", "b"]])
    assert corpus_source(sentences, file_backed=lambda c: ["x.txt"]).paths == ["x.txt"]


def test_corpus_source_refuses_what_cannot_be_read_as_asked(tmp_path):
    with pytest.raises(ParameterError, match="not both"):
        corpus_source([["a"]], corpus_file="c.txt")
    with pytest.raises(ParameterError, match="corpus_file must be a path"):
        corpus_source(None, corpus_file=[["a"]])
    with pytest.raises(ParameterError, match="not int"):
        corpus_source(5)
    with pytest.raises(CorpusError, match="read as file paths"):
        corpus_source(["a sentence of words", "another one"])
    generator = (s for s in [["a"]])
    assert corpus_source(generator, passes=1).iterable is generator
    with pytest.raises(ParameterError, match="needs 2 passes"):
        corpus_source(generator, passes=2)
    with pytest.raises(ParameterError, match="needs 6 passes"):
        corpus_source(itertools.repeat(["a"], 3), passes=6)


def test_corpus_source_keeps_an_iterable_by_weak_reference_where_it_can():
    class Corpus:
        def __iter__(self):
            return iter([["a"]])

    corpus = Corpus()
    source = CorpusSource(iterable=corpus)
    assert source.is_same(corpus)
    del corpus
    import gc
    gc.collect()
    assert source.iterable is None
