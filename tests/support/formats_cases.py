"""Shared helpers of the tests of w2v.formats and the loaders in w2v.vectors.keyed."""
import builtins
import os

import numpy as np
import pytest
from click.testing import CliRunner

import w2v.formats.files as format_files
import w2v.util.opener as opener
from w2v_cli.main import main
from w2v.errors import FormatError
from w2v.vectors.keyed import KeyedVectors, load

WORDS = ["the", "naïve", "日本語", "ünïcödé", "a"]


def make_kv(n=5, dim=4, seed=0, words=None, counts=True):
    rng = np.random.default_rng(seed)
    words = list(words) if words is not None else (WORDS + [f"w{i}" for i in range(n)])[:n]
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    return KeyedVectors(words, vecs, counts=np.arange(n, 0, -1) * 10 if counts else None,
                        settings={"dim": dim, "sg": 1, "alpha": 0.025})


def same(kv1, kv2, exact=True):
    assert kv1.index_to_key == kv2.index_to_key
    assert kv1.vectors.dtype == np.float32 and kv2.vectors.dtype == np.float32
    if exact:
        assert np.array_equal(kv1.vectors, kv2.vectors)
    else:
        np.testing.assert_allclose(kv1.vectors, kv2.vectors, rtol=1e-6, atol=1e-7)


def raw_binary(words, vecs, newline=True, header=None):
    out = (header if header is not None else f"{len(words)} {vecs.shape[1]}\n").encode()
    for w, v in zip(words, vecs):
        out += w.encode("utf-8") + b" " + np.asarray(v, "<f4").tobytes() + (b"\n" if newline else b"")
    return out


def expect_format_error(path, match=None, **kw):
    with pytest.raises(FormatError) as info:
        load(path, **kw)
    assert str(path) in str(info.value)
    if match:
        assert match in str(info.value), str(info.value)
    return str(info.value)


def deny_open(monkeypatch, name):
    """Make ``open`` in w2v.formats.files and w2v.util.opener (which open every model file) fail on files
    named ``name``."""
    real = builtins.open

    def fake(file, *args, **kwargs):
        if os.path.basename(os.fspath(file)) == name:
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(format_files, "open", fake, raising=False)
    monkeypatch.setattr(opener, "open", fake, raising=False)


def run_cli(args):
    """Run the ``w2v`` command line with ``args`` (paths as str)."""
    return CliRunner().invoke(main, [str(a) for a in args])
