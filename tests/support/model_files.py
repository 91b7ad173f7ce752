"""Full models and checkpoints made for the tests of untrusted model files, and ways to tamper with them.

A checkpoint is a folder or one ``.w2v`` file (a zip archive); :func:`edit_header` and
:func:`put_member` change a member of either form (the archive is rewritten stored, unaligned, as
``zip -0`` would: the reader accepts it and reads instead of mapping).
"""
import json
import os
import random
import shutil
import zipfile

import pytest

from w2v import Word2Vec
from w2v.model.checkpoints import Checkpointer

#: a corpus of 60,000 words over 300 distinct ones: a Hogwild job is 1/16 of it, so checkpoints fall within epochs
WORDS = [f"w{i}" for i in range(300)]
TINY = dict(dim=8, epochs=2, min_count=1, seed=3, threads=1, window=3, negative=2, sample=0)


def write_corpus(path, seed=1, sentences=3000):
    """A seeded corpus of ``sentences`` lines of 20 words (Zipf-like frequencies) at ``path``."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(WORDS))]
    lines = [" ".join(rng.choices(WORDS, weights, k=20)) for _ in range(sentences)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def stopped_within_epoch(corpus, path, **kw):
    """A checkpoint at ``path`` (a folder, or one file for a ``.w2v`` name) of a run stopped within its first epoch."""
    m = Word2Vec(**{**TINY, **kw})

    def stop(self, epoch):
        raise KeyboardInterrupt

    orig = Checkpointer.epoch_end
    Checkpointer.epoch_end = stop
    try:
        with pytest.raises(KeyboardInterrupt):
            m.train(str(corpus), checkpoint=str(path), checkpoint_words=10_000)
    finally:
        Checkpointer.epoch_end = orig
    state = Word2Vec.load(str(path)).run_state
    assert state["epochs_done"] == 0 and state["position"] > 0, state
    return path


def read_member(model, name):
    """The bytes of the member ``name`` of the model at ``model`` (a folder or a ``.w2v`` file)."""
    if os.path.isdir(model):
        with open(os.path.join(model, name), "rb") as f:
            return f.read()
    with zipfile.ZipFile(model) as z:
        return z.read(name)


def put_member(model, name, data):
    """Replace the member ``name`` of the model at ``model`` by the bytes ``data``."""
    if os.path.isdir(model):
        path = os.path.join(model, name)
        if os.path.lexists(path):
            os.remove(path)
        with open(path, "wb") as f:
            f.write(data)
        return
    with zipfile.ZipFile(model) as z:
        members = [(info.filename, z.read(info.filename)) for info in z.infolist()]
    tmp = f"{model}.rewrite"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        for member, content in members:
            z.writestr(member, data if member == name else content)
    os.replace(tmp, model)


def edit_header(model, edit):
    """Apply ``edit(header)`` to the parsed ``model.json`` of ``model`` and write it back."""
    header = json.loads(read_member(model, "model.json"))
    edit(header)
    put_member(model, "model.json", json.dumps(header).encode("utf-8"))


def copy_model(src, dst):
    """A copy of the model ``src`` (a folder or a file) at ``dst``."""
    if os.path.isdir(src):
        shutil.copytree(src, dst)
    else:
        shutil.copyfile(src, dst)
    return dst
