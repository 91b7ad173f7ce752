"""KeyedVectors as gensim users build, fill, save and load them, written for gensim:
tests/vectors/test_gensim_usage.py runs it twice, once as it is and once with the first import changed to
``from w2v import KeyedVectors``.

Usage: python gensim_usage_vectors.py WORKDIR  (prints one JSON object)
"""
from gensim.models import KeyedVectors  # the line that changes

import json
import os
import sys

import numpy as np

WORDS = ("king queen man woman prince princess boy girl father mother son daughter brother sister uncle aunt "
         "husband wife paris france berlin germany rome italy madrid spain london england tokyo japan").split()
DIM = 20


def word_vectors():
    """Vectors with a little structure: a shared direction per pair of words, and noise."""
    rng = np.random.default_rng(42)
    base = rng.standard_normal((len(WORDS) // 2, DIM))
    return (np.repeat(base, 2, axis=0) + 0.3 * rng.standard_normal((len(WORDS), DIM))).astype(np.float32)


def answers(kv, word="king", topn=5, digits=4):
    return [[w, round(float(s), digits)] for w, s in kv.most_similar(word, topn=topn)]


def main(workdir):
    out = {}
    vectors = word_vectors()

    # build vectors with gensim's constructor, then fill them
    kv = KeyedVectors(vector_size=DIM)
    kv.add_vectors(WORDS, vectors)
    out["built"] = [len(kv), kv.vector_size, str(kv.vectors.dtype), answers(kv)]
    out["repr"] = repr(kv)
    out["str"] = str(kv)

    # reserve the rows, then assign them one by one
    reserved = KeyedVectors(DIM, count=len(WORDS), dtype=np.float32)
    out["reserved"] = [len(reserved), reserved.index_to_key[:2], float(np.abs(reserved.vectors).sum())]
    out["rows"] = [reserved.add_vector(w, v) for w, v in zip(WORDS, vectors)]
    out["reserved_filled"] = [reserved.index_to_key == WORDS, bool(np.array_equal(reserved.vectors, vectors)),
                              answers(reserved) == answers(kv), str(reserved)]

    # vectors of another type
    half = KeyedVectors(DIM, dtype=np.float16)
    half.add_vectors(WORDS, vectors)
    out["float16"] = [str(half.vectors.dtype), str(half.get_normed_vectors().dtype), str(half["king"].dtype),
                      [w for w, _ in half.most_similar("king", topn=3)]]

    # save in word2vec's formats and load back: every word has a count
    binary = os.path.join(workdir, "vectors.bin")
    kv.save_word2vec_format(binary, binary=True)
    loaded = KeyedVectors.load_word2vec_format(binary, binary=True)
    out["loaded"] = [len(loaded), answers(loaded)]
    out["loaded_counts"] = [int(loaded.get_vecattr(w, "count")) for w in ("king", "queen", "japan")]
    subset = loaded.vectors_for_all(["japan", "king", "nope", "king"], copy_vecattrs=True)
    out["vectors_for_all"] = [subset.index_to_key, [int(subset.get_vecattr(w, "count")) for w in subset.index_to_key]]
    limited = KeyedVectors.load_word2vec_format(binary, binary=True, limit=10)
    out["limited_counts"] = [int(limited.get_vecattr(w, "count")) for w in limited.index_to_key]
    text, vocab = os.path.join(workdir, "vectors.txt"), os.path.join(workdir, "vocab.txt")
    loaded.save_word2vec_format(text, fvocab=vocab)
    with open(vocab, encoding="utf-8") as f:
        out["vocab_file"] = f.read().splitlines()[:3]
    again = KeyedVectors.load_word2vec_format(text, fvocab=vocab)
    out["fvocab_counts"] = [int(again.get_vecattr(w, "count")) for w in ("king", "japan")]

    # datatype
    for datatype in (np.float16, np.float64):
        typed = KeyedVectors.load_word2vec_format(binary, binary=True, datatype=datatype)
        out[f"datatype_{np.dtype(datatype).name}"] = [str(typed.vectors.dtype), str(typed["king"].dtype),
                                                      [w for w, _ in typed.most_similar("king", topn=3)]]

    # a text file without a header line (GloVe's), and back
    headless = os.path.join(workdir, "glove.txt")
    kv.save_word2vec_format(headless, write_header=False)
    back = KeyedVectors.load_word2vec_format(headless, no_header=True)
    out["no_header"] = [back.index_to_key == WORDS, bool(np.array_equal(back.vectors, vectors))]

    # lines that end in whitespace
    spaced = os.path.join(workdir, "spaced.txt")
    with open(spaced, "w", encoding="utf-8") as f:
        f.write("3 2\n")
        f.write("alpha 1 2\t\n")
        f.write("beta 3 4\x0b\n")
        f.write("gamma 5 6\u00a0 \n")
    spaced_kv = KeyedVectors.load_word2vec_format(spaced)
    out["trailing_whitespace"] = [spaced_kv.index_to_key, spaced_kv.vectors.tolist()]

    # a word that is not UTF-8
    broken = os.path.join(workdir, "broken.txt")
    with open(broken, "wb") as f:
        f.write(b"2 2\nalpha 1 2\nbet\xff 3 4\n")
    try:
        KeyedVectors.load_word2vec_format(broken)
        out["unicode_error"] = "loaded"
    except UnicodeDecodeError as exc:
        out["unicode_error"] = [exc.encoding, exc.reason, exc.start]
    out["unicode_replace"] = KeyedVectors.load_word2vec_format(broken, unicode_errors="replace").index_to_key
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
