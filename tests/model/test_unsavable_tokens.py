"""Tokens and saved models: a token a saved model cannot hold is refused when the vocabulary is built;
every other token trains, saves in the native format and loads back, and only the word2vec formats
refuse the ones they cannot write (docs/formats.md, "Which tokens a file can hold")."""
import pytest

from w2v import KeyedVectors, Word2Vec
from w2v.errors import CorpusError, FormatError, ParameterError

SENTENCES = [["the", "cat", "sat"], ["on", "the", "mat"], ["the", "dog", "ran"]] * 10
FAST = dict(dim=8, min_count=1, epochs=1, threads=1, seed=1, sample=0)


@pytest.mark.parametrize("token", ["", "x\ny", "a\tb", "c\rd", "\udcff"])
def test_build_vocab_refuses_a_token_no_model_file_can_hold_naming_it_and_its_sentence(token):
    sentences = SENTENCES + [["the", token, "cat"]] + SENTENCES
    for build in (lambda m: m.build_vocab(sentences), lambda m: m.train(sentences)):
        with pytest.raises(CorpusError, match=rf"sentence {len(SENTENCES)} holds the token .*"
                                              r"which a saved model cannot hold \(it .*\): \['the', "):
            build(Word2Vec(**FAST))
    with pytest.raises(ParameterError, match="build_vocab_from_freq: the word .* cannot be stored"):
        Word2Vec(**FAST).build_vocab_from_freq({"the": 3, token: 2})


def test_a_token_with_a_space_trains_saves_natively_and_only_word2vec_files_refuse_it(tmp_path):
    sentences = SENTENCES + [["the", "a b", "cat", " "]] * 3
    model = Word2Vec(**FAST)
    model.train(sentences)
    assert "a b" in model.wv and " " in model.wv
    model.save(str(tmp_path / "full"))
    model.wv.save(str(tmp_path / "kv"))
    back = Word2Vec.load(str(tmp_path / "full"))
    assert back.wv.index_to_key == model.wv.index_to_key
    assert KeyedVectors.load(str(tmp_path / "kv")).index_to_key == model.wv.index_to_key
    row = min(model.wv.key_to_index["a b"], model.wv.key_to_index[" "])    # the first the writer meets
    word = model.wv.index_to_key[row]
    for binary in (True, False):
        with pytest.raises(FormatError, match=rf"cannot save word {word!r} \(row {row}\)"):
            model.wv.save_word2vec_format(str(tmp_path / f"v{binary}"), binary=binary)
    assert not (tmp_path / "vTrue").exists() and not (tmp_path / "vFalse").exists()
