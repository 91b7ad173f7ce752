import numpy as np
import pytest

from w2v.text.scanning import scan_corpus
from w2v.errors import ParameterError, VocabularyError
from w2v.text.vocab import Vocab, build_vocab


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
    # (np.lexsort((-index, -count))), w2v by the earliest (documented in w2v.text.vocab.Vocab)
    assert vocab.counts.tolist() == [g[w] for w in m.wv.index_to_key]
    first = {w: i for i, w in enumerate(sc.words)}
    assert m.wv.index_to_key == sorted(vocab.words, key=lambda w: (-g[w], -first[w]))


def test_empty_vocabulary_after_min_count():
    with pytest.raises(VocabularyError, match="min_count=10"):
        build_vocab(["a", "b"], np.array([3, 2]), min_count=10)
    with pytest.raises(ParameterError):
        build_vocab(["a"], np.array([3]), min_count=0)


def test_order_of_many_ties_is_first_occurrence():
    # the stable sort matters only past a few words: numpy sorts up to 16 by insertion
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(3000)]
    counts = rng.integers(1, 12, len(words)).astype(np.int64)     # ~270 words per count
    vocab, remap = build_vocab(words, counts, min_count=3, max_vocab_size=2000)
    want = sorted((i for i in range(len(words)) if counts[i] >= 3), key=lambda i: (-counts[i], i))[:2000]
    assert vocab.words == [words[i] for i in want]
    assert vocab.counts.tolist() == [int(counts[i]) for i in want]
    expect = np.full(len(words), -2)
    expect[want] = np.arange(len(want))
    assert np.array_equal(remap, expect)


def test_max_vocab_size_below_one_is_refused():
    with pytest.raises(ParameterError):
        build_vocab(["a", "b"], np.array([3, 2]), min_count=1, max_vocab_size=0)


@pytest.mark.parametrize("words,counts", [(["a", "b", "a"], [5, 3, 1]), (["a", "b"], [5]), (["a"], [5, 3])])
def test_vocab_refuses_duplicate_words_and_counts_of_another_length(words, counts):
    # the corpus is encoded through the word index: a duplicate would map to one row only
    with pytest.raises(VocabularyError):
        Vocab(words, counts)


def test_counts_above_int32_are_kept_exactly():
    # a frequent word of a corpus of tens of billions of tokens is counted past 2**31
    big = 3 * 2 ** 31 + 7
    vocab, remap = build_vocab(["a", "b", "c"], np.array([5, big, 2], np.int64), min_count=3)
    assert vocab.words == ["b", "a"] and vocab.counts.tolist() == [big, 5]
    assert remap.tolist() == [1, 0, -2]


@pytest.mark.parametrize("edit", ["extra word in index", "counts int32", "counts float"])
def test_check_refuses_a_vocabulary_edited_by_hand(edit):
    # the corpus is encoded through the index: a word there that is not a row would get its id
    vocab = Vocab(["a", "b", "c"], [5, 3, 1])
    vocab.check()
    if edit == "extra word in index":
        vocab.index["z"] = 10 ** 6
    elif edit == "counts int32":
        vocab.counts = vocab.counts.astype(np.int32)
    else:
        vocab.counts = vocab.counts.astype(np.float64)
    with pytest.raises(VocabularyError, match="vocabulary"):
        vocab.check()


def test_merge_vocab_keeps_ids_adds_counts_and_appends_new_words():
    from w2v.text.vocab import merge_vocab, vocab_ids

    old = Vocab(["a", "b", "c"], [10, 5, 3])
    # corpus words in first-occurrence order: new words x (4), y (2), z (4), w (1)
    words = ["x", "b", "y", "z", "a", "w"]
    counts = np.array([4, 2, 2, 4, 1, 1], np.int64)
    vocab, remap = merge_vocab(old, words, counts, min_count=2)
    assert vocab.words == ["a", "b", "c", "x", "z", "y"]          # count desc, ties by first occurrence
    assert vocab.counts.tolist() == [11, 7, 3, 4, 4, 2]
    assert remap.tolist() == [3, 1, 5, 4, 0, -2]
    assert old.words == ["a", "b", "c"] and old.counts.tolist() == [10, 5, 3]   # left as it was
    capped, remap = merge_vocab(old, words, counts, min_count=2, max_vocab_size=4)
    assert capped.words == ["a", "b", "c", "x"] and remap.tolist() == [3, 1, -2, -2, 0, -2]
    assert vocab_ids(vocab, ["z", "q", "a"]).tolist() == [4, -2, 0]
    with pytest.raises(VocabularyError, match="min_count=5"):
        merge_vocab(old, ["q", "r"], np.array([1, 1], np.int64), min_count=5)
