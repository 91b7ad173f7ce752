"""Phrases as gensim's documentation uses them, written for gensim: tests/phrases/test_gensim_usage.py runs
it twice, once as it is and once with the first import changed to ``from w2v import Word2Vec, phrases``.

Usage: python gensim_usage_phrases.py CORPUS WORKDIR  (prints one JSON object)
"""
from gensim.models import Word2Vec, phrases  # the line that changes

import json
import os
import sys

Phrases, FrozenPhrases = phrases.Phrases, phrases.FrozenPhrases
ENGLISH_CONNECTOR_WORDS = phrases.ENGLISH_CONNECTOR_WORDS


class MyCorpus:
    """An iterator that yields sentences (lists of str), reading the file again at every pass."""

    def __init__(self, path):
        self.path = path

    def __iter__(self):
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                yield line.lower().split()


def dice_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    """A scoring function of gensim's signature (at module level: gensim pickles it)."""
    return 2 * bigram_count / (worda_count + wordb_count)


def kinds(mapping):
    """The types of a result's keys and values."""
    return sorted({f"{type(k).__name__}:{type(v).__name__}" for k, v in mapping.items()})


def main(corpus, workdir):
    out = {}
    # a phrase model of a corpus class, frozen; find_phrases and export_phrases
    model = Phrases(MyCorpus(corpus), min_count=5, threshold=10, connector_words=ENGLISH_CONNECTOR_WORDS)
    out["summary"] = str(model)
    exported = model.export_phrases()
    out["export_phrases"] = exported
    out["export_kinds"] = kinds(exported)
    found = model.find_phrases(MyCorpus(corpus))
    out["find_phrases"] = list(found.items())   # in order of first occurrence
    out["find_kinds"] = kinds(found)
    frozen = model.freeze()
    out["frozen_summary"] = str(frozen)
    out["phrasegrams"] = frozen.phrasegrams
    out["frozen_find_phrases"] = list(frozen.find_phrases(MyCorpus(corpus)).items())

    # phrases[sentence] is a list; phrases[corpus] a corpus that can be read again
    first = next(iter(MyCorpus(corpus)))
    out["single"] = [type(frozen[first]).__name__, frozen[first]]
    phrased = frozen[MyCorpus(corpus)]
    once, twice = list(phrased), list(phrased)
    out["phrased_read_twice"] = [len(once), once == twice]
    out["phrased_by_counts"] = list(model[MyCorpus(corpus)]) == [model[s] for s in MyCorpus(corpus)]

    # gensim's tutorial pattern: Word2Vec on the frozen phrases of a corpus class
    for name, w2v in (("positional", Word2Vec(frozen[MyCorpus(corpus)], vector_size=20, min_count=5, workers=2,
                                               epochs=2)),
                      ("sentences", Word2Vec(sentences=frozen[MyCorpus(corpus)], vector_size=20, min_count=5,
                                             workers=2, epochs=2))):
        words = w2v.wv.index_to_key
        out[f"word2vec_{name}"] = [len(words), w2v.corpus_count, sorted(w for w in words if "_" in w)]

    # trigrams: phrases of the phrased corpus (joined by the model itself: gensim's export_phrases, and so
    # its FrozenPhrases, split a phrase of phrases at every delimiter, a difference docs/phrases.md lists)
    trigram = Phrases(frozen[MyCorpus(corpus)], min_count=5, threshold=10, connector_words=ENGLISH_CONNECTOR_WORDS)
    out["trigram_phrases"] = sorted({t for s in trigram[frozen[MyCorpus(corpus)]] for t in s if t.count("_") >= 2})

    # another delimiter, a scoring function, a bounded vocabulary
    spaced = Phrases(MyCorpus(corpus), min_count=5, threshold=10, delimiter=" ")
    out["space_delimiter"] = spaced.export_phrases()
    out["space_joined"] = spaced.freeze()[first]
    scored = Phrases(MyCorpus(corpus), min_count=5, threshold=0.4, scoring=dice_scorer)
    out["scoring_function"] = scored.export_phrases()
    out["scoring_function_find"] = list(scored.freeze().find_phrases(MyCorpus(corpus)).items())
    bounded = Phrases(MyCorpus(corpus), min_count=3, threshold=5, max_vocab_size=20000)
    out["bounded"] = [str(bounded), len(bounded.vocab), sum(bounded.vocab.values())]
    out["bounded_phrases"] = bounded.export_phrases()
    bounded.add_vocab(MyCorpus(corpus))
    out["bounded_add_vocab"] = [str(bounded), bounded.min_reduce, bounded.export_phrases()]

    # save and load
    path = os.path.join(workdir, "phrases.model")
    frozen.save(path)
    out["frozen_loaded"] = FrozenPhrases.load(path).phrasegrams == frozen.phrasegrams
    model.save(path + "-counts")
    loaded = Phrases.load(path + "-counts")
    out["counts_loaded"] = [str(loaded), loaded.export_phrases() == exported]
    return out


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:3])))
