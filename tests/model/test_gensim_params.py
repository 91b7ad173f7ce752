"""Word2Vec(...)'s parameters (w2v.model.gensim_params): gensim's names and defaults, w2v's, and which apply."""
import inspect

import pytest

from w2v import ParameterError, Word2Vec
from w2v.model.gensim_params import GENSIM_WORKERS, constructor_arguments
from w2v.settings import available_cores


def settings(*args, **kwargs):
    return constructor_arguments(args, kwargs)[0]


def test_without_gensim_only_names_w2vs_defaults_apply():
    for kwargs in ({}, {"window": 3}, {"min_count": 1, "epochs": 2, "hs": 1, "negative": 0}, {"dim": 50}):
        m = Word2Vec(**kwargs)
        assert m.settings.model == "sg" and m.settings.threads == available_cores()
    assert Word2Vec(hs=1, cbow_mean=0).settings.hs is True
    assert Word2Vec(hs=1, cbow_mean=0).settings.cbow_mean is False


@pytest.mark.parametrize("kwargs", [{"vector_size": 100}, {"workers": 3}, {"sg": 0}, {"compute_loss": False},
                                    {"callbacks": ()}, {"batch_words": 10000}, {"max_final_vocab": None},
                                    {"sorted_vocab": 1}, {"comment": "x"}])
def test_any_gensim_only_name_picks_gensims_defaults_even_with_its_default_value(kwargs):
    s = Word2Vec(**kwargs).settings
    assert s.model == "cbow" and s.threads == GENSIM_WORKERS and s.dim == 100


def test_gensims_names_map_to_the_settings():
    s = settings(vector_size=32, workers=1, sg=1, hs=1, negative=0, cbow_mean=0, window=2, min_count=3,
                 sample=0, seed=7, alpha=0.05, min_alpha=0.001, epochs=2, ns_exponent=0.5, max_vocab_size=99)
    assert s == {"dim": 32, "threads": 1, "model": "sg", "hs": True, "negative": 0, "cbow_mean": False,
                 "window": 2, "min_count": 3, "sample": 0, "seed": 7, "alpha": 0.05, "min_alpha": 0.001,
                 "epochs": 2, "ns_exponent": 0.5, "max_vocab_size": 99}
    positional = settings(None, None, 64, 0.05, 3)   # gensim's positions: sentences, corpus_file, vector_size...
    assert positional["dim"] == 64 and positional["alpha"] == 0.05 and positional["window"] == 3
    assert positional["model"] == "cbow"


def test_w2vs_names_work_beside_gensims_but_not_with_their_counterpart():
    s = Word2Vec(vector_size=20, model="sg", threads=2, exact=True).settings
    assert (s.dim, s.model, s.threads, s.exact) == (20, "sg", 2, True)
    for kwargs in ({"vector_size": 10, "dim": 10}, {"workers": 2, "threads": 2}, {"sg": 1, "model": "sg"}):
        with pytest.raises(ParameterError, match="not both"):
            Word2Vec(**kwargs)


@pytest.mark.parametrize("kwargs, name", [({"hashfxn": lambda w: 0}, "hashfxn"), ({"null_word": 1}, "null_word"),
                                          ({"sorted_vocab": 0}, "sorted_vocab"),
                                          ({"shrink_windows": False}, "shrink_windows"),
                                          ({"batch_words": 0}, "batch_words"),
                                          ({"max_final_vocab": 0}, "max_final_vocab"),
                                          ({"sentences": [["a"]], "corpus_file": "c.txt"}, "sentences or corpus_file")])
def test_gensim_values_w2v_cannot_honour_are_refused_by_name(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        Word2Vec(**kwargs)


def test_unknown_names_and_too_many_arguments_are_type_errors():
    with pytest.raises(TypeError):
        Word2Vec(vectorsize=10)
    with pytest.raises(TypeError):
        Word2Vec(*range(40))


def test_the_signature_is_gensims_then_w2vs_keyword_only_names():
    params = inspect.signature(Word2Vec).parameters
    names = list(params)
    assert names[:3] == ["sentences", "corpus_file", "vector_size"]
    assert names.index("shrink_windows") < names.index("model")
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in ("model", "dim", "threads", "device"))


def test_options_without_a_corpus_warn_that_they_wait_for_training():
    with pytest.warns(UserWarning, match="trains at once"):
        Word2Vec(trim_rule=lambda w, c, m: 0)
    m = Word2Vec(compute_loss=True, comment="note", max_final_vocab=5, batch_words=500)
    assert (m.compute_loss, m.comment, m.max_final_vocab, m.batch_words) == (True, "note", 5, 500)
