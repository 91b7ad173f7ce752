"""w2v offers gensim 4's public API: every public method of gensim's KeyedVectors and Word2Vec, with
gensim's parameter names, positions and defaults, so that code written for gensim runs on w2v with
only the import changed.  The deliberate differences are listed here, each with its reason."""
import inspect

import pytest

gensim = pytest.importorskip("gensim")

import w2v  # noqa: E402

# Methods of gensim's KeyedVectors that w2v does not offer (or offers with other parameters).
KV_EXCEPTIONS = {}

# Defaults of KeyedVectors that differ from gensim's on purpose, each a superset of gensim's behaviour.
KV_DEFAULTS = {
    ("load_word2vec_format", "binary"): "None detects binary or text from the first record; gensim's False "
                                        "reads text, which the detection also does for every text file",
    ("intersect_word2vec_format", "binary"): "as load_word2vec_format: the format is detected",
}

# Methods of gensim's Word2Vec that w2v does not offer; with KV_EXCEPTIONS at most 8 in all.
W2V_EXCEPTIONS = {
    "add_null_word": "w2v has no null word: gensim pads concatenated context layers with it, which w2v does "
                     "not have (null_word=1 raises ParameterError)",
    "make_cum_table": "negatives are drawn from an alias table, not gensim's cumulative table; "
                      "rebuild_tables() or create_binary_tree() rebuilds it from the counts",
}
# None: gensim's 0 (CBOW) and 3 in gensim mode, w2v's skip-gram and every core otherwise (w2v.model.gensim_params)
W2V_DEFAULTS = {
    ("__init__", "sg"): "None is 0 (CBOW) when any gensim-only name is given, else w2v's skip-gram",
    ("__init__", "workers"): "None is 3 when any gensim-only name is given, else every core available",
}

MAX_EXCEPTIONS = 8


def _named(params):
    return [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _public(cls, with_init=False):
    names = sorted(n for n in dir(cls) if not n.startswith("_"))
    attributes = [n for n in names if isinstance(inspect.getattr_static(cls, n), property)]
    methods = [n for n in names if n not in attributes and callable(getattr(cls, n))]
    return (["__init__"] if with_init else []) + methods, attributes


def _mismatches(theirs, ours, exceptions, defaults, with_init=False):
    """What gensim's class ``theirs`` has that ``ours`` lacks: methods, parameters, positions, defaults."""
    problems = []
    methods, attributes = _public(theirs, with_init)
    for name in attributes:
        if name not in exceptions and not hasattr(ours, name):
            problems.append(f"attribute {name} is missing")
    for name in methods:
        if name in exceptions:
            continue
        mine = getattr(ours, name, None)
        if mine is None:
            problems.append(f"{name} is missing")
            continue
        gsig, osig = inspect.signature(getattr(theirs, name)), inspect.signature(mine)
        ours_params = list(osig.parameters.values())
        for pos, param in enumerate(_named(gsig.parameters.values())):
            got = osig.parameters.get(param.name)
            if got is None:
                problems.append(f"{name}: no parameter {param.name}")
                continue
            if param.kind is param.POSITIONAL_OR_KEYWORD and (
                    got.kind is not got.POSITIONAL_OR_KEYWORD or ours_params.index(got) != pos):
                problems.append(f"{name}: {param.name} is not at position {pos}")
            same = got.default is param.default or (got.default == param.default) is True
            if not same and (name, param.name) not in defaults:
                problems.append(f"{name}: {param.name}={got.default!r}, gensim's default is {param.default!r}")
    return problems


def test_keyedvectors_has_every_public_method_of_gensims_with_its_parameters():
    assert _mismatches(gensim.models.KeyedVectors, w2v.KeyedVectors, KV_EXCEPTIONS, KV_DEFAULTS, with_init=True) == []


def test_the_keyedvectors_exceptions_are_few_and_say_why():
    assert len(KV_EXCEPTIONS) <= 3
    assert len(KV_EXCEPTIONS) + len(W2V_EXCEPTIONS) <= MAX_EXCEPTIONS
    for reasons in (KV_EXCEPTIONS, KV_DEFAULTS, W2V_EXCEPTIONS, W2V_DEFAULTS):
        assert all(isinstance(why, str) and len(why) > 20 for why in reasons.values())


def test_the_signature_check_finds_what_is_missing():
    class Theirs:
        def query(self, word, topn=10, clip=None):
            pass

        def other(self):
            pass

    class Ours:
        def query(self, word, topn=5):
            pass

    class Swapped:
        def query(self, topn=10, word=None, clip=None):
            pass

        def other(self):
            pass

    assert _mismatches(Theirs, Ours, {}, {}) == [
        "other is missing", "query: topn=5, gensim's default is 10", "query: no parameter clip"]
    assert _mismatches(Theirs, Swapped, {}, {}) == [
        "query: word is not at position 1", "query: word=None, gensim's default is <class 'inspect._empty'>",
        "query: topn is not at position 2"]
    assert _mismatches(Theirs, Ours, {"query": "a reason", "other": "a reason"}, {}) == []


def test_the_former_w2v_names_still_work(tmp_path):
    import numpy as np

    kv = w2v.KeyedVectors(["a", "b"], np.eye(2, dtype=np.float32))
    kv.save_word2vec_format(path=tmp_path / "v.txt")
    assert w2v.KeyedVectors.load_word2vec_format(path=tmp_path / "v.txt").index_to_key == ["a", "b"]
    assert w2v.KeyedVectors.load(path=tmp_path / "v.txt").index_to_key == ["a", "b"]
    assert kv.similar_by_key(word="a", topn=1) == kv.similar_by_key("a", topn=1)
    with pytest.raises(w2v.ParameterError, match="fname or path"):
        kv.save_word2vec_format(tmp_path / "w.txt", path=tmp_path / "v.txt")


def test_word2vec_has_every_public_method_of_gensims_with_its_parameters():
    assert _mismatches(gensim.models.Word2Vec, w2v.Word2Vec, W2V_EXCEPTIONS, W2V_DEFAULTS, with_init=True) == []


# --------------------------------------------------------------------------- Word2Vec's behaviour
SENTENCES = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "sat", "on", "the", "log"],
             ["a", "cat", "and", "a", "dog"]] * 30


@pytest.fixture(scope="module")
def trained():
    return w2v.Word2Vec(sentences=SENTENCES, vector_size=12, min_count=1, sample=0, workers=1, epochs=3, seed=3)


@pytest.mark.parametrize("cbow_mean", [0, 1])
def test_predict_output_word_answers_as_gensims_on_the_same_weights(trained, cbow_mean):
    import numpy as np

    g = gensim.models.Word2Vec(SENTENCES, vector_size=12, min_count=1, sample=0, workers=1, epochs=1,
                               cbow_mean=cbow_mean)
    g.wv.vectors[:] = trained.wv[g.wv.index_to_key]
    g.syn1neg[:] = trained.syn1neg[[trained.wv.get_index(w) for w in g.wv.index_to_key]]
    trained.cbow_mean = cbow_mean
    try:
        ours = trained.predict_output_word(["cat", "on", "unknown"], topn=4)
    finally:
        trained.cbow_mean = 1
    theirs = g.predict_output_word(["cat", "on", "unknown"], topn=4)
    assert [w for w, _ in ours] == [w for w, _ in theirs]
    assert np.allclose([p for _, p in ours], [p for _, p in theirs], rtol=1e-4)
    assert trained.predict_output_word(["unknown"]) is None


def test_predict_output_word_needs_negative_sampling():
    m = w2v.Word2Vec(sentences=SENTENCES, vector_size=8, min_count=1, hs=1, negative=0, epochs=1)
    with pytest.raises(w2v.ParameterError, match="negative"):
        m.predict_output_word(["cat"])


def test_gensims_attribute_names_read_and_write_the_settings(trained):
    assert (trained.vector_size, trained.workers, trained.sg, trained.hs, trained.negative) == (12, 1, 0, 0, 5)
    assert (trained.epochs, trained.window, trained.min_count, trained.cbow_mean) == (3, 5, 1, 1)
    assert trained.layer1_size == 12 and trained.alpha == 0.025
    m = w2v.Word2Vec(vector_size=8)
    m.epochs, m.sg, m.workers, m.hs = 7, 1, 2, 1
    assert (m.settings.epochs, m.settings.model, m.settings.threads, m.settings.hs) == (7, "sg", 2, True)


def test_estimate_memory_reports_gensims_keys(trained):
    ours = trained.estimate_memory()
    theirs = gensim.models.Word2Vec(SENTENCES, vector_size=12, min_count=1).estimate_memory()
    assert set(theirs) <= set(ours)
    assert ours["vectors"] == theirs["vectors"] and ours["syn1neg"] == theirs["syn1neg"]
    assert ours["total"] == sum(v for k, v in ours.items() if k != "total")
    assert trained.estimate_memory(vocab_size=1000)["vectors"] == 1000 * 12 * 4


def test_gensims_weight_steps_are_thin_equivalents(trained):
    import numpy as np

    m = w2v.Word2Vec(sentences=SENTENCES, vector_size=8, min_count=1, epochs=1, workers=1)
    before = m.syn0.copy()
    m.init_weights()
    assert not np.array_equal(before, m.syn0) and not m.syn1neg.any()
    m.prepare_weights(update=True)   # nothing new to add
    assert m.syn0.shape == (len(m.vocab), 8)
    m.create_binary_tree()
    other = w2v.Word2Vec(vector_size=4)
    other.reset_from(m)
    assert other.wv.index_to_key == m.wv.index_to_key and other.syn0.shape == (len(m.vocab), 4)
    assert other.corpus_count == m.corpus_count
    assert np.array_equal(m.seeded_vector("cat", 8), m.seeded_vector("cat", 8))
    assert m.seeded_vector("cat", 8).shape == (8,) and abs(m.seeded_vector("dog", 8)).max() <= 0.5 / 8
    m.add_lifecycle_event("note", msg="hello")
    assert m.lifecycle_events[-1]["event"] == "note" and m.lifecycle_events[-1]["msg"] == "hello"
    m.init_sims()
    with pytest.raises(w2v.VocabularyError):
        w2v.Word2Vec().init_weights()


@pytest.mark.parametrize("sg", [0, 1])
def test_score_answers_as_gensims_on_the_same_weights_and_tree(sg):
    import numpy as np

    ours = w2v.Word2Vec(sentences=SENTENCES, vector_size=12, min_count=1, sample=0, workers=1, epochs=3, hs=1,
                        negative=0, sg=sg, window=2)
    g = gensim.models.Word2Vec(SENTENCES, vector_size=12, min_count=1, sample=0, workers=1, epochs=1, hs=1,
                               negative=0, sg=sg, window=2)
    t = ours.tables
    for w in g.wv.index_to_key:
        i = ours.wv.get_index(w)
        n = t.hs_lengths[i]
        g.wv.set_vecattr(w, "code", t.hs_codes[i, :n].astype(np.uint8))
        g.wv.set_vecattr(w, "point", t.hs_points[i, :n].astype(np.uint32))
    g.wv.vectors[:] = ours.wv[g.wv.index_to_key]
    g.syn1[:len(ours.syn1)] = ours.syn1   # gensim keeps one row more than the V - 1 inner nodes
    probe = SENTENCES[:3] + [["cat", "unknown", "dog", "sat"]]
    mine, theirs = ours.score(probe), g.score(probe, total_sentences=4)
    # gensim reads log-sigmoid from a table at the step below: about 0.003 lower per code step
    assert np.allclose(mine, theirs, rtol=0.04) and np.all(mine >= theirs - 1e-4)
    assert np.array_equal(np.argsort(mine), np.argsort(theirs))
    assert ours.score(probe, total_sentences=2).shape == (2,)
    with pytest.raises(w2v.ParameterError, match="hierarchical"):
        trained_without_hs = w2v.Word2Vec(sentences=SENTENCES, vector_size=8, min_count=1, epochs=1)
        trained_without_hs.score(probe)
