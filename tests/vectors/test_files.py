"""KeyedVectors' files and evaluations under gensim 4.4's names and parameters, checked against gensim:
save_word2vec_format's fvocab, total_vec, write_header, prefix, append and sort_attr;
load_word2vec_format's fvocab, encoding, no_header and datatype; intersect_word2vec_format; load's
mmap; the evaluations' delimiter, encoding and similarity_function; gensim's internal helpers."""
import logging

import numpy as np
import pytest

from w2v.errors import FormatError, ParameterError, W2VError
from w2v.vectors.keyed import KeyedVectors

gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
GKV = gensim_kv.KeyedVectors


def make_pair(n=40, dim=6, seed=0, counts=None):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n)]
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    kv = KeyedVectors(words, vectors, counts=counts)
    g = GKV(dim)
    g.add_vectors(words, vectors.copy())
    if counts is not None:
        for w, c in zip(words, counts):
            g.set_vecattr(w, "count", int(c))
    return kv, g


def assert_same(a, b):
    assert list(a.index_to_key) == list(b.index_to_key)
    np.testing.assert_array_equal(np.asarray(a.vectors), np.asarray(b.vectors))


def shuffled_counts(n=40, seed=2):
    return np.random.default_rng(seed).permutation(n) * 10 + 1


# --------------------------------------------------------------------------- save_word2vec_format
@pytest.mark.parametrize("binary", [False, True])
def test_save_word2vec_format_with_fvocab_prefix_and_sort_attr_as_gensim(tmp_path, binary):
    kv, g = make_pair(counts=shuffled_counts())
    kv.save_word2vec_format(tmp_path / "ours", fvocab=tmp_path / "ours.vocab", binary=binary, prefix="p_")
    g.save_word2vec_format(str(tmp_path / "theirs"), fvocab=str(tmp_path / "theirs.vocab"), binary=binary,
                           prefix="p_")
    assert (tmp_path / "ours.vocab").read_bytes() == (tmp_path / "theirs.vocab").read_bytes()
    ours = GKV.load_word2vec_format(str(tmp_path / "ours"), binary=binary, fvocab=str(tmp_path / "ours.vocab"))
    theirs = GKV.load_word2vec_format(str(tmp_path / "theirs"), binary=binary, fvocab=str(tmp_path / "theirs.vocab"))
    assert_same(ours, theirs)
    assert ours.index_to_key[0].startswith("p_") and ours.expandos["count"].tolist() == sorted(
        shuffled_counts(), reverse=True)
    back = KeyedVectors.load_word2vec_format(tmp_path / "theirs", fvocab=tmp_path / "theirs.vocab", binary=binary)
    assert_same(back, theirs)
    np.testing.assert_array_equal(back.counts, theirs.expandos["count"])


def test_save_word2vec_format_default_is_text_and_order_is_kept_without_counts(tmp_path):
    kv, g = make_pair()
    kv.save_word2vec_format(tmp_path / "v")
    assert (tmp_path / "v").read_bytes().split(b"\n")[1].startswith(b"w0 ")      # text, as gensim's default
    assert_same(GKV.load_word2vec_format(str(tmp_path / "v")), g)
    kv.save_word2vec_format(tmp_path / "n", sort_attr=None)
    assert_same(KeyedVectors.load(tmp_path / "n"), kv)
    with pytest.raises(ParameterError, match="fvocab"):
        kv.save_word2vec_format(tmp_path / "x", fvocab=tmp_path / "x.vocab")     # no counts to write
    with pytest.raises(ValueError):
        g.save_word2vec_format(str(tmp_path / "x"), fvocab=str(tmp_path / "x.vocab"))
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.vocab").exists()


def test_total_vec_write_header_and_append_build_one_file_as_gensim(tmp_path):
    kv, g = make_pair(n=30)
    first, second = kv.vectors_for_all(kv.index_to_key[:20]), kv.vectors_for_all(kv.index_to_key[20:])
    gfirst, gsecond = g.vectors_for_all(g.index_to_key[:20]), g.vectors_for_all(g.index_to_key[20:])
    for binary in (False, True):
        ours, theirs = tmp_path / f"ours{binary}", str(tmp_path / f"theirs{binary}")
        first.save_word2vec_format(ours, binary=binary, total_vec=30)
        second.save_word2vec_format(ours, binary=binary, write_header=False, append=True)
        gfirst.save_word2vec_format(theirs, binary=binary, total_vec=30, sort_attr=None)
        gsecond.save_word2vec_format(theirs, binary=binary, write_header=False, append=True, sort_attr=None)
        assert_same(KeyedVectors.load_word2vec_format(ours), GKV.load_word2vec_format(theirs, binary=binary))
        assert_same(GKV.load_word2vec_format(str(ours), binary=binary), g)
    first.save_word2vec_format(tmp_path / "v.txt.gz", total_vec=30)
    second.save_word2vec_format(tmp_path / "v.txt.gz", write_header=False, append=True)
    assert_same(KeyedVectors.load(tmp_path / "v.txt.gz"), kv)
    for bad in (dict(total_vec=10), dict(total_vec=-1), dict(total_vec=2.5), dict(prefix="a b"),
                dict(sort_attr=3), dict(fvocab=True)):
        with pytest.raises(ParameterError):
            kv.save_word2vec_format(tmp_path / "bad", **bad)
    assert not (tmp_path / "bad").exists()


def test_write_header_false_is_read_with_no_header_as_gensim(tmp_path):
    kv, g = make_pair()
    kv.save_word2vec_format(tmp_path / "glove.txt", write_header=False)
    theirs = GKV.load_word2vec_format(str(tmp_path / "glove.txt"), no_header=True)
    assert_same(theirs, g)
    assert_same(KeyedVectors.load_word2vec_format(tmp_path / "glove.txt", no_header=True), theirs)
    assert_same(KeyedVectors.load_word2vec_format(tmp_path / "glove.txt", no_header=True, limit=5),
                GKV.load_word2vec_format(str(tmp_path / "glove.txt"), no_header=True, limit=5))
    with pytest.raises(ParameterError, match="no_header"):
        KeyedVectors.load_word2vec_format(tmp_path / "glove.txt", no_header=True, binary=True)
    (tmp_path / "bad.txt").write_text("a 1 2\nb 1\n")
    with pytest.raises(FormatError, match="line 2"):
        KeyedVectors.load_word2vec_format(tmp_path / "bad.txt", no_header=True)


# --------------------------------------------------------------------------- load_word2vec_format
def test_load_word2vec_format_reads_fvocab_encoding_and_limit_as_gensim(tmp_path):
    words = ["café", "naïve", "über"]
    lines = [f"{w} " + " ".join(str(float(i + k)) for k in range(3)) for i, w in enumerate(words)]
    (tmp_path / "latin1.txt").write_bytes(("3 3\n" + "\n".join(lines) + "\n").encode("latin-1"))
    (tmp_path / "vocab.txt").write_text("naïve 7\ncafé 9\nextra 1\n", encoding="utf-8")
    ours = KeyedVectors.load_word2vec_format(tmp_path / "latin1.txt", fvocab=tmp_path / "vocab.txt",
                                             encoding="latin-1", datatype=np.float32)
    theirs = GKV.load_word2vec_format(str(tmp_path / "latin1.txt"), encoding="latin-1")
    assert_same(ours, theirs)
    assert ours.counts.tolist() == [9, 7, 0]                 # über is not listed: count 0
    with pytest.raises(FormatError, match="not valid UTF-8"):
        KeyedVectors.load_word2vec_format(tmp_path / "latin1.txt")
    assert KeyedVectors.load_word2vec_format(tmp_path / "latin1.txt", encoding="latin-1", limit=2).index_to_key \
        == GKV.load_word2vec_format(str(tmp_path / "latin1.txt"), encoding="latin-1", limit=2).index_to_key
    kv, _ = make_pair()
    kv.save_word2vec_format(tmp_path / "b.bin", binary=True)
    for bad in (dict(datatype=np.int32), dict(encoding="utf-16"), dict(encoding="nope"), dict(fvocab=True)):
        with pytest.raises(ParameterError):
            KeyedVectors.load_word2vec_format(tmp_path / "b.bin", **bad)
    (tmp_path / "badvocab").write_text("w0 12\nw1 x\n")
    with pytest.raises(FormatError, match="line 2"):
        KeyedVectors.load_word2vec_format(tmp_path / "b.bin", fvocab=tmp_path / "badvocab")


def test_binary_words_in_another_encoding_load_as_gensim(tmp_path):
    rows = np.arange(6, dtype=np.float32).reshape(2, 3)
    data = b"2 3\n" + b"".join("é{} ".format(i).encode("latin-1") + r.tobytes() + b"\n" for i, r in enumerate(rows))
    (tmp_path / "v.bin").write_bytes(data)
    ours = KeyedVectors.load_word2vec_format(tmp_path / "v.bin", binary=True, encoding="latin-1")
    assert_same(ours, GKV.load_word2vec_format(str(tmp_path / "v.bin"), binary=True, encoding="latin-1"))
    assert ours.index_to_key == ["é0", "é1"]


# --------------------------------------------------------------------------- intersect, load, save
def test_intersect_word2vec_format_takes_the_shared_words_as_gensim(tmp_path):
    kv, g = make_pair(n=20)
    other, _ = make_pair(n=30, seed=5)
    other = other.vectors_for_all([f"w{i}" for i in range(10, 30)] + [])
    other.save_word2vec_format(tmp_path / "o.txt")
    g.vectors_lockf = np.ones(20, dtype=np.float32)     # gensim needs one lock factor per word first
    assert kv.intersect_word2vec_format(tmp_path / "o.txt", lockf=0.5) == 10
    g.intersect_word2vec_format(str(tmp_path / "o.txt"), lockf=0.5)
    assert_same(kv, g)
    np.testing.assert_array_equal(kv.vectors_lockf, g.vectors_lockf)
    assert kv.most_similar("w12", topn=3)[0][0] == g.most_similar("w12", topn=3)[0][0]
    other.save_word2vec_format(tmp_path / "o.bin", binary=True)
    kv.intersect_word2vec_format(tmp_path / "o.bin")          # detected as binary
    assert kv.vectors_lockf[10:].tolist() == [0.0] * 10
    with pytest.raises(ParameterError, match="dim"):
        KeyedVectors(["w1"], np.ones((1, 2))).intersect_word2vec_format(tmp_path / "o.txt")
    with pytest.raises(ParameterError, match="lockf"):
        kv.intersect_word2vec_format(tmp_path / "o.txt", lockf=float("nan"))


def test_load_takes_gensims_mmap_and_refuses_its_pickles(tmp_path):
    kv, g = make_pair(counts=np.arange(40, 0, -1))
    kv.save(tmp_path / "native")
    for mmap, writeable in ((None, False), ("r", False), (False, True)):
        back = KeyedVectors.load(tmp_path / "native", mmap)
        assert_same(back, kv)
        assert back.vectors.flags.writeable is writeable and back.counts.tolist() == kv.counts.tolist()
    with pytest.raises(ParameterError, match="mmap"):
        KeyedVectors.load(tmp_path / "native", mmap="r+")
    g.save(str(tmp_path / "gensim.kv"))
    with pytest.raises(FormatError, match="pickle"):
        KeyedVectors.load(tmp_path / "gensim.kv")
    with pytest.raises(ParameterError, match="separately"):
        kv.save(tmp_path / "x", separately=["vectors"])
    with pytest.raises(ParameterError, match="path"):
        kv.save(open(tmp_path / "handle", "wb"))


# --------------------------------------------------------------------------- evaluations
def test_evaluate_word_pairs_takes_gensims_delimiter_and_encoding(tmp_path):
    kv, g = make_pair()
    rows = [("w1", "w2", 3.5), ("w3", "w9", 1.0), ("w4", "w30", 8.25), ("w5", "w6", 6.0), ("w7", "nope", 2.0)]
    (tmp_path / "p.csv").write_bytes("".join(f"{a};{b};{s}\n" for a, b, s in rows).encode("latin-1"))
    ours = kv.evaluate_word_pairs(tmp_path / "p.csv", delimiter=";", encoding="latin-1")
    theirs = g.evaluate_word_pairs(str(tmp_path / "p.csv"), delimiter=";", encoding="latin-1")
    np.testing.assert_allclose([ours[0][0], ours[1][0], ours[2]], [theirs[0][0], theirs[1][0], theirs[2]], rtol=1e-6,
                               atol=1e-12)
    assert kv.evaluate_word_pairs(tmp_path / "p.csv", ";", "latin-1", 300000, True, True)[2] == \
        g.evaluate_word_pairs(str(tmp_path / "p.csv"), ";", "latin-1", 300000, True, True)[2] == 20.0
    with pytest.raises(ParameterError, match="delimiter"):
        kv.evaluate_word_pairs(tmp_path / "p.csv", 1000)      # w2v's former second argument, restrict_vocab
    with pytest.raises(ParameterError, match="encoding"):
        kv.evaluate_word_pairs(tmp_path / "p.csv", encoding="nope")


def test_evaluate_word_analogies_honours_similarity_function(tmp_path):
    rng = np.random.default_rng(4)
    words = [f"w{i}" for i in range(60)]
    kv = KeyedVectors(words, rng.standard_normal((60, 8)).astype(np.float32))
    g = GKV(8)
    g.add_vectors(words, kv.vectors.copy())
    quads = [rng.choice(60, 4, replace=False) for _ in range(200)]
    (tmp_path / "q.txt").write_text(": s\n" + "".join(" ".join(f"w{i}" for i in q) + "\n" for q in quads))
    score, sections = kv.evaluate_word_analogies(tmp_path / "q.txt", similarity_function="most_similar")
    gscore, gsections = g.evaluate_word_analogies(str(tmp_path / "q.txt"))
    assert score == gscore > 0
    assert [{k: v for k, v in s.items() if k != "oov"} for s in sections] == gsections
    cosmul = kv.evaluate_word_analogies(tmp_path / "q.txt", similarity_function="most_similar_cosmul")
    assert cosmul == kv.evaluate_word_analogies(tmp_path / "q.txt", method="3cosmul")     # gensim ignores it
    with pytest.raises(ParameterError, match="similarity_function"):
        kv.evaluate_word_analogies(tmp_path / "q.txt", similarity_function="nope")
    with pytest.raises(ParameterError, match="not both"):
        kv.evaluate_word_analogies(tmp_path / "q.txt", method="3cosmul", similarity_function="most_similar")


def test_the_evaluation_loggers_log_as_gensims(caplog):
    with caplog.at_level(logging.INFO, logger="w2v"):
        KeyedVectors.log_accuracy({"section": "capitals", "correct": [1, 2, 3], "incorrect": [4]})
        KeyedVectors.log_accuracy({"section": "empty", "correct": [], "incorrect": []})
        KeyedVectors.log_evaluate_word_pairs((0.5, 0.01), (0.25, 0.1), 12.5, "pairs.tsv")
    text = caplog.text
    assert "capitals: 75.0% (3/4)" in text and "empty" not in text
    assert "against pairs.tsv: 0.5000" in text and "0.2500" in text and "12.5%" in text


# --------------------------------------------------------------------------- gensim's internals
def test_gensims_internal_and_deprecated_names(caplog):
    kv, g = make_pair()
    with caplog.at_level(logging.INFO, logger="w2v"):
        kv.add_lifecycle_event("created", msg="hello")
    event = kv.lifecycle_events[-1]
    assert event["event"] == "created" and event["msg"] == "hello" and {"datetime", "python", "platform"} <= set(event)
    assert "created" in caplog.text
    kv.lifecycle_events = None
    kv.add_lifecycle_event("ignored", log_level=False)
    assert kv.lifecycle_events is None
    np.testing.assert_array_equal(kv.word_vec("w3", norm=True), kv.get_vector("w3", norm=True))
    for name in ("vocab", "index2word", "index2entity", "vectors_norm"):
        with pytest.raises(AttributeError, match="gensim 4"):
            getattr(kv, name)
        with pytest.raises(AttributeError):
            getattr(g, name)
    with pytest.raises(NotImplementedError) as err:
        kv.similarity_unseen_docs(["a"], ["b"])
    assert isinstance(err.value, W2VError)
