#!/usr/bin/env python3
"""Child process for bench_train.py: train gensim Word2Vec once and report timings.

  python3 benchmarks/run_gensim.py CORPUS OUT.bin --mode iter|file --report-json R.json
      [--sg 1] [--dim 100] [--window 5] [--negative 5] [--sample 1e-3] [--min-count 5]
      [--epochs 1] [--threads 1] [--alpha 0.025] [--min-alpha 1e-4] [--reader line|text8|auto]

--mode iter: ``build_vocab(corpus)`` and ``train(corpus, total_examples=model.corpus_count)``
             where corpus is ``LineSentence(CORPUS)`` (``--reader line``) or
             ``Text8Corpus(CORPUS)`` (``--reader text8``). Both yield the same
             10,000-word sentences for a single-line file, but LineSentence holds
             the whole line (the whole corpus) in memory as a list of str.
--mode file: ``build_vocab(corpus_file=CORPUS)`` and
             ``train(corpus_file=CORPUS, total_words=model.corpus_total_words)``.

Writes R.json: vocab_seconds, train_seconds, save_seconds, total_seconds (from
the start of this script, imports included), corpus_words (gensim's count),
words_per_sec (corpus_words * epochs / train_seconds), trained_raw_words /
trained_effective_words (what ``train()`` returned), vocab_size, reader.
"""
import time

T_START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--mode", choices=["iter", "file"], required=True)
    ap.add_argument("--reader", choices=["line", "text8", "auto"], default="line")
    ap.add_argument("--report-json", required=True)
    ap.add_argument("--sg", type=int, default=1)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--window", type=int, default=5)
    ap.add_argument("--negative", type=int, default=5)
    ap.add_argument("--sample", type=float, default=1e-3)
    ap.add_argument("--min-count", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--alpha", type=float, default=None)
    ap.add_argument("--min-alpha", type=float, default=None)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)

    from gensim.models import Word2Vec
    from gensim.models.word2vec import LineSentence, Text8Corpus, FAST_VERSION

    if FAST_VERSION < 0:
        print("warning: gensim is using its slow pure-Python path", file=sys.stderr)

    reader = a.reader
    if a.mode == "iter" and reader == "auto":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from common import longest_line_exceeds
        reader = "text8" if longest_line_exceeds(a.corpus) else "line"

    kw = dict(vector_size=a.dim, window=a.window, min_count=a.min_count, sample=a.sample,
              negative=a.negative, hs=0, sg=a.sg, workers=a.threads, epochs=a.epochs, seed=a.seed)
    if a.alpha is not None:
        kw["alpha"] = a.alpha
    if a.min_alpha is not None:
        kw["min_alpha"] = a.min_alpha
    model = Word2Vec(**kw)

    t0 = time.perf_counter()
    if a.mode == "iter":
        corpus = LineSentence(a.corpus) if reader == "line" else Text8Corpus(a.corpus)
        model.build_vocab(corpus)
    else:
        corpus = None
        model.build_vocab(corpus_file=a.corpus)
    t1 = time.perf_counter()
    if a.mode == "iter":
        trained = model.train(corpus, total_examples=model.corpus_count, epochs=a.epochs)
    else:
        trained = model.train(corpus_file=a.corpus, total_words=model.corpus_total_words,
                              total_examples=model.corpus_count, epochs=a.epochs)
    t2 = time.perf_counter()
    model.wv.save_word2vec_format(a.out, binary=True)
    t3 = time.perf_counter()

    rep = {
        "system": "gensim-" + a.mode,
        "reader": reader if a.mode == "iter" else "corpus_file",
        "vocab_seconds": t1 - t0,
        "train_seconds": t2 - t1,
        "save_seconds": t3 - t2,
        "total_seconds": t3 - T_START,
        "corpus_words": int(model.corpus_total_words),
        "words_per_sec": model.corpus_total_words * a.epochs / (t2 - t1) if t2 > t1 else None,
        "trained_effective_words": int(trained[0]),   # after min_count and subsampling
        "trained_raw_words": int(trained[1]),         # gensim's count of words read while training
        "vocab_size": len(model.wv.index_to_key),
        "alpha": model.alpha,
        "min_alpha": model.min_alpha,
        "fast_version": FAST_VERSION,
    }
    with open(a.report_json, "w") as f:
        json.dump(rep, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
