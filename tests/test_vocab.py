import numpy as np
import pytest

from w2v.corpus import scan_corpus
from w2v.errors import ParameterError, VocabularyError
from w2v.vocab import build_vocab


def test_counts_order_and_min_count(tmp_path):
    p = tmp_path / "c.txt"
    # first occurrences: d, c, b, a;  counts: a=4, b=3, c=3, d=1
    p.write_text("d c b a\na b c a\nb a c\n")
    sc = scan_corpus([str(p)])
    vocab, remap = build_vocab(sc.words, sc.counts, min_count=2)
    assert vocab.words == ["a", "c", "b"]          # count desc, ties by first occurrence (c before b)
    assert vocab.counts.tolist() == [4, 3, 3]
    assert remap[sc.words.index("d")] == -2
    assert vocab.total == 10
    vocab2, _ = build_vocab(sc.words, sc.counts, min_count=1, max_vocab_size=2)
    assert vocab2.words == ["a", "c"]


def test_matches_gensim_counts(small_corpus):
    gensim = pytest.importorskip("gensim")
    from gensim.models.word2vec import LineSentence
    sc = scan_corpus([str(small_corpus)])
    vocab, _ = build_vocab(sc.words, sc.counts, min_count=5)
    m = gensim.models.Word2Vec(min_count=5)
    m.build_vocab(LineSentence(str(small_corpus)))
    g = {w: m.wv.get_vecattr(w, "count") for w in m.wv.index_to_key}
    assert dict(zip(vocab.words, vocab.counts.tolist())) == g
    # the count sequence is the same; gensim 4 breaks ties by the *latest* first occurrence
    # (np.lexsort((-index, -count))), w2v by the earliest (documented in w2v.vocab.Vocab)
    assert vocab.counts.tolist() == [g[w] for w in m.wv.index_to_key]
    first = {w: i for i, w in enumerate(sc.words)}
    assert m.wv.index_to_key == sorted(vocab.words, key=lambda w: (-g[w], -first[w]))


def test_empty_vocabulary_after_min_count():
    with pytest.raises(VocabularyError, match="min_count=10"):
        build_vocab(["a", "b"], np.array([3, 2]), min_count=10)
    with pytest.raises(ParameterError):
        build_vocab(["a"], np.array([3]), min_count=0)
