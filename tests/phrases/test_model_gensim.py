"""gensim's Phrases behaviours on w2v: any delimiter, scoring functions, max_vocab_size pruning,
find_phrases/export_phrases, ``phrases[corpus]`` read again, and the summary as repr.

Cases taken from gensim's own tests (gensim/test/test_phrases.py: its corpora and assertions) run
on both implementations (the ``impl`` fixture); the comparisons give gensim and w2v the same input
and compare what they return.  docs/phrases.md and docs/gensim.md list the deliberate differences
that the last tests show.
"""
import math

import numpy as np
import pytest

from w2v.errors import FormatError, ParameterError
from w2v.phrases import model as w2v_phrases
from w2v.phrases import tables as phrase_tables

gensim_phrases = pytest.importorskip("gensim.models.phrases")
from gensim.models.word2vec import LineSentence  # noqa: E402

# gensim.test.utils.common_texts and the sentence gensim's PhrasesData adds
SENTENCES = [
    ["human", "interface", "computer"], ["survey", "user", "computer", "system", "response", "time"],
    ["eps", "user", "interface", "system"], ["system", "human", "system", "eps"], ["user", "response", "time"],
    ["trees"], ["graph", "trees"], ["graph", "minors", "trees"], ["graph", "minors", "survey"],
    ["graph", "minors", "survey", "human", "interface"],
]
# gensim's CommonTermsPhrasesData
CONNECTOR_SENTENCES = [
    ["human", "interface", "with", "computer"],
    ["survey", "of", "user", "computer", "system", "lack", "of", "interest"],
    ["eps", "user", "interface", "system"], ["system", "and", "human", "system", "eps"],
    ["user", "lack", "of", "interest"], ["trees"], ["graph", "of", "trees"], ["data", "and", "graph", "of", "trees"],
    ["data", "and", "graph", "survey"], ["data", "and", "graph", "survey", "for", "human", "interface"],
]
CONNECTORS = frozenset(["of", "and", "for"])


def dumb_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    return 1


def dice_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    return 2 * bigram_count / (worda_count + wordb_count)


def log_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    return bigram_count * math.log(bigram_count * corpus_word_count / (worda_count * wordb_count)) / len_vocab


def constant_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    return 0.5


def none_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    return None


def nan_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    return float("nan")


class RecordingScorer:
    """Records the arguments of each call (gensim pickles its scorer: a class of this module pickles)."""

    calls = []

    @staticmethod
    def score(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
        RecordingScorer.calls.append((worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count))
        return bigram_count / min_count


@pytest.fixture(params=["gensim", "w2v"])
def impl(request):
    """The phrases module of gensim or of w2v: the same calls run on both."""
    return gensim_phrases if request.param == "gensim" else w2v_phrases


@pytest.fixture(scope="module")
def sentences(small_corpus):
    """1,500 lines of the bundled corpus, with empty sentences (gensim checks its bound after those too)."""
    with open(small_corpus, encoding="utf-8") as f:
        lines = [line.split() for line in f][:1500]
    return lines[:10] + [[]] * 3 + lines[10:]


def both(sentences, **kwargs):
    """The same Phrases of gensim and of w2v."""
    return gensim_phrases.Phrases(sentences, **kwargs), w2v_phrases.Phrases(sentences, **kwargs)


# --------------------------------------------------------------------------- gensim's own cases, on both
def test_a_space_delimiter_finds_gensims_phrases(impl):
    bigram = impl.Phrases(SENTENCES, min_count=1, threshold=1, delimiter=" ")
    assert set(bigram.find_phrases(SENTENCES)) == {"response time", "graph minors", "human interface"}
    test_sentences = [["graph", "minors", "survey", "human", "interface"]]
    assert set(bigram.find_phrases(test_sentences)) == {"graph minors", "human interface"}
    assert {round(s, 3) for s in bigram.find_phrases(test_sentences).values()} == {5.167, 3.444}
    assert set(bigram.export_phrases()) == {"human interface", "response time", "graph minors", "minors survey"}
    assert bigram[["graph", "minors", "x"]] == ["graph minors", "x"]
    bigram = impl.Phrases(CONNECTOR_SENTENCES, min_count=1, threshold=1, connector_words=CONNECTORS, delimiter=" ")
    assert set(bigram.find_phrases(CONNECTOR_SENTENCES)) == {"human interface", "graph of trees", "data and graph",
                                                            "lack of interest"}


def test_a_scoring_function_scores_as_in_gensims_own_test(impl):
    bigram = impl.Phrases(SENTENCES, min_count=1, threshold=.001, scoring=dumb_scorer)
    seen = list(bigram.find_phrases([["graph", "minors", "survey", "human", "interface", "system"]]).values())
    assert len(seen) == 3 and all(score == 1 for score in seen)
    bigram = impl.Phrases(CONNECTOR_SENTENCES, min_count=1, threshold=.001, scoring=dumb_scorer,
                          connector_words=CONNECTORS)
    seen = list(bigram.find_phrases([["data", "and", "graph", "survey", "for", "human", "interface"]]).values())
    assert len(seen) == 2 and all(score == 1 for score in seen)
    assert impl.FrozenPhrases(bigram)[["survey", "for", "human"]] == ["survey_for_human"]


def test_max_vocab_size_bounds_words_and_pairs_as_in_gensims_own_test(impl):
    bigram = impl.Phrases(SENTENCES, max_vocab_size=5)
    assert len(bigram.vocab) <= 5


def test_a_phrased_corpus_can_be_read_twice_as_in_gensims_own_test(impl):
    bigram = impl.FrozenPhrases(impl.Phrases(SENTENCES))
    trigram = impl.FrozenPhrases(impl.Phrases(bigram[SENTENCES]))
    trigrams = trigram[bigram[SENTENCES]]
    first, second = list(trigrams), list(trigrams)
    assert first == second and second != []
    phrased = impl.Phrases(SENTENCES, min_count=1, threshold=1)[[["graph", "minors", "survey", "human", "interface"]]]
    assert next(iter(phrased)) == ["graph_minors", "survey", "human_interface"]


# --------------------------------------------------------------------------- 1. delimiter
@pytest.mark.parametrize("delimiter", [" ", "::", "\t", "\u00a0", "~"])
def test_any_delimiter_gives_gensims_counts_phrases_and_sentences(sentences, delimiter):
    # no token holds these delimiters (tokens that do are the deliberate difference shown in test_model.py)
    assert not any(delimiter in w for s in sentences for w in s)
    g, m = both(sentences, min_count=3, threshold=5.0, delimiter=delimiter,
                connector_words=gensim_phrases.ENGLISH_CONNECTOR_WORDS)
    assert m.vocab == g.vocab
    assert m.export_phrases() == g.export_phrases() and len(g.export_phrases()) > 100
    assert m.freeze().phrasegrams == g.freeze().phrasegrams
    assert [m[s] for s in sentences] == [g[s] for s in sentences]
    assert m.find_phrases(sentences) == g.find_phrases(sentences)


def test_an_empty_delimiter_works_where_gensims_export_fails():
    text = [["new", "york", "city"]] * 5 + [["new", "car"], ["old", "york"]]
    g, m = both(text, min_count=1, threshold=0.5, delimiter="")
    with pytest.raises(ValueError, match="empty separator"):   # gensim splits its keys at the delimiter
        g.export_phrases()
    assert m[["new", "york", "x"]] == g[["new", "york", "x"]] == ["newyork", "x"]
    assert set(m.export_phrases()) == {"newyork", "yorkcity"}
    assert m.freeze()[["york", "city"]] == ["yorkcity"]


def test_a_word2vec_file_refuses_a_phrase_holding_whitespace_when_it_is_written(tmp_path, sentences):
    from w2v import Word2Vec
    frozen = w2v_phrases.Phrases(sentences, min_count=3, threshold=5.0, delimiter=" ").freeze()
    model = Word2Vec(frozen[sentences], min_count=3, vector_size=8, epochs=1, workers=1, seed=1)
    spaced = [w for w in model.wv.index_to_key if " " in w]
    assert spaced and spaced[0] in frozen.phrasegrams
    for name, binary in (("v.txt", False), ("v.bin", True)):
        with pytest.raises(FormatError) as caught:
            model.wv.save_word2vec_format(str(tmp_path / name), binary=binary)
        message = str(caught.value)
        assert len(message.splitlines()) == 1 and repr(spaced[0]) in message and "whitespace" in message
        assert not (tmp_path / name).exists()
    model.save(str(tmp_path / "model"))   # the native format holds such words
    assert spaced[0] in Word2Vec.load(str(tmp_path / "model")).wv


# --------------------------------------------------------------------------- 2. scoring functions
@pytest.mark.parametrize("connectors", [frozenset(), gensim_phrases.ENGLISH_CONNECTOR_WORDS], ids=["plain", "english"])
@pytest.mark.parametrize("scorer, threshold", [(dice_scorer, 0.3), (log_scorer, 0.001),
                                               (gensim_phrases.original_scorer, -1.0),
                                               (gensim_phrases.npmi_scorer, 0.5)],
                         ids=["dice", "log", "gensim-original", "gensim-npmi"])
@pytest.mark.parametrize("max_vocab_size", [40_000_000, 5000])
def test_a_scoring_function_joins_what_gensims_joins(sentences, connectors, scorer, threshold, max_vocab_size):
    g, m = both(sentences, min_count=3, threshold=threshold, scoring=scorer, connector_words=connectors,
                max_vocab_size=max_vocab_size)
    assert m.scoring is scorer
    assert m.export_phrases() == g.export_phrases() and g.export_phrases()
    assert m.freeze().phrasegrams == g.freeze().phrasegrams
    found = g.find_phrases(sentences)
    assert list(m.find_phrases(sentences).items()) == list(found.items())
    assert [m[s] for s in sentences] == [g[s] for s in sentences]


@pytest.mark.parametrize("connectors", [frozenset(), gensim_phrases.ENGLISH_CONNECTOR_WORDS], ids=["plain", "english"])
def test_a_scoring_function_is_called_with_gensims_arguments(sentences, connectors):
    calls = RecordingScorer.calls
    g, m = both(sentences[:400], min_count=2, threshold=2.5, scoring=RecordingScorer.score, connector_words=connectors,
                max_vocab_size=3000)
    calls[:] = []
    g.export_phrases()
    theirs, calls[:] = sorted(calls), []
    m.export_phrases()
    assert sorted(calls) == theirs and len(theirs) > 100
    assert all(type(v) is int for call in calls for v in call)   # Python ints, as gensim's counts


def test_the_threshold_comparison_is_gensims():
    for threshold, phrases in ((0.5, set()), (0.4999, {"graph_minors", "minors_survey"})):
        g, m = both(SENTENCES[-3:], min_count=1, threshold=threshold, scoring=constant_scorer)
        assert set(m.export_phrases()) == set(g.export_phrases()) >= phrases


def test_a_scoring_function_must_answer_a_number():
    with pytest.raises(TypeError):
        gensim_phrases.Phrases(SENTENCES, min_count=1, threshold=1, scoring=none_scorer).export_phrases()
    model = w2v_phrases.Phrases(SENTENCES, min_count=1, threshold=1, scoring=none_scorer)
    with pytest.raises(ParameterError, match="scoring function 'none_scorer' returned None .* a real number"):
        model.export_phrases()


def test_save_refuses_a_scoring_function_but_gensims_own_scorers_are_saved_by_name(tmp_path):
    model = w2v_phrases.Phrases(SENTENCES, min_count=1, threshold=.001, scoring=dumb_scorer)
    for target in (model, model.freeze()):
        with pytest.raises(ParameterError, match="cannot save phrases scored by the function dumb_scorer: "
                                                 "phrase model files hold no code"):
            target.save(tmp_path / "custom")
        assert not (tmp_path / "custom").exists()
    for scorer, own in ((gensim_phrases.original_scorer, w2v_phrases.original_scorer),
                        (gensim_phrases.npmi_scorer, w2v_phrases.npmi_scorer),
                        (w2v_phrases.npmi_scorer, w2v_phrases.npmi_scorer)):
        model = w2v_phrases.Phrases(SENTENCES, min_count=1, threshold=0.1, scoring=scorer)
        model.save(tmp_path / "counts")
        model.freeze().save(tmp_path / "frozen")
        counts = w2v_phrases.Phrases.load(tmp_path / "counts")
        frozen = w2v_phrases.FrozenPhrases.load(tmp_path / "frozen")
        assert counts.scoring is own and frozen.scoring is own
        assert counts.export_phrases() == frozen.phrasegrams == model.export_phrases() != {}


# --------------------------------------------------------------------------- 3. max_vocab_size
@pytest.mark.parametrize("scoring, threshold", [("default", 5.0), ("npmi", 0.3)])
@pytest.mark.parametrize("connectors", [frozenset(), gensim_phrases.ENGLISH_CONNECTOR_WORDS], ids=["plain", "english"])
@pytest.mark.parametrize("threads", [1, 3])
def test_max_vocab_size_keeps_gensims_survivors(sentences, scoring, threshold, connectors, threads):
    options = dict(min_count=2, threshold=threshold, scoring=scoring, connector_words=connectors,
                   max_vocab_size=3000)
    g = gensim_phrases.Phrases(sentences, **options)
    m = w2v_phrases.Phrases(sentences, threads=threads, **options)
    unpruned = w2v_phrases.Phrases(sentences, **{**options, "max_vocab_size": 40_000_000})
    assert m.vocab == g.vocab and len(g.vocab) < len(unpruned.vocab) / 10
    assert m.pruned and not unpruned.pruned
    assert m.export_phrases() == g.export_phrases()
    # add_vocab counts apart, merges and prunes the sum; min_reduce tells how often each pruned
    for more in (sentences[:700], sentences[700:]):
        g.add_vocab(more)
        m.add_vocab(more)
        assert m.vocab == g.vocab and m.min_reduce == g.min_reduce
    assert g.min_reduce > 10
    assert m.export_phrases() == g.export_phrases()
    assert str(m) == str(g)


@pytest.mark.parametrize("connectors", [frozenset(), gensim_phrases.ENGLISH_CONNECTOR_WORDS], ids=["plain", "english"])
@pytest.mark.parametrize("threads", [1, 3])
def test_max_vocab_size_on_files_prunes_as_gensim_on_linesentence(tmp_path, sentences, connectors, threads,
                                                                  monkeypatch):
    # empty lines are no sentence for LineSentence; long lines are cut every 40 words, and each
    # piece is a sentence after which gensim checks its bound; small pieces of the id stream end
    # everywhere
    path = tmp_path / "corpus.txt"
    with open(path, "w", encoding="utf-8") as f:
        for i, s in enumerate(sentences):
            f.write(" ".join(s) + "\n" + ("\n" if i % 50 == 0 else ""))
            f.write(" ".join(s * 6) + "\n" if i % 70 == 0 else "")
    monkeypatch.setattr(phrase_tables, "PIECE_IDS", 997)
    options = dict(min_count=2, threshold=5.0, connector_words=connectors, max_vocab_size=8000)
    g = gensim_phrases.Phrases(LineSentence(str(path), max_sentence_length=40), **options)
    m = w2v_phrases.Phrases(str(path), max_sentence_length=40, threads=threads, **options)
    assert m.vocab == g.vocab and m.pruned
    assert m.export_phrases() == g.export_phrases() and len(g.export_phrases()) > 20


# --------------------------------------------------------------------------- 4. find_phrases, export_phrases
CONFIGS = {
    "default": dict(min_count=5, threshold=10.0),
    "npmi-english": dict(min_count=5, threshold=0.5, scoring="npmi",
                         connector_words=gensim_phrases.ENGLISH_CONNECTOR_WORDS),
    "space": dict(min_count=5, threshold=10.0, delimiter=" "),
    "function": dict(min_count=3, threshold=0.3, scoring=dice_scorer),
    "pruned": dict(min_count=2, threshold=5.0, max_vocab_size=12000),
}


@pytest.mark.parametrize("config", CONFIGS.values(), ids=list(CONFIGS))
def test_find_phrases_and_export_phrases_return_what_gensims_return(sentences, config):
    g, m = both(sentences, **config)
    for ours, theirs in ((m, g), (m.freeze(), g.freeze())):
        found, expected = ours.find_phrases(sentences), theirs.find_phrases(sentences)
        assert type(found) is dict and list(found.items()) == list(expected.items())   # in order of occurrence
        assert all(type(k) is str and type(v) is float for k, v in found.items())
        assert len(expected) > 20
    exported, expected = m.export_phrases(), g.export_phrases()
    assert type(exported) is dict and exported == expected   # gensim's order is that of its dict of counts
    assert all(type(v) is float for v in exported.values())
    assert m.freeze().phrasegrams == g.freeze().phrasegrams == expected
    assert m.freeze().export_phrases() == expected


# --------------------------------------------------------------------------- 5. phrases[corpus]
class MyCorpus:
    """gensim's tutorial corpus: a class whose __iter__ starts over."""

    def __init__(self, sentences):
        self.sentences = sentences

    def __iter__(self):
        yield from self.sentences


@pytest.mark.parametrize("frozen", [False, True], ids=["Phrases", "FrozenPhrases"])
def test_phrases_of_a_corpus_are_a_corpus_read_again_at_each_iteration(impl, frozen):
    model = impl.Phrases(SENTENCES, min_count=1, threshold=1)
    model = impl.FrozenPhrases(model) if frozen else model
    phrased = model[MyCorpus(SENTENCES)]
    first = list(phrased)
    assert first == list(phrased) == [model[s] for s in SENTENCES]
    assert first[-1] == ["graph_minors", "survey", "human_interface"]
    with pytest.raises(TypeError):   # MyCorpus has no len
        len(phrased)
    listed = model[SENTENCES]
    assert len(listed) == len(SENTENCES) and listed[9] == model[SENTENCES[9]]
    assert type(model[SENTENCES[9]]) is list
    once = model[iter(SENTENCES)]   # an iterator is read once, as gensim reads it
    assert list(once) == first and list(once) == []


def test_word2vec_trains_on_the_frozen_phrases_of_a_corpus_class(sentences):
    from w2v import Word2Vec
    frozen = w2v_phrases.Phrases(sentences, min_count=3, threshold=5.0).freeze()
    corpus = MyCorpus(sentences)
    words = {w for s in frozen[sentences] for w in s}
    for model in (Word2Vec(frozen[corpus], vector_size=8, min_count=1, epochs=2, workers=1),
                  Word2Vec(sentences=frozen[corpus], vector_size=8, min_count=1, epochs=2, workers=1)):
        assert set(model.wv.index_to_key) == words and "Mr._Darcy" in words
        assert model.corpus_count == len(sentences)


# --------------------------------------------------------------------------- 6. repr
@pytest.mark.parametrize("config", CONFIGS.values(), ids=list(CONFIGS))
def test_repr_is_gensims_summary(sentences, config):
    g, m = both(sentences, **config)
    assert repr(m) == str(m) == str(g)
    assert repr(m.freeze()) == str(m.freeze()) == str(g.freeze())
    assert str(m).startswith("Phrases<") and str(m.freeze()).startswith("FrozenPhrases<")


# --------------------------------------------------------------------------- deliberate differences
def test_a_nan_score_never_joins_where_gensim_joins_it():
    # gensim's test is `score <= threshold` for "not a phrase", which a NaN fails
    g, m = both(SENTENCES, min_count=1, threshold=1.0, scoring=nan_scorer)
    assert g[["graph", "minors"]] == ["graph_minors"] and len(g.export_phrases()) > 5
    assert m[["graph", "minors"]] == ["graph", "minors"] and m.export_phrases() == {}
    assert np.isnan(list(g.export_phrases().values())).all()
