"""Reading corpora into Word2Vec (w2v.model.reader): paths and iterables, gensim's steps, which corpus train uses."""
import os
import warnings

import numpy as np
import pytest

import w2v.model.reader as reading
from w2v import CorpusWarning, LineSentence, ParameterError, VocabularyError, Word2Vec

gensim = pytest.importorskip("gensim")

SMALL = dict(vector_size=16, min_count=2, epochs=2, workers=1, seed=5)


@pytest.fixture(scope="module")
def corpus(small_corpus, tmp_path_factory):
    """A 1,500-line text file and its sentences."""
    lines = small_corpus.read_text(encoding="utf-8").splitlines()[:1500]
    path = tmp_path_factory.mktemp("reading") / "c.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path), [line.split() for line in lines]


class Counted:
    """A restartable corpus that counts how often it is read."""

    def __init__(self, sentences):
        self.sentences = sentences
        self.reads = 0

    def __iter__(self):
        self.reads += 1
        return iter(self.sentences)


def test_sentences_files_and_line_sentence_train_the_same_vectors(corpus):
    path, sentences = corpus
    models = [Word2Vec(sentences=sentences, **SMALL), Word2Vec(corpus_file=path, **SMALL),
              Word2Vec(sentences=LineSentence(path), **SMALL),
              Word2Vec(sentences=gensim.models.word2vec.LineSentence(path), **SMALL),
              Word2Vec(sentences=Counted(sentences), **SMALL)]
    first = models[0]
    for m in models[1:]:
        assert m.vocab.words == first.vocab.words
        assert np.array_equal(m.wv.vectors, first.wv.vectors)
        assert (m.corpus_count, m.corpus_total_words) == (first.corpus_count, first.corpus_total_words)
    g = gensim.models.Word2Vec(vector_size=16, min_count=2)
    g.build_vocab(sentences)
    assert (first.corpus_count, first.corpus_total_words) == (g.corpus_count, g.corpus_total_words)
    assert set(first.wv.index_to_key) == set(g.wv.index_to_key)


def test_a_corpus_is_read_once_and_trained_again_without_reading_it(corpus):
    _, sentences = corpus
    counted = Counted(sentences)
    m = Word2Vec(sentences=counted, **dict(SMALL, epochs=3))
    assert counted.reads == 1                        # gensim reads it 4 times
    m.train(counted, total_examples=m.corpus_count, epochs=2)
    assert counted.reads == 1
    other = Counted(sentences[:500])
    m.train(other, total_examples=500, epochs=1)
    assert other.reads == 1
    m.train(other, total_examples=500, epochs=1)
    assert other.reads == 1
    m.train(counted, total_examples=m.corpus_count, epochs=1)   # read again: the model trained on another since
    assert counted.reads == 2


def test_a_list_that_changed_is_read_again(corpus):
    _, sentences = corpus
    mine = list(sentences[:300])
    m = Word2Vec(sentences=mine, **SMALL)
    length = m.encoded_corpus.length
    mine.extend(sentences[300:600])
    m.train(mine, total_examples=600, epochs=1)
    assert m.encoded_corpus.length > length


def test_the_same_unchanged_file_is_not_read_again(corpus, tmp_path, monkeypatch):
    path, _ = corpus
    copy = tmp_path / "copy.txt"
    copy.write_bytes(open(path, "rb").read())
    reads = []
    real = reading.scan_with_progress
    monkeypatch.setattr(reading, "scan_with_progress", lambda *a, **k: reads.append(a[0]) or real(*a, **k))
    m = Word2Vec(**SMALL)
    m.build_vocab(corpus_file=str(copy))
    m.train(corpus_file=str(copy), total_words=m.corpus_total_words, epochs=1)
    m.train(str(copy))
    assert len(reads) == 1
    with open(copy, "a", encoding="utf-8") as f:
        f.write("more words here\n")
    os.utime(copy, ns=(1, 1))
    m.train(str(copy))
    assert len(reads) == 2


def test_an_iterator_is_read_once_and_refused_where_gensim_would_read_it_again(corpus):
    _, sentences = corpus
    with pytest.raises(ParameterError, match="iterator"):
        Word2Vec(sentences=iter(sentences), **SMALL)
    m = Word2Vec(**SMALL)
    m.build_vocab(s for s in sentences)
    with pytest.raises(ParameterError, match="needs 2 passes"):
        m.train((s for s in sentences), total_examples=m.corpus_count, epochs=2)
    m.train(total_examples=m.corpus_count, epochs=2)    # the corpus build_vocab read
    assert m.last_train.examples > 0


def test_an_online_update_adds_the_new_words_of_sentences(corpus):
    _, sentences = corpus
    m = Word2Vec(sentences=sentences, **SMALL)
    new = [["zyx", "wvu", "the"], ["zyx", "wvu", "and"]] * 3
    count = m.wv.get_vecattr("the", "count")
    m.build_vocab(new, update=True)
    assert m.corpus_count == 6 and m.corpus_total_words == 18
    assert m.vocab.words[-2:] == ["zyx", "wvu"] and m.wv.get_vecattr("the", "count") == count + 3
    trained, raw = m.train(new, total_examples=m.corpus_count, epochs=m.epochs)
    assert raw == 18 * m.epochs and 0 < trained <= raw


@pytest.mark.parametrize("options", [dict(min_count=5), dict(min_count=1, max_final_vocab=300),
                                     dict(min_count=3, max_final_vocab=100000),
                                     dict(min_count=3, trim_rule="rule")])
def test_the_vocabulary_is_gensims(corpus, options):
    _, sentences = corpus
    options = dict(options)
    trim = None
    if options.pop("trim_rule", None):
        def trim(word, count, min_count):
            return 2 if word.startswith("q") else (1 if word.startswith("t") else 0)
    ours = Word2Vec(min_count=options["min_count"], max_final_vocab=options.get("max_final_vocab"), vector_size=8)
    ours.build_vocab(sentences, trim_rule=trim)
    theirs = gensim.models.Word2Vec(min_count=options["min_count"], max_final_vocab=options.get("max_final_vocab"),
                                    vector_size=8)
    theirs.build_vocab(sentences, trim_rule=trim)
    assert set(ours.wv.index_to_key) == set(theirs.wv.index_to_key)
    assert ours.effective_min_count == theirs.effective_min_count
    counts = [ours.wv.get_vecattr(w, "count") for w in ours.wv.index_to_key]
    assert counts == sorted(counts, reverse=True)


def test_scan_vocab_and_prepare_vocab_are_build_vocabs_steps(corpus):
    _, sentences = corpus
    m = Word2Vec(vector_size=8, min_count=2, workers=1)
    total_words, count = m.scan_vocab(sentences)
    assert (total_words, count) == (sum(map(len, sentences)), len(sentences))
    assert m.raw_vocab["the"] == sum(s.count("the") for s in sentences)
    dry = m.prepare_vocab(min_count=50, dry_run=True)
    assert m.vocab is None and m.settings.min_count == 2
    g = gensim.models.Word2Vec(vector_size=8, min_count=2)
    g.scan_vocab(sentences)
    assert dry == g.prepare_vocab(min_count=50, dry_run=True)
    report = m.prepare_vocab(min_count=50, keep_raw_vocab=True)
    assert report["num_retained_words"] == len(m.vocab) and m.settings.min_count == 50
    assert m.raw_vocab["the"] > 0
    m.prepare_weights()
    m.train(sentences, total_examples=count, epochs=1)
    with pytest.raises(VocabularyError, match="scan_vocab"):
        m.prepare_vocab()


def test_build_vocab_from_freq_then_train_on_sentences(corpus):
    _, sentences = corpus
    m = Word2Vec(vector_size=8, min_count=2, workers=1, epochs=1)
    m.build_vocab_from_freq({"the": 50, "and": 40, "of": 40, "rare": 1}, corpus_count=7)
    assert m.wv.index_to_key == ["the", "and", "of"] and m.corpus_count == 7
    with pytest.raises(VocabularyError, match="no corpus"):
        m.train(total_examples=7, epochs=1)
    m.train(sentences, total_examples=len(sentences), epochs=1)
    m.build_vocab_from_freq({"zzz": 9}, update=True)
    assert m.wv.index_to_key[-1] == "zzz" and m.syn0.shape[0] == 4


def test_totals_that_disagree_with_the_corpus_warn(corpus):
    _, sentences = corpus
    m = Word2Vec(sentences=sentences, **SMALL)
    with pytest.warns(CorpusWarning, match="total_examples=10 differs from the 1,500 sentences"):
        m.train(sentences, total_examples=10, epochs=1)
    with pytest.warns(CorpusWarning, match="total_words=10 differs"):
        m.train(sentences, total_words=10, epochs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.train(sentences, total_examples=m.corpus_count, total_words=10, epochs=1)   # as gensim: examples first


def test_train_returns_the_model_unless_called_with_gensims_totals_or_epochs(corpus):
    path, sentences = corpus
    m = Word2Vec(min_count=2, dim=8, epochs=1, threads=1)
    assert m.train(path) is m
    assert m.train(path, corpus_file=None) is m
    result = m.train(path, epochs=2)
    assert isinstance(result, tuple) and result[1] == 2 * m.corpus_tokens
    assert m.settings.epochs == 2
    m.train(path, start_alpha=0.01, end_alpha=0.001, epochs=1)
    assert (m.alpha, m.min_alpha) == (0.01, 0.001)
    with pytest.raises(ParameterError, match="word_count"):
        m.train(path, word_count=5, epochs=1)


def test_a_dask_cluster_needs_files(corpus):
    _, sentences = corpus
    m = Word2Vec(**SMALL)
    with pytest.raises(ParameterError, match="Dask"):
        m.train(sentences, client=object())
