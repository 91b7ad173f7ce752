"""CBOW's SIMD step (w2v/kernels/cbow.py) against the NumPy reference and against sgd_block's bits."""
import numpy as np
import pytest

from w2v.kernels.block import TB
from w2v.kernels.cbow import block_step, hidden_row, scatter
from w2v.kernels.cpu import sgd_block

from ..support import reference as ref

V = 14
# 8: one masked vector; 100: six whole vectors and a tail (the compiled-constant length);
# 300: a long row (18 whole vectors and a tail); 32: whole vectors only
DIMS = [8, 32, 100, 300]


def rows(seed, dim, n=V, scale=0.3):
    rng = np.random.default_rng(seed)
    return rng.normal(0, scale / np.sqrt(dim / 8), (n, dim)).astype(np.float32)


def step_args(dim, targets):
    targets = np.asarray(targets, np.int64)
    labels = np.zeros(len(targets), np.float32)
    labels[0] = 1.0
    pad = np.zeros((1, dim), np.float32)
    return targets, labels, pad


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("targets", [[3, 7, 1, 9, 12, 5], [3, 7, 7, 9, 3, 5], [3, 8], [4]],
                         ids=["six", "repeated", "two", "one"])
@pytest.mark.parametrize("scale", [np.float32(1.0), np.float32(0.25)], ids=["mean", "sum-of-4"])
def test_block_step_matches_the_numpy_reference(dim, targets, scale):
    h = rows(1, dim, 1)[0]
    out = rows(2, dim)
    targets, labels, pad = step_args(dim, targets)
    alpha = np.float32(0.05)
    dX, dOut, loss = ref.block_step(h[None, :], out, targets, labels, alpha)
    out_k = out.copy()
    dh = np.full(dim, np.nan, np.float32)   # written, not added to
    G = np.empty(2 * TB, np.float32)
    got = block_step(h, out_k, out_k[:0], 0, targets, labels, len(targets), alpha, scale, dh, G, pad, 0)
    np.testing.assert_allclose(dh, dX[0] * scale, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out_k, out + dOut, rtol=1e-4, atol=1e-6)
    assert got == pytest.approx(loss, rel=1e-5)
    assert not pad.any()   # the row of zeros that fills the block stays zero


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("targets", [[3, 7, 1, 9, 12, 5], [3, 7, 7, 9, 3, 5], [3, 8, 2]],
                         ids=["six", "repeated", "three"])
def test_block_step_trains_the_bits_of_sgd_block(dim, targets):
    """One input row: the fused step takes sgd_block's sums in sgd_block's order."""
    h = rows(3, dim, 1)
    out = rows(4, dim, scale=2.0)   # some scores beyond MAX_SCORE: their pairs take no update
    targets, labels, pad = step_args(dim, targets)
    alpha = np.float32(0.05)
    nt = len(targets)
    out_a, out_b = out.copy(), out.copy()
    dX = np.zeros((1, dim), np.float32)
    loss_a = sgd_block(h, 1, out_a, out_a[:0], 0, targets, labels, nt, alpha, dX, np.empty(2 * nt, np.float32), 0)
    dh = np.empty(dim, np.float32)
    loss_b = block_step(h[0], out_b, out_b[:0], 0, targets, labels, nt, alpha, np.float32(1.0), dh,
                        np.empty(2 * TB, np.float32), pad, 0)
    assert np.array_equal(dh, dX[0])
    assert np.array_equal(out_b, out_a)
    assert loss_b == loss_a
    assert not np.array_equal(out_b, out)


def test_block_step_reads_and_writes_a_threads_copies_of_the_first_rows():
    dim = 100
    h = rows(5, dim, 1)[0]
    out = rows(6, dim)
    hot = out[:4].copy() * np.float32(2.0)   # the thread's copies of rows 0-3 differ from the shared rows
    targets, labels, pad = step_args(dim, [2, 9, 0, 11, 3])
    alpha = np.float32(0.05)
    seen = out.copy()
    seen[:4] = hot
    dX, dOut, loss = ref.block_step(h[None, :], seen, targets, labels, alpha)
    out_k, hot_k = out.copy(), hot.copy()
    dh = np.empty(dim, np.float32)
    block_step(h, out_k, hot_k, 4, targets, labels, len(targets), alpha, np.float32(1.0), dh,
               np.empty(2 * TB, np.float32), pad, 0)
    np.testing.assert_allclose(dh, dX[0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(hot_k, (seen + dOut)[:4], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out_k[4:], (seen + dOut)[4:], rtol=1e-4, atol=1e-6)
    assert np.array_equal(out_k[:4], out[:4])   # the shared copies of the hot rows are not touched


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("nc", [1, 2, 3, 4, 7, 10])
@pytest.mark.parametrize("mean", [True, False])
def test_hidden_row_is_the_sum_or_mean_of_the_context_rows_in_order(dim, nc, mean):
    syn0 = rows(7, dim)
    ctx = np.random.default_rng(nc).integers(0, V, nc).astype(np.int64)
    h = np.full(dim, np.nan, np.float32)
    hidden_row(syn0, syn0[:0], 0, ctx, nc, mean, h, 0)
    want = np.zeros(dim, np.float32)   # float32, added row by row in the context's order
    for c in ctx:
        want = want + syn0[c]
    if mean:
        want = want * (np.float32(1.0) / np.float32(nc))
    assert np.array_equal(h, want)


@pytest.mark.parametrize("dim", DIMS)
def test_scatter_adds_the_update_to_every_context_position(dim):
    syn0 = rows(8, dim)
    hot = syn0[:3].copy()
    ctx = np.array([5, 2, 5, 9, 0], np.int64)   # 5 twice: it takes the update twice
    dh = rows(9, dim, 1)[0]
    want, want_hot = syn0.astype(np.float64), hot.astype(np.float64)
    for c in ctx:
        (want_hot if c < 3 else want)[c] += dh
    syn0_k, hot_k = syn0.copy(), hot.copy()
    scatter(syn0_k, hot_k, 3, ctx, len(ctx), dh, 0)
    np.testing.assert_allclose(syn0_k, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(hot_k, want_hot, rtol=1e-6, atol=1e-7)
