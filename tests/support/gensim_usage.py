"""Word2Vec as gensim's tutorial uses it, written for gensim: tests/model/test_gensim_usage.py runs it twice,
once as it is and once with the first import changed to ``from w2v import Word2Vec, phrases``.

Usage: python gensim_usage.py CORPUS QUESTIONS WORDSIM WORKDIR  (prints one JSON object)
"""
from gensim.models import Word2Vec, phrases  # the line that changes

import contextlib
import io
import json
import logging
import numbers
import os
import sys
import tempfile

from gensim.models.callbacks import CallbackAny2Vec
from gensim.models.word2vec import LineSentence


def kind(value):
    """The shape of a result, as types a user's code relies on: numbers, strings, sequences, arrays."""
    if isinstance(value, (bool, str)):
        return type(value).__name__
    if isinstance(value, numbers.Real):
        return "number"
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"array{tuple(value.shape)}"
    if isinstance(value, dict):
        return {k: kind(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)) or hasattr(value, "__iter__"):
        items = list(value)
        return ["sequence", len(items) > 0 and kind(items[0])]
    return type(value).__name__


PROBES = ("he she his her him man woman king queen father mother son daughter brother sister day night "
          "morning evening good bad great little old young house room door said asked replied").split()


class MyCorpus:
    """An iterator that yields sentences (lists of str), reading the file again at every pass."""

    def __init__(self, path):
        self.path = path

    def __iter__(self):
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                yield line.lower().split()


class EpochSaver(CallbackAny2Vec):
    """Save the model after each epoch."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.epoch = 0

    def on_epoch_end(self, model):
        model.save(f"{self.prefix}_epoch{self.epoch}.model")
        self.epoch += 1


class EpochLogger(CallbackAny2Vec):
    """Record the epochs and the running loss."""

    def __init__(self):
        self.events = []
        self.losses = []

    def on_train_begin(self, model):
        self.events.append("train_begin")

    def on_epoch_begin(self, model):
        self.events.append("epoch_begin")

    def on_epoch_end(self, model):
        self.events.append("epoch_end")
        self.losses.append(model.get_latest_training_loss())

    def on_train_end(self, model):
        self.events.append("train_end")


class Records(logging.Handler):
    """The log records of a block (as a test's ``caplog`` holds them)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def messages_of(call):
    """What ``call()`` prints to stderr when nothing is configured, and what it logs at WARNING and above."""
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        call()
    records = Records()
    logging.getLogger().addHandler(records)
    try:
        call()
    finally:
        logging.getLogger().removeHandler(records)
    return printed.getvalue(), [[r.levelname, r.getMessage()] for r in records.records if r.levelno >= logging.WARNING]


def main(corpus, questions, wordsim, workdir):
    out = {}
    out["summary_before_vocab"] = str(Word2Vec(vector_size=50))
    # a corpus as lines of a file, trained at once
    model = Word2Vec(sentences=LineSentence(corpus), vector_size=50, window=5, min_count=5, workers=2, epochs=5)
    out["line_sentence_vocab"] = len(model.wv)
    out["corpus_count"] = model.corpus_count
    out["corpus_total_words"] = model.corpus_total_words

    # a corpus class of one's own; build_vocab, then train (one worker thread: the figures the test compares
    # are then the same at every run, where two threads make WS-353's Spearman on 360k words swing by 0.3)
    sentences = MyCorpus(corpus)
    model = Word2Vec(vector_size=50, window=5, min_count=5, workers=1)
    model.build_vocab(sentences)
    trained = model.train(sentences, total_examples=model.corpus_count, epochs=model.epochs)
    out["train_returns"] = kind(trained)
    out["vocab"] = len(model.wv)
    out["vector"] = kind(model.wv["king"])
    out["most_similar"] = kind(model.wv.most_similar(positive=["woman", "king"], negative=["man"], topn=5))
    out["doesnt_match"] = model.wv.doesnt_match("breakfast dinner lunch house".split())
    out["doesnt_match_unknown"] = messages_of(lambda: model.wv.doesnt_match("breakfast cereal dinner lunch".split()))
    out["summary"] = str(model)
    out["similarity_kind"] = kind(model.wv.similarity("woman", "man"))
    out["similar_pairs"] = float(model.wv.similarity("he", "she") - model.wv.similarity("he", "window"))
    score, sections = model.wv.evaluate_word_analogies(questions)
    out["analogy_score"] = float(score)
    out["analogy_kind"] = [kind(score), kind(sections[0]["correct"])]
    pearson, spearman, oov = model.wv.evaluate_word_pairs(wordsim)
    out["wordsim_spearman"] = float(spearman[0])
    out["wordsim_kind"] = [kind(pearson), kind(spearman), kind(oov)]
    out["predict_output_word"] = kind(model.predict_output_word(["he", "said"], topn=3))
    common = [w for w in PROBES if w in model.wv]
    out["probe_similarities"] = {f"{a} {b}": float(model.wv.similarity(a, b))
                                 for i, a in enumerate(common) for b in common[i + 1:]}

    # callbacks: save after each epoch, record the loss
    logger = EpochLogger()
    prefix = os.path.join(workdir, "cb")
    model = Word2Vec(sentences, vector_size=50, min_count=5, workers=2, epochs=3, compute_loss=True,
                     callbacks=[EpochSaver(prefix), logger])
    out["callback_events"] = logger.events
    out["losses_grow"] = all(a < b for a, b in zip(logger.losses, logger.losses[1:])) and logger.losses[0] > 0
    out["epoch_saves_load"] = len(Word2Vec.load(f"{prefix}_epoch2.model").wv) == len(model.wv)

    # save, load, and train further with new words (online training)
    path = os.path.join(workdir, "word2vec.model")
    model.save(path)
    model = Word2Vec.load(path)
    out["loaded_vocab"] = len(model.wv)
    more = [["quixotic", "zephyr", "the", "king"], ["zephyr", "quixotic", "a", "queen"]] * 5
    model.build_vocab(more, update=True)
    model.train(more, total_examples=model.corpus_count, epochs=model.epochs)
    out["online_added"] = ["quixotic" in model.wv, "zephyr" in model.wv, len(model.wv) - out["loaded_vocab"]]
    out["online_corpus_count"] = model.corpus_count
    model.wv.save_word2vec_format(os.path.join(workdir, "vectors.txt"))
    out["vectors_file_lines"] = sum(1 for _ in open(os.path.join(workdir, "vectors.txt"), encoding="utf-8"))

    # the tutorial's phrases and its temporary file: Word2Vec on frozen[MyCorpus()], saved to one file
    frozen = phrases.Phrases(MyCorpus(corpus), min_count=5, threshold=10).freeze()
    model = Word2Vec(frozen[MyCorpus(corpus)], vector_size=50, min_count=5, workers=2, epochs=2)
    out["phrased"] = [len(model.wv), model.corpus_count, sorted(w for w in model.wv.index_to_key if "_" in w)]
    with tempfile.NamedTemporaryFile(prefix="gensim-model-", delete=False, dir=workdir) as tmp:
        temporary_filepath = tmp.name
        model.save(temporary_filepath)
        new_model = Word2Vec.load(temporary_filepath)
    out["tempfile"] = [os.path.isfile(temporary_filepath),
                       len([n for n in os.listdir(workdir) if n.startswith("gensim-model-")]),
                       new_model.wv.index_to_key == model.wv.index_to_key,
                       bool((new_model.wv.vectors == model.wv.vectors).all()), str(new_model) == str(model)]
    new_model.build_vocab([["zephyr", "quixotic", "the"]] * 5, update=True)
    new_model.train([["zephyr", "quixotic", "the"]] * 5, total_examples=5, epochs=1)
    new_model.save(temporary_filepath)
    out["tempfile_again"] = [len(Word2Vec.load(temporary_filepath).wv) - len(model.wv),
                             len([n for n in os.listdir(workdir) if n.startswith("gensim-model-")])]
    return out


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:5])))
