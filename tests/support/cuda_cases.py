"""Inputs of the CUDA kernel checks and their NumPy references (shared by the simulator runner and the tests).

The kernels run in a child process under Numba's CUDA simulator
(``tests/support/cuda_sim_runner.py``); the references run here, in plain NumPy, from
``tests/support/reference.py``, with the same random draws: the GPU path's counter-based
splitmix64 streams (:mod:`w2v.cuda.host`) are ordinary splitmix64 streams whose
start state is known, so the reference's sequential ``SplitMix64`` consumes
exactly the kernel's draws.
"""
import numpy as np

from w2v.cuda.host import keep_draw, segment_state
from w2v.training.sampling import HuffmanTree, alias_table

from . import reference as ref

V, DIM = 12, 8
SEED_KEEP, SEED_SEG = 0x1234_5678_9ABC_DEF0, 0x0FED_CBA9_8765_4321
ALWAYS = 1 << 32

# name, settings of the kernel specialisation, threads per block, and the run
KERNEL_CASES = [
    dict(name="sgns-shared", sg=True, shared=True, cbow_mean=True, negative=5, hs=False, window=3, threads=8),
    dict(name="sgns-shared-w1-t32", sg=True, shared=True, cbow_mean=True, negative=5, hs=False, window=1,
         threads=32),
    dict(name="sgns-exact", sg=True, shared=False, cbow_mean=True, negative=4, hs=False, window=2, threads=8),
    dict(name="cbow-mean-ns-t32", sg=False, shared=True, cbow_mean=True, negative=5, hs=False, window=3,
         threads=32),
    dict(name="cbow-sum-ns", sg=False, shared=True, cbow_mean=False, negative=5, hs=False, window=2, threads=8),
    dict(name="sg-hs", sg=True, shared=True, cbow_mean=True, negative=0, hs=True, window=3, threads=8),
    dict(name="sg-hs+ns", sg=True, shared=True, cbow_mean=True, negative=3, hs=True, window=2, threads=8),
    dict(name="cbow-hs+ns", sg=False, shared=True, cbow_mean=True, negative=3, hs=True, window=2, threads=8),
    # subsampling on the device, learning rate from the segment position, atomics off,
    # two segments trained by one block (grid-stride loop)
    dict(name="sgns-subsample-lr", sg=True, shared=True, cbow_mean=True, negative=5, hs=False, window=3,
         threads=8, subsample=True, alpha0=0.05, min_alpha=0.001, pos_base=700, total=2000, grid=1,
         atomics=False),
]


def case_arrays(case):
    """Deterministic weights, tables and token stream of a kernel case."""
    rng = np.random.default_rng(_stable_seed(case["name"]))
    counts = np.sort(rng.integers(1, 100, V))[::-1].astype(np.int64)
    syn0 = rng.normal(0, 0.3, (V, DIM)).astype(np.float32)
    syn1neg = rng.normal(0, 0.3, (V, DIM)).astype(np.float32)
    syn1 = rng.normal(0, 0.3, (V - 1, DIM)).astype(np.float32)
    thr, alias = alias_table(counts)
    tree = HuffmanTree.from_counts(counts)
    a = rng.integers(0, V, 9)
    a[3] = a[5]                     # a repeated word: its updates add up
    b = rng.integers(0, V, 6)
    c = rng.integers(0, V, 7)
    ids = np.concatenate([a, [-1], b, [-1], c]).astype(np.int32)
    # segment 0: sentences a and b (a sentence end inside a segment); segment 1: c
    starts = np.array([0, a.size + 1 + b.size + 1], np.int64)
    lens = np.array([a.size + 1 + b.size, c.size], np.int32)
    if case.get("subsample"):
        keep = (np.linspace(0.45, 1.0, V) * ALWAYS).astype(np.int64)
    else:
        keep = np.full(V, ALWAYS, np.int64)
    return dict(counts=counts, syn0=syn0, syn1neg=syn1neg, syn1=syn1, thr=thr, alias=alias, codes=tree.codes,
                points=tree.points, lengths=tree.lengths, ids=ids, starts=starts, lens=lens, keep=keep)


def _stable_seed(name):
    return int.from_bytes(name.encode()[:8].ljust(8, b"\0"), "little") % (1 << 32)


def run_params(case):
    """``(pos_base, total, alpha0, min_alpha, grid, atomics)`` of a case."""
    return (case.get("pos_base", 0), case.get("total", 1 << 40), case.get("alpha0", 0.05),
            case.get("min_alpha", 0.05), case.get("grid"), case.get("atomics", True))


def segment_alpha(p0, total, alpha0, min_alpha):
    """The kernel's learning rate of a segment starting at ``p0`` (the CPU formula, float32)."""
    frac = min(p0 / total, 1.0)
    return float(np.float32(max(alpha0 - (alpha0 - min_alpha) * frac, min_alpha)))


def reference(case, arr, seeds=(SEED_KEEP, SEED_SEG)):
    """Reference result of a kernel case: ``(syn0, syn1neg, syn1, [loss, examples, kept, seen])``.

    ``seeds``: ``(seed_keep, seed_seg)`` of the run (:func:`w2v.cuda.host.derive_seeds`).
    """
    seed_keep, seed_seg = seeds
    pos_base, total, alpha0, min_alpha, _, _ = run_params(case)
    syn0 = arr["syn0"].astype(np.float64)
    syn1neg = arr["syn1neg"].astype(np.float64)
    syn1 = arr["syn1"].astype(np.float64)
    loss = 0.0
    examples = kept = seen = 0
    ids = arr["ids"]
    for a, n in zip(arr["starts"], arr["lens"]):
        p0 = pos_base + int(a)
        alpha = segment_alpha(p0, total, alpha0, min_alpha)
        stream = []
        for j in range(int(n)):
            w = int(ids[a + j])
            if w < 0:
                stream.append(-1)
                continue
            seen += 1
            if (keep_draw(seed_keep, p0 + j) >> 32) < arr["keep"][w]:
                stream.append(w)
                kept += 1
        rng = ref.SplitMix64(segment_state(seed_seg, p0))
        sentences, cur = [], []
        for w in stream + [-1]:
            if w < 0:
                if cur:
                    sentences.append(cur)
                cur = []
            else:
                cur.append(w)
        for sent in sentences:
            syn0, syn1neg, syn1, sent_loss, e = ref.train_sentence(
                sent, syn0, syn1neg, syn1, arr["thr"], arr["alias"], arr["codes"], arr["points"], arr["lengths"],
                sg=case["sg"], cbow_mean=case["cbow_mean"], window=case["window"], negative=case["negative"],
                hs=case["hs"], shared=case["shared"], alpha=alpha, rng=rng)
            loss += sent_loss
            examples += e
    return syn0, syn1neg, syn1, np.array([loss, examples, kept, seen], np.float64)


# --------------------------------------------------------------------------- sampling
NOISE_COUNTS = np.array([500, 200, 90, 40, 40, 7, 3, 1], np.int64)
NOISE_STATE = 99
NOISE_DRAWS = 8_000
KEEP_COUNTS = np.array([5000, 2000, 900, 400, 100, 50, 10, 5], np.int64)
KEEP_SAMPLE = 0.01
KEEP_TOKENS = 8_000
KEEP_POS0 = 123_456


def keep_tokens():
    rng = np.random.default_rng(5)
    ids = rng.integers(0, KEEP_COUNTS.size, KEEP_TOKENS).astype(np.int32)
    ids[::97] = -1
    return ids


# --------------------------------------------------------------------------- training run
TRAIN_SETTINGS = dict(dim=8, window=2, negative=3, epochs=3, min_count=1, sample=0.0, alpha=0.25, min_alpha=0.0001,
                      seed=3, threads=1, device="cuda")


def write_train_corpus(path, sentences=16):
    """Sentences of 8 words drawn from one of three 6-word clusters (co-occurrence to learn)."""
    rng = np.random.default_rng(11)
    clusters = [[f"{c}{i}" for i in range(6)] for c in "abc"]
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(sentences):
            words = clusters[rng.integers(0, 3)]
            f.write(" ".join(words[k] for k in rng.integers(0, 6, 8)) + "\n")
    return path


def run_reference(model, batch_tokens, seg_max, epochs=None):
    """A whole ``train_epochs_cuda`` run of ``model`` in NumPy: ``(syn0, syn1neg, stats per epoch, segments)``.

    The encoded stream is cut into ``ceil(length / batch_tokens)`` equal batches, each batch into
    segments (:func:`w2v.kernels.segments.make_segments`); a segment starting at batch offset ``a`` of the
    batch at ``start`` trains at global position ``epoch x length + start + a`` of a run of
    ``epochs x length`` positions, with the run's seeds.
    """
    from w2v.cuda.host import derive_seeds
    from w2v.kernels.segments import make_segments

    s, t = model.settings, model.tables
    epochs = epochs or s.epochs
    length = model.encoded_corpus.length
    ids = model.encoded_corpus.stream.read(0, length)
    n_batches = -(-length // batch_tokens)
    bsize = -(-length // n_batches)
    case = dict(sg=s.sg, cbow_mean=s.cbow_mean, window=s.window, negative=s.negative, hs=s.hs,
                shared=not s.exact, total=epochs * length, alpha0=s.alpha, min_alpha=s.min_alpha)
    arr = dict(syn0=model.syn0, syn1neg=model.syn1neg, syn1=model.syn1, keep=t.keep_threshold,
               thr=t.noise_threshold, alias=t.noise_alias, codes=t.hs_codes, points=t.hs_points,
               lengths=t.hs_lengths)
    stats = np.zeros((epochs, 4))
    segments = 0
    for epoch in range(epochs):
        for start in range(0, length, bsize):
            batch = ids[start:start + bsize]
            starts, lens = make_segments(batch, seg_max, s.max_sentence_length)
            segments += starts.size
            arr["syn0"], arr["syn1neg"], arr["syn1"], st = reference(
                dict(case, pos_base=epoch * length + start), dict(arr, ids=batch, starts=starts, lens=lens),
                derive_seeds(s.seed))
            stats[epoch] += st
    return arr["syn0"], arr["syn1neg"], stats, segments
