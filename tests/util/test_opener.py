"""The opener: compression from magic bytes, the same rule for corpora, vectors and evaluation files."""
import bz2
import gzip
import lzma
import os
import subprocess
import sys

import numpy as np
import pytest

from w2v.text.scanning import scan_corpus
from w2v.util.opener import compression_for_suffix, compression_of, open_binary, open_text
from w2v.text.shards import is_compressed
from w2v.vectors.keyed import KeyedVectors

TEXT = b"the cat sat on the mat\nthe dog sat\n"

WRITERS = {
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    None: lambda data: data,
}


@pytest.mark.parametrize("name, kind", [
    ("c.GZ", "gzip"), ("c.txt", "gzip"), ("c.Bz2", "bz2"), ("c.data", "bz2"), ("c.XZ", "xz"),
    ("c.txt", "xz"), ("c.gz", None), ("c.xz", None), ("c.txt", None),
])
def test_compression_is_read_from_magic_bytes_not_the_name(tmp_path, name, kind):
    path = tmp_path / name
    path.write_bytes(WRITERS[kind](TEXT))
    assert compression_of(path) == kind
    with open_binary(str(path)) as f:
        assert f.read() == TEXT
    assert is_compressed(str(path)) == (kind is not None)


def test_lzma_alone_is_recognised_by_its_suffix_in_any_case(tmp_path):
    for name in ("c.lzma", "c.LZMA"):
        path = tmp_path / name
        path.write_bytes(lzma.compress(TEXT, format=lzma.FORMAT_ALONE))
        assert compression_of(path) == "lzma"
        with open_binary(str(path)) as f:
            assert f.read() == TEXT


def test_writing_follows_the_suffix_in_any_case():
    assert compression_for_suffix("v.bin.GZ") == "gzip"
    assert compression_for_suffix("v.txt.bz2") == "bz2"
    assert compression_for_suffix("v.txt.Xz") == "xz"
    assert compression_for_suffix("v.bin") is None


def test_a_corpus_named_in_upper_case_is_decompressed(tmp_path):
    path = tmp_path / "corpus.GZ"
    path.write_bytes(gzip.compress(TEXT))
    scanned = scan_corpus([str(path)])
    try:
        assert sorted(scanned.words) == ["cat", "dog", "mat", "on", "sat", "the"]
        assert scanned.n_tokens == 9
    finally:
        scanned.stream.close()


def test_a_vectors_file_named_in_upper_case_loads_as_the_corpus_reads(tmp_path):
    kv = KeyedVectors(["a", "b"], np.arange(6, dtype=np.float32).reshape(2, 3))
    kv.save_word2vec_format(str(tmp_path / "v.bin.gz"))
    os.rename(tmp_path / "v.bin.gz", tmp_path / "v.bin.GZ")
    loaded = KeyedVectors.load(str(tmp_path / "v.bin.GZ"))
    assert loaded.index_to_key == ["a", "b"]
    np.testing.assert_array_equal(loaded.vectors, kv.vectors)


def test_a_pipe_is_sniffed_and_read_once(tmp_path):
    path = tmp_path / "c.xz"
    path.write_bytes(lzma.compress(TEXT))
    code = ("import sys; from w2v.util.opener import open_text; "
            "f = open_text(sys.argv[1]); sys.stdout.write(f.read()); f.close()")
    out = subprocess.run(["bash", "-c", f'"$0" -c "{code}" <(cat "$1")', sys.executable, str(path)],
                         capture_output=True, check=True)
    assert out.stdout == TEXT
    out = subprocess.run([sys.executable, "-c", code.replace("sys.argv[1]", "'-'")],
                         input=gzip.compress(TEXT), capture_output=True, check=True)
    assert out.stdout == TEXT


def test_open_text_replaces_undecodable_bytes(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"caf\xe9 ok\n")
    with open_text(str(path)) as f:
        assert f.read() == "caf\ufffd ok\n"
