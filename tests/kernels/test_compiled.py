"""The run that compiles the training kernels trains what the runs that load them from Numba's cache train.

Numba runs, in the process that compiles them, each kernel's callees as compiled on their own,
and in a process that loads the kernel from its cache, the copies compiled into the kernel;
``docs/reproducibility.md`` says why both give the same bits and what would break it.
"""
import json
import lzma
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from w2v.kernels.simd import vadd, vfma, vload, vmul, vstore

from ..conftest import BUNDLED, ROOT

# Every mode at the row length w2v.kernels.cpu compiles as a constant (SPECIALIZED_DIM) and at
# another one; all of them run the one compiled train_tokens, so each costs only its training.
TRAINING_RUN = r"""
import json
import sys

import numpy as np

from w2v import Word2Vec
from w2v.kernels.cpu import SPECIALIZED_DIM, train_tokens

corpus, out = sys.argv[1], sys.argv[2]
runs = {
    "cbow": dict(model="cbow"),
    "cbow-sum": dict(model="cbow", cbow_mean=False),
    "sg": dict(model="sg"),
    "sg-exact": dict(model="sg", exact=True),
    "cbow-hs": dict(model="cbow", hs=True, negative=0),
    "sg-hs-ns": dict(model="sg", hs=True, negative=3),
}
weights = {}
for dim in (SPECIALIZED_DIM, 24):
    for name, kw in runs.items():
        m = Word2Vec(dim=dim, epochs=1, min_count=2, threads=1, seed=7, **kw)
        m.train(corpus)
        for part in ("syn0", "syn1neg", "syn1"):
            weights[f"{name}-{dim}-{part}"] = getattr(m, part)
np.savez(out, **weights)
stats = train_tokens.stats
print(json.dumps(dict(cache_path=stats.cache_path, compiled=sum(stats.cache_misses.values()),
                      loaded=sum(stats.cache_hits.values()))))
"""


def train_in_a_fresh_process(corpus, out, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    env.pop("NUMBA_BOUNDSCHECK", None)   # the kernels as users run them
    res = subprocess.run([sys.executable, "-c", TRAINING_RUN, str(corpus), str(out)], capture_output=True,
                         text=True, timeout=600, cwd=str(ROOT), env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_run_that_compiles_the_kernels_trains_the_bits_of_the_runs_that_load_them(tmp_path):
    # ~60k words; two processes with one new cache folder: the first compiles (about half a
    # minute on 2 cores), the second loads train_tokens from the cache the first wrote
    with lzma.open(BUNDLED, "rt", encoding="utf-8") as src:
        lines = [next(src) for _ in range(1200)]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(lines), encoding="utf-8")
    cache_dir = tmp_path / "numba-cache"
    first = train_in_a_fresh_process(corpus, tmp_path / "first.npz", cache_dir)
    again = train_in_a_fresh_process(corpus, tmp_path / "again.npz", cache_dir)
    assert first["cache_path"].startswith(str(cache_dir)) and again["cache_path"] == first["cache_path"]
    assert first["compiled"] == 1 and first["loaded"] == 0
    assert again["compiled"] == 0 and again["loaded"] == 1
    with np.load(tmp_path / "first.npz") as a, np.load(tmp_path / "again.npz") as b:
        assert sorted(a.files) == sorted(b.files) and len(a.files) == 36
        differ = [name for name in a.files if a[name].shape != b[name].shape or a[name].tobytes() != b[name].tobytes()]
        assert not differ, f"{len(differ)} of {len(a.files)} weight matrices differ: {differ}"
        assert all(np.isfinite(a[name]).all() for name in a.files)


def test_the_simd_vectors_arithmetic_leaves_llvm_nothing_to_reorder():
    # what keeps the sums over a row in one order in every compiled copy of a kernel: in a function
    # compiled with fastmath, as the kernels are, the vectors' adds and multiplies keep no flag but
    # nnan (Numba's fastmath pass would give an instruction without flags all of them) and the
    # multiply-adds are llvm.fmuladd without flags (vsum is one reduction, in the order the code generator gives it)
    @njit(fastmath=True, cache=False)
    def step(a, b, c):
        x = vload(a, 0, 16)
        y = vload(b, 0, 16)
        z = vload(c, 0, 16)
        vstore(a, 0, 16, vadd(vadd(vmul(x, y), z), vfma(x, y, z)))

    a, b, c = (np.arange(16, dtype=np.float32) + k for k in (1, 2, 3))
    want = 2 * (a * b + c)   # small integers: every sum and product is exact, fused or not
    step(a, b, c)
    np.testing.assert_array_equal(a, want)
    ir = step.inspect_llvm(step.signatures[0])
    arithmetic = re.findall(r"= (f(?:add|mul)) ([a-z ]*)<16 x float>", ir)
    fmas = re.findall(r"call ([a-z ]*)<16 x float> @llvm\.fmuladd\.v16f32", ir)
    assert sorted(arithmetic) == [("fadd", "nnan "), ("fadd", "nnan "), ("fmul", "nnan ")]
    assert fmas == [""]
