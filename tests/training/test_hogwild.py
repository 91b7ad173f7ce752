import dataclasses

import numpy as np
import pytest

from w2v import Word2Vec
from w2v.errors import CorpusError, ParameterError, VocabularyError

FAST = dict(dim=32, epochs=1, min_count=3, seed=3)


def test_single_thread_is_bit_for_bit_reproducible(small_corpus):
    a = Word2Vec(threads=1, **FAST).train(str(small_corpus))
    b = Word2Vec(threads=1, **FAST).train(str(small_corpus))
    assert np.array_equal(a.syn0, b.syn0) and np.array_equal(a.syn1neg, b.syn1neg)
    assert a.last_train.epoch_loss == b.last_train.epoch_loss
    c = Word2Vec(threads=1, **{**FAST, "seed": 4}).train(str(small_corpus))
    assert not np.array_equal(a.syn0, c.syn0)


def test_initial_weights_use_gensim4_range(small_corpus):
    m = Word2Vec(threads=1, **FAST).build_vocab(str(small_corpus))
    v, dim = m.syn0.shape
    assert v == len(m.vocab) and dim == FAST["dim"] and m.syn0.dtype == np.float32
    # uniform in [-1/dim, 1/dim) (gensim 4's KeyedVectors.prep_vectors), mean ~0; outputs zero
    assert np.all(m.syn0 >= -1.0 / dim) and np.all(m.syn0 < 1.0 / dim)
    assert m.syn0.max() > 0.99 / dim and m.syn0.min() < -0.99 / dim
    assert abs(float(m.syn0.mean())) < 0.02 / dim
    assert not np.any(m.syn1neg)


@pytest.mark.parametrize("kw", [
    dict(model="sg"), dict(model="cbow"), dict(model="cbow", cbow_mean=False, alpha=0.01),
    dict(model="sg", hs=True, negative=0), dict(model="cbow", hs=True, negative=0),
    dict(model="sg", hs=True, negative=3), dict(model="sg", exact=True),
])
def test_loss_decreases_over_epochs_every_mode(small_corpus, kw):
    m = Word2Vec(threads=2, **{**FAST, "epochs": 3, **kw}).train(str(small_corpus))
    loss = m.last_train.epoch_loss
    assert np.all(np.isfinite(loss)) and loss[2] < loss[0]
    assert np.all(np.isfinite(m.syn0))
    # every token seen once per epoch; the loss per example fell below an untrained model's
    # (all scores 0: log 2 per output term, 1 + negative terms for negative sampling, at
    # most the longest Huffman path for hierarchical softmax)
    assert m.encoded_corpus is not None and m.last_train.words == 3 * m.encoded_corpus.n_words
    terms = (1 + m.settings.negative if m.settings.negative else 0) + \
        (int(m.huffman.lengths.max()) if m.settings.hs else 0)
    assert 0 < loss[-1] < terms * np.log(2)


@pytest.mark.parametrize("model", ["sg", "cbow"])
def test_objective_on_a_fixed_sample_falls_every_epoch(small_corpus, model):
    # The per-epoch loss above is measured online (each example before its
    # update) and may rise in the last epochs, when the falling learning rate
    # stops the model following the text it is reading.  The objective itself,
    # on a fixed sample of (input, output) pairs with fixed noise words, must
    # fall after every epoch.  (For CBOW the sample scores single context rows,
    # not their mean: a proxy of its objective that must fall as well.)
    m = Word2Vec(threads=1, **{**FAST, "model": model, "epochs": 5})
    m.build_vocab(str(small_corpus))
    ids = np.array([m.vocab.index.get(w, -1) for w in small_corpus.read_text().split()])
    ids = ids[ids >= 0]
    rng = np.random.default_rng(0)
    n = 50_000
    at = rng.integers(5, ids.size - 5, n)
    near = ids[at + rng.integers(1, 6, n) * rng.choice([-1, 1], n)]
    noise_p = np.bincount(ids, minlength=len(m.vocab)) ** 0.75
    noise = rng.choice(len(m.vocab), size=(n, 5), p=noise_p / noise_p.sum())
    centre = ids[at]
    objective = []

    def measure(epoch):
        x, out = m.syn0[near].astype(np.float64), m.syn1neg.astype(np.float64)
        pos = np.einsum("ij,ij->i", x, out[centre])
        neg = np.einsum("ij,ikj->ik", x, out[noise])
        objective.append(float(np.mean(np.logaddexp(0, -pos) + np.logaddexp(0, neg).sum(axis=1))))

    measure(-1)
    m.train(str(small_corpus), on_epoch_end=measure)
    assert len(objective) == 6
    assert np.all(np.diff(objective) < 0), objective


def test_learning_rate_schedule_reaches_min_alpha(small_corpus):
    from w2v.training.progress import Progress
    m = Word2Vec(threads=1, **FAST)
    p = Progress(100, m.settings, quiet=True)
    assert p.alpha_at(0.0) == pytest.approx(m.settings.alpha)
    assert p.alpha_at(0.5) == pytest.approx((m.settings.alpha + m.settings.min_alpha) / 2)
    assert p.alpha_at(1.0) == pytest.approx(m.settings.min_alpha)


def test_outputs_load_in_gensim_with_same_vectors(small_corpus, tmp_path):
    gensim = pytest.importorskip("gensim")
    m = Word2Vec(threads=2, **FAST).train(str(small_corpus))
    for binary in (True, False):
        out = tmp_path / ("v.bin" if binary else "v.txt")
        m.save_word2vec(str(out), binary=binary)
        kv = gensim.models.KeyedVectors.load_word2vec_format(str(out), binary=binary)
        assert kv.index_to_key == m.vocab.words
        if binary:
            assert np.array_equal(kv.vectors, m.syn0)
        else:
            np.testing.assert_allclose(kv.vectors, m.syn0, rtol=1e-6)


@pytest.mark.parametrize("kw", [dict(dim=0), dict(window=0), dict(epochs=0), dict(negative=-1),
                                dict(negative=0, hs=False), dict(alpha=0), dict(alpha=-1),
                                dict(model="skipgram"), dict(sample=-1), dict(threads=0),
                                # non-finite, wrong types, out of range (would fail later, or train NaNs)
                                dict(alpha=float("inf")), dict(alpha=float("nan")), dict(ns_exponent=float("inf")),
                                dict(sample=float("nan")), dict(alpha="x"), dict(alpha=None), dict(sample="x"),
                                dict(seed=-5), dict(seed=1.5), dict(max_vocab_size=2.5), dict(max_vocab_size=0),
                                dict(memory_budget=1.5), dict(negative=True), dict(hs="false"),
                                dict(cbow_mean="no"), dict(exact=1), dict(lowercase=None), dict(dim=10**12),
                                dict(window=10**12), dict(max_sentence_length=10**12), dict(epochs=10**12),
                                dict(epochs=10**20)])
def test_invalid_parameters(kw):
    with pytest.raises(ParameterError):
        Word2Vec(**kw)


def test_bad_corpora(tmp_path):
    with pytest.raises(CorpusError):
        Word2Vec().train(str(tmp_path / "nope.txt"))
    p = tmp_path / "few.txt"
    p.write_text("a b c d\n")
    with pytest.raises(VocabularyError):
        Word2Vec(min_count=2).train(str(p))
    e = tmp_path / "empty.txt"
    e.write_text("")
    with pytest.raises(CorpusError):
        Word2Vec().train(str(e))


def test_settings_changed_after_construction_are_checked_before_work(small_corpus):
    m = Word2Vec(threads=1, **FAST)
    with pytest.raises(ParameterError, match="epochs"):
        m.epochs = 0
    with pytest.raises(ParameterError, match="epochs"):
        m.update_settings(epochs=0)
    assert m.settings.epochs == FAST["epochs"]   # refused: the settings are as they were
    m.epochs = 1
    m.build_vocab(str(small_corpus))
    with pytest.raises(ParameterError, match="alpha"):
        m.alpha = -1.0
    with pytest.raises(ParameterError, match="alpha"):
        m.train(start_alpha=-1.0)
    assert m.settings.alpha == 0.025 and m.last_train is None   # nothing trained


def test_replicas_of_many_threads_share_a_bounded_budget(small_corpus, monkeypatch):
    # --threads 256 once took 4.4 GB on the bundled corpus: 16 MiB of replica per thread
    import w2v.training.hogwild as tr

    assert tr.replica_budget(2) == tr.replica_budget(65) == tr.REPLICA_BYTES
    assert 999 * tr.replica_budget(1000) <= tr.REPLICA_TOTAL_BYTES
    made = []
    real_init = tr.Replica.__init__

    def spy(self, syn0, syn1neg, rows, **kw):
        made.append(rows * 4 * syn0.shape[1] * syn0.itemsize)
        real_init(self, syn0, syn1neg, rows, **kw)

    monkeypatch.setattr(tr.Replica, "__init__", spy)
    monkeypatch.setattr(tr, "REPLICA_TOTAL_BYTES", 1 << 20)
    monkeypatch.setattr(tr, "MAX_REPLICA_THREADS", 9)    # the budget's own check, at 9 threads
    m = Word2Vec(threads=9, **{**FAST, "dim": 16}).train(str(small_corpus))
    assert len(made) == 8 and 0 < sum(made) <= 1 << 20
    assert np.all(np.isfinite(m.syn0))


@pytest.mark.parametrize("threads", [2, 4, 5, 16])
def test_replicas_only_up_to_max_replica_threads(small_corpus, replicas_made, threads):
    # with many threads the replicas' stale changes to the frequent rows overshoot (16 threads
    # blew them up on the 17M wiki slice): beyond MAX_REPLICA_THREADS every row is shared
    import w2v.training.hogwild as tr

    Word2Vec(threads=threads, **{**FAST, "dim": 16}).train(str(small_corpus))
    assert tr.MAX_REPLICA_THREADS == 4
    assert len(replicas_made) == (threads - 1 if threads <= 4 else 0)


def test_a_kept_wv_follows_further_training(small_corpus):
    # m.wv kept across m.train() shared the trained syn0 but kept its old norms: cosines of 4
    m = Word2Vec(threads=1, **FAST).train(str(small_corpus))
    kv = m.wv
    kv.most_similar("the", topn=1)      # fills its norm cache
    m.train()
    assert m.wv is not kv and np.shares_memory(kv.vectors, m.syn0)
    np.testing.assert_allclose(kv.norms, np.linalg.norm(m.syn0, axis=1), rtol=1e-6)
    assert kv.most_similar("the", topn=5) == m.wv.most_similar("the", topn=5)
    assert all(abs(score) <= 1.0 + 1e-6 for _, score in kv.most_similar("the", topn=20))


def test_settings_changed_on_a_trained_model_apply_at_the_next_train(small_corpus):
    # m.sample changed on a model with a vocabulary was ignored (the tables stayed)
    m = Word2Vec(threads=1, **{**FAST, "sample": 0}).train(str(small_corpus))
    assert m.last_train.kept == m.last_train.words
    m.sample = 1e-4
    m.train()
    fresh = Word2Vec(threads=1, **{**FAST, "sample": 1e-4}).train(str(small_corpus))
    assert m.last_train.kept < 0.8 * m.last_train.words
    assert m.last_train.kept == pytest.approx(fresh.last_train.kept, rel=0.02)
    np.testing.assert_array_equal(m.tables.keep_threshold, fresh.tables.keep_threshold)
    with pytest.raises(ParameterError, match="cannot change model"):   # as the CLI refuses it with --resume
        m.sg = 0
    with pytest.raises(ParameterError, match="cannot change model"):
        m.settings = dataclasses.replace(m.settings, model="cbow")
    assert m.settings.model == "sg"
    m.settings = dataclasses.replace(m.settings, ns_exponent=0.5)
    m.train()
    np.testing.assert_array_equal(m.tables.noise_table, Word2Vec(threads=1, **{**FAST, "ns_exponent": 0.5})
                                  .build_vocab(str(small_corpus)).tables.noise_table)


def test_on_epoch_end_must_be_callable_before_anything_trains(small_corpus):
    m = Word2Vec(threads=1, **FAST)
    with pytest.raises(ParameterError, match="on_epoch_end must be callable"):
        m.train(str(small_corpus), on_epoch_end="x")
    assert m.last_train is None


def test_cluster_options_without_a_client_are_refused_before_anything_trains(small_corpus):
    m = Word2Vec(threads=1, **FAST)
    with pytest.raises(TypeError, match="round_words"):
        m.train(str(small_corpus), round_words=1000)
    assert m.vocab is None and m.last_train is None


def test_a_closed_model_trains_only_on_a_corpus_given_again(small_corpus):
    m = Word2Vec(threads=1, **FAST).train(str(small_corpus))
    m.close()
    m.close()                            # closing twice is harmless
    with pytest.raises(VocabularyError, match="no corpus"):
        m.train()
    m.train(str(small_corpus))
    assert len(m.last_train.epoch_loss) == 1


def test_progress_counts_corpus_words_per_second():
    # the progress line counted ids (in-vocabulary tokens and sentence ends), the summary raw tokens
    import io
    import time

    from w2v.settings import Settings
    from w2v.training.progress import Progress

    out = io.StringIO()
    p = Progress(4000, Settings(threads=1), stream=out, interval=0, words_per_id=1.5)
    p.t0 = time.perf_counter() - 10.0
    p.maybe_report(2000, 1.0, 1, 0, force=True)
    assert " 0.3k words/s" in out.getvalue(), out.getvalue()   # 2000 ids / 10 s x 1.5


def test_on_disk_encoded_corpus_trains_identically(small_corpus):
    a = Word2Vec(threads=1, **FAST).train(str(small_corpus))
    b = Word2Vec(threads=1, memory_budget=0, **FAST)
    b.build_vocab(str(small_corpus))
    assert b.encoded_corpus.on_disk
    b.train()
    assert np.array_equal(a.syn0, b.syn0)


def _encoded_ids(n, sentence=50):
    from w2v.text.encoded import SENTINEL, EncodedCorpus, IdStream
    ids = np.arange(n, dtype=np.int32) % 7
    ids[sentence::sentence] = SENTINEL
    stream = IdStream()
    stream.append(ids)
    stream.finish()
    return EncodedCorpus(stream, int((ids >= 0).sum()), 7), ids


@pytest.mark.parametrize("threads", [None, 2])
def test_jobs_cover_every_epoch_once_and_shrink_only_with_threads(threads):
    from w2v.training.hogwild import MIN_JOB_TOKENS, iter_jobs
    n = 40 * MIN_JOB_TOKENS
    enc, ids = _encoded_ids(n)
    jobs = list(iter_jobs(enc, 2, 4 * MIN_JOB_TOKENS, 100, threads))
    for epoch in range(2):
        mine = [(p, j) for e, p, j in jobs if e == epoch]
        assert np.array_equal(np.concatenate([j for _, j in mine]), ids)
        assert [p for p, _ in mine] == list(np.cumsum([0] + [j.size for _, j in mine])[:-1])
    sizes = [j.size for _, _, j in jobs]
    assert max(sizes) <= 4 * MIN_JOB_TOKENS
    epoch_ends = {max(i for i, (e, _, _) in enumerate(jobs) if e == k) for k in range(2)}
    inner = [s for i, s in enumerate(sizes) if i not in epoch_ends]
    if threads is None:   # fixed size (but for sentence ends and each epoch's last job)
        assert min(inner) > 4 * MIN_JOB_TOKENS - 100
    else:                 # guided: the run's last jobs are small, none below the floor
        assert sizes[0] > 4 * MIN_JOB_TOKENS - 100
        assert max(sizes[-3:]) <= MIN_JOB_TOKENS
        assert min(inner) >= MIN_JOB_TOKENS - 100


def test_kernel_load_trains_nothing(small_corpus):
    from w2v.training.hogwild import kernel_args, load_kernel
    m = Word2Vec(threads=1, **FAST)
    m.build_vocab(str(small_corpus))
    before = (m.syn0.copy(), m.syn1neg.copy())
    state = np.array([123], np.uint64)
    stats = np.zeros(8)
    assert load_kernel(kernel_args(m.settings, m.syn0, m.syn1neg, m.syn1, m.tables), state, stats) >= 0
    assert state[0] == 123 and not stats.any()
    assert np.array_equal(before[0], m.syn0) and np.array_equal(before[1], m.syn1neg)


def _topic_corpus(path, groups=10, words=5, lines=3000, seed=1):
    # sentences of 2-12 words drawn from one of `groups` groups of `words` words: 50 words
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        for _ in range(lines):
            g = rng.integers(groups)
            f.write(" ".join(f"g{g}w{k}" for k in rng.integers(words, size=rng.integers(2, 13))) + "\n")
    return path


def _fixed_sample_objective(m, path, n=20_000, window=5):
    sents = [[m.vocab.index[w] for w in line.split()] for line in open(path)]
    pairs = np.array([(s[i], s[j]) for s in sents for i in range(len(s))
                      for j in range(max(0, i - window), min(len(s), i + window + 1)) if j != i])
    rng = np.random.default_rng(0)
    pick = pairs[rng.integers(0, len(pairs), n)]
    p = m.vocab.counts ** 0.75
    noise = rng.choice(len(p), size=(n, 5), p=p / p.sum())
    x, out = m.syn0[pick[:, 1]].astype(np.float64), m.syn1neg.astype(np.float64)
    pos = np.einsum("ij,ij->i", x, out[pick[:, 0]])
    neg = np.einsum("ij,ikj->ik", x, out[noise])
    return float(np.mean(np.logaddexp(0, -pos) + np.logaddexp(0, neg).sum(axis=1)))


def test_threads_on_a_small_vocabulary_train_as_well_as_one(tmp_path):
    # the workers' replicas were merged every 8192 kept words, more than an epoch of this
    # corpus: each worker fitted its own copy and their summed changes overshot (4 threads:
    # objective 2-6, above the untrained 4.16; one thread 1.01)
    path = _topic_corpus(tmp_path / "topics.txt")
    kw = dict(min_count=1, epochs=5, seed=1)
    one = _fixed_sample_objective(Word2Vec(threads=1, **kw).train(str(path)), path)
    assert one < 1.1
    for threads in (2, 4):
        m = Word2Vec(threads=threads, **kw).train(str(path))
        assert np.all(np.isfinite(m.syn0))
        assert _fixed_sample_objective(m, path) < 1.25 * one, threads


def test_merge_intervals_shrink_with_the_corpus_and_the_vocabulary(tmp_path):
    import w2v.training.hogwild as tr
    m = Word2Vec(min_count=1).build_vocab(str(_topic_corpus(tmp_path / "topics.txt", lines=6000)))
    length = m.encoded_corpus.length
    for threads in (2, 4, 8):
        intervals = tr.merge_intervals(m.encoded_corpus, m.tables.keep_threshold, threads,
                                       tr.choose_job_tokens(length, threads))
        if threads == 8:    # too short for replicas: plain Hogwild
            assert length < 8 * tr.EPOCH_MERGES * tr.MIN_MERGE_WORDS and intervals is None
            continue
        frequent, rest = intervals
        # many merges per epoch of each worker, each row updated a few times between them
        assert tr.MIN_MERGE_WORDS <= frequent <= length // (64 * threads)
        assert frequent <= rest <= length // (16 * threads)


def test_save_word2vec_writes_through_a_pipe(small_corpus, tmp_path):
    import os
    import stat
    import threading
    m = Word2Vec(threads=1, **{**FAST, "dim": 8}).train(str(small_corpus))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    m.save_word2vec(str(fifo), binary=False)
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)        # not replaced by a plain file
    assert got[0].split(b"\n", 1)[0] == f"{len(m.wv)} 8".encode()
    assert os.listdir(tmp_path) == ["fifo"]           # no temporary file left


@pytest.mark.parametrize("threads", [1, 2])
def test_each_epoch_reports_its_loss_when_it_ends(small_corpus, threads, monkeypatch):
    # the epochs' mean losses were all printed at the end of the run: after epoch 1 of a long
    # run nothing said what it reached until every epoch was done
    import io

    import w2v.model.runs
    from w2v.training.progress import Progress

    class Every(Progress):   # a progress line after every job
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "interval": 0})

    monkeypatch.setattr(w2v.model.runs, "Progress", Every)
    out = io.StringIO()
    m = Word2Vec(threads=threads, **{**FAST, "epochs": 3})
    m.build_vocab(str(small_corpus))
    m.train(quiet=False, progress_stream=out)
    lines = out.getvalue().splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith("epoch ") and ": mean loss" in line]
    assert len(ends) == 3, lines
    assert any(line.startswith("epoch 3/3") for line in lines), lines
    for k in (1, 2):   # epoch k's summary comes before any progress line of a later epoch
        later = [i for i, line in enumerate(lines) if line.startswith(f"epoch {k + 2}/3")]
        assert all(ends[k - 1] < i for i in later), lines
        assert f"epoch {k}: mean loss {m.last_train.epoch_loss[k - 1]:.4f}" in lines[ends[k - 1]]


def test_progress_lines_on_a_terminal_are_ended_before_other_text():
    # on a terminal the progress line is redrawn in place ("\r...") without a newline: text
    # printed after it (the CLI's "interrupted", an error, a warning) ran on after its ETA
    import io

    from w2v.settings import Settings
    from w2v.util.console import end_progress_line
    from w2v.training.progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    p = Progress(100, Settings(threads=1), stream=out, interval=0)
    p.status("reading corpus: 1,000 tokens")
    p.maybe_report(50, 1.0, 1, 0, force=True)
    assert not out.getvalue().endswith("\n")
    end_progress_line()
    assert out.getvalue().endswith("\033[K\n")
    end_progress_line()                       # nothing open: nothing written
    p.message("done")
    assert out.getvalue().endswith("\033[K\n\r\033[Kdone\n") and out.getvalue().count("\n") == 2
    log = io.StringIO()                       # not a terminal: a line each, a short step unsaid
    q = Progress(100, Settings(threads=1), stream=log, interval=0)
    q.status("saving ...", log=False)
    q.status("reading corpus: 1,000 tokens")
    end_progress_line()
    assert log.getvalue() == "reading corpus: 1,000 tokens\n"


def test_writing_to_a_closed_stream_is_dropped():
    # progress and notes are not the command's result: a stream that is gone (closed, EIO, EPIPE) drops them
    import io

    from w2v.util.console import write_or_drop

    closed = io.StringIO()
    closed.close()
    assert write_or_drop(closed, "line\n") is False
    out = io.StringIO()
    assert write_or_drop(out, "line\n") is True and out.getvalue() == "line\n"


def test_default_settings_are_gensims():
    # Settings' docstring: the defaults follow gensim's Word2Vec (but for the model: skip-gram)
    import inspect

    from w2v.settings import Settings

    gensim = pytest.importorskip("gensim")
    g = {k: p.default for k, p in inspect.signature(gensim.models.Word2Vec.__init__).parameters.items()}
    s = Settings(threads=1)
    assert s.model == "sg"
    assert (s.dim, s.window, s.negative, s.min_count, s.epochs, s.seed, s.max_vocab_size) == \
        (g["vector_size"], g["window"], g["negative"], g["min_count"], g["epochs"], g["seed"], g["max_vocab_size"])
    assert (s.hs, s.cbow_mean) == (bool(g["hs"]), bool(g["cbow_mean"]))
    assert (s.alpha, s.min_alpha, s.sample, s.ns_exponent) == (g["alpha"], g["min_alpha"], g["sample"],
                                                                g["ns_exponent"])


@pytest.mark.parametrize("kw", [dict(max_sentence_length=1), dict(negative=1001), dict(min_alpha=0.03),
                                dict(min_alpha=-1e-4), dict(threads=4097), dict(seed=1 << 64),
                                dict(device="tpu"), dict(tokenizer="nope"), dict(max_vocab_size=-1),
                                dict(alpha=0.0, min_alpha=0.0)])
def test_invalid_parameters_at_the_bounds(kw):
    # the bounds size scratch buffers (negative, threads, sentence length) or the schedule
    # (min_alpha in [0, alpha]); a one-word sentence piece would have no context
    with pytest.raises(ParameterError):
        Word2Vec(**kw)


def test_parameters_at_their_bounds_are_accepted():
    # the mirror of the test above: each bound itself is a valid value
    from w2v.settings import MAX_DIM, MAX_EPOCHS, MAX_SENTENCE_LENGTH, MAX_THREADS, MAX_WINDOW, Settings

    s = Settings(dim=MAX_DIM, window=MAX_WINDOW, epochs=MAX_EPOCHS, threads=MAX_THREADS, negative=1000,
                 max_sentence_length=MAX_SENTENCE_LENGTH, seed=(1 << 64) - 1, min_alpha=0.025, alpha=0.025,
                 sample=0.0, memory_budget=0, max_vocab_size=1, min_count=1)
    assert (s.dim, s.window, s.epochs, s.threads, s.negative) == (MAX_DIM, MAX_WINDOW, MAX_EPOCHS, MAX_THREADS, 1000)
    Settings(threads=1, negative=0, hs=True, min_alpha=0.0, max_sentence_length=2, seed=0)


def test_threads_default_to_the_cores_available():
    from w2v.settings import Settings, available_cores

    assert Settings().threads == available_cores() == Word2Vec().settings.threads


@pytest.mark.parametrize("done,eta", [(1000, "0:00:30"), (1, "11:06:30"), (4000, "0:00:00")])
def test_progress_line_shows_fraction_learning_rate_and_eta(done, eta):
    # 10 s in, ``done`` of 4000 ids: the rest at the same rate takes (4000 - done) / (done / 10) s
    import io
    import time

    from w2v.settings import Settings
    from w2v.training.progress import Progress

    s = Settings(threads=1, epochs=2, alpha=0.04, min_alpha=0.0001)
    out = io.StringIO()
    p = Progress(4000, s, stream=out, interval=0)
    p.t0 = time.perf_counter() - 10.0
    p.maybe_report(done, 3.0, 2, 1, force=True)
    line = out.getvalue()
    frac = done / 4000
    assert line.startswith(f"epoch 2/2  {100 * frac:5.1f}%"), line
    assert f"lr {0.04 - (0.04 - 0.0001) * frac:.6f}" in line, line
    assert "loss 1.5000" in line and line.rstrip().endswith(f"ETA {eta}"), line


def test_progress_of_a_resumed_run_shows_the_whole_run_and_times_the_rest():
    # 2,000 of 4,000 ids trained before the resume, 1,000 since, in 10 s: 75% of the run, the
    # learning rate at 75%, and the last 1,000 ids take 10 s more at this process's rate
    import io
    import time

    from w2v.settings import Settings
    from w2v.training.progress import Progress

    s = Settings(threads=1, epochs=4, alpha=0.04, min_alpha=0.0001)
    out = io.StringIO()
    p = Progress(4000, s, stream=out, interval=0, words_per_id=2.0)
    p.resume_from(2000)
    p.t0 = time.perf_counter() - 10.0
    p.maybe_report(1000, 3.0, 2, 2, force=True)
    line = out.getvalue()
    assert line.startswith("epoch 3/4   75.0%"), line
    assert f"lr {0.04 - (0.04 - 0.0001) * 0.75:.6f}" in line and "0.2k words/s" in line, line
    assert line.rstrip().endswith("ETA 0:00:10"), line


def test_progress_lines_come_at_most_once_per_interval():
    import io
    import time

    from w2v.settings import Settings
    from w2v.training.progress import Progress

    out = io.StringIO()
    p = Progress(4000, Settings(threads=1), stream=out, interval=5.0)   # not a terminal: a line each
    for done in (10, 20, 30):
        p.maybe_report(done, 1.0, 1, 0)          # within 5 s of the start: nothing
    assert out.getvalue() == ""
    p.last = time.perf_counter() - 6.0           # 6 s since the last line: one more
    p.maybe_report(40, 1.0, 1, 0)
    p.maybe_report(50, 1.0, 1, 0)
    assert out.getvalue().count("\n") == 1 and "  1.0%" in out.getvalue()
    p.maybe_report(60, 1.0, 1, 0, force=True)    # forced (an epoch's end): always
    assert out.getvalue().count("\n") == 2


@pytest.mark.parametrize("kw", [dict(model="sg"), dict(model="sg", exact=True), dict(model="cbow"),
                                dict(model="sg", hs=True, negative=0)], ids=["sg", "sg-exact", "cbow", "sg-hs"])
def test_a_one_thread_run_trains_what_the_numpy_reference_trains(tmp_path, kw):
    # Word2Vec's whole run (settings -> kernel arguments, random states, the schedule over two
    # epochs, sentence ends) against tests/support/reference.py step by step (the kernels alone are
    # checked against it in test_kernels)
    from types import SimpleNamespace

    from w2v.training.lifecycle import seed_states

    from ..kernels.test_cpu import reference_tokens

    rng = np.random.default_rng(2)
    path = tmp_path / "tiny.txt"
    path.write_text("".join(" ".join(f"t{k}" for k in rng.zipf(1.6, rng.integers(1, 12)) % 15) + "\n"
                            for _ in range(25)))
    m = Word2Vec(**{**dict(threads=1, dim=8, window=2, negative=3, min_count=1, epochs=2, sample=0.05,
                           alpha=0.05, seed=9), **kw})
    m.build_vocab(str(path))
    w0, w1neg, w1 = (a.astype(np.float64) for a in (m.syn0, m.syn1neg, m.syn1))
    initial = m.syn0.copy()
    tokens = np.concatenate([ids for _, ids in m.encoded_corpus.blocks(1 << 20)])
    t = m.tables
    tree = SimpleNamespace(codes=t.hs_codes, points=t.hs_points, lengths=t.hs_lengths)
    s = m.settings
    state = int(seed_states(s.seed, 1)[0, 0])
    stats = np.zeros(4)
    for epoch in range(2):
        w0, w1neg, w1, st, state = reference_tokens(
            tokens, epoch * tokens.size, 2 * tokens.size, w0, w1neg, w1, t.keep_threshold, t.noise_threshold,
            t.noise_alias, tree, alpha0=s.alpha, min_alpha=s.min_alpha, max_sentence_length=s.max_sentence_length,
            state=state, sg=s.sg, cbow_mean=s.cbow_mean, window=s.window, negative=s.negative, hs=s.hs,
            shared=not s.exact)
        stats += st
    m.train()
    assert 0 < m.last_train.kept < m.last_train.words          # subsampling took part
    assert [m.last_train.examples, m.last_train.kept, m.last_train.words] == stats[1:].tolist()
    np.testing.assert_allclose(m.syn0, w0, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m.syn1neg if s.negative else m.syn1, w1neg if s.negative else w1,
                               rtol=1e-4, atol=1e-5)
    assert not np.allclose(m.syn0, initial, rtol=1e-3, atol=1e-4)          # it trained


def test_seed_states_differ_between_workers():
    # each worker draws its own subsampling, windows and noise words
    from w2v.training.lifecycle import seed_states

    states = seed_states(7, 8)
    assert states.shape == (8, 1) and states.dtype == np.uint64
    assert len(set(states.ravel().tolist())) == 8
    assert np.array_equal(states, seed_states(7, 8)) and not np.array_equal(states, seed_states(8, 8))


def test_hierarchical_softmax_trains_a_one_word_vocabulary(tmp_path):
    # word2vec.c loops forever on a one-word Huffman tree; w2v gives the word a path of one
    # inner node, so that hierarchical softmax still learns something
    path = tmp_path / "one.txt"
    path.write_text("a a a a a\n" * 20)
    m = Word2Vec(threads=1, dim=8, min_count=1, sample=0, hs=True, negative=0, epochs=1, seed=1)
    m.train(str(path))
    assert m.last_train.examples > 0 and np.isfinite(m.last_train.epoch_loss[0])
    assert np.any(m.syn1 != 0)


def test_jobs_end_after_a_sentence_end_and_make_progress_when_one_starts_a_job():
    # a job whose only sentence end within reach is its first id must still cover that id
    # (and be cut after it), even when jobs are shorter than max_sentence_length
    import itertools

    from w2v.text.encoded import SENTINEL
    from w2v.training.hogwild import iter_jobs

    enc, ids = _encoded_ids(4000, sentence=1000)
    jobs = list(itertools.islice(iter_jobs(enc, 1, 1000, 3000), 100))
    assert np.array_equal(np.concatenate([j for _, _, j in jobs]), ids)
    for _, pos, job in jobs[:-1]:
        tail = ids[max(pos, pos + job.size - 3000):pos + job.size]
        assert job.size > 0 and (job[-1] == SENTINEL or not np.any(tail == SENTINEL))


@pytest.fixture
def replicas_made(monkeypatch):
    """The list of every :class:`w2v.training.hogwild.Replica` made while the test runs."""
    import w2v.training.hogwild as tr

    made = []
    real_init = tr.Replica.__init__

    def spy(self, *args, **kw):
        real_init(self, *args, **kw)
        made.append(self)

    monkeypatch.setattr(tr.Replica, "__init__", spy)
    return made


def test_what_every_replica_trained_reaches_the_shared_weights(small_corpus, replicas_made):
    # a worker's replica holds its changes to the frequent rows until a merge: when training
    # ends none may be left behind (copy == snapshot: nothing trained since the last merge)
    Word2Vec(threads=2, **{**FAST, "dim": 16}).train(str(small_corpus))
    assert len(replicas_made) == 1
    r = replicas_made[0]
    assert r.rows > 0 and r.plan[1] < r.plan[3]
    np.testing.assert_array_equal(r.hot0, r.snap0)
    np.testing.assert_array_equal(r.hot1, r.snap1)


def test_a_noise_table_naming_a_word_outside_the_vocabulary_is_refused(small_corpus):
    # the kernels read rows of the noise words without bounds checks
    from w2v.training.sampling import pack_alias_table

    m = Word2Vec(threads=1, **FAST).build_vocab(str(small_corpus))
    bad = m.tables.noise_alias.copy()
    bad[0] = len(m.vocab)
    m.tables.noise_table = pack_alias_table(np.minimum(m.tables.noise_threshold, (1 << 32) - 1), bad)
    with pytest.raises(ParameterError, match="outside the vocabulary"):
        m.train()


@pytest.mark.parametrize("lines", ["a\nb\n" * 50, "a\n\n\nb c\n", "x y\n", "a\n" * 9 + "b\n"])
def test_has_context_says_whether_some_sentence_holds_two_words(tmp_path, lines):
    from w2v.text.scanning import scan_corpus
    from w2v.text.encoded import encode_corpus
    from w2v.text.vocab import build_vocab

    p = tmp_path / "c.txt"
    p.write_text(lines)
    sc = scan_corpus([str(p)])
    vocab, remap = build_vocab(sc.words, sc.counts, 1, None)
    enc = encode_corpus(sc, remap, len(vocab))
    assert enc.has_context() == any(len(line.split()) >= 2 for line in lines.splitlines())
    enc.close()


def test_a_corpus_too_small_to_train_is_a_corpus_error(tmp_path):
    # without any training example the vectors are the random ones the model started from
    lonely = tmp_path / "one_word_lines.txt"
    lonely.write_text("a\nb\n" * 20 + "c d e\n")   # with min_count 2, "c", "d" and "e" are dropped
    m = Word2Vec(threads=1, dim=8, min_count=2, sample=0, epochs=2)
    with pytest.raises(CorpusError, match=r"nothing to train: no sentence of the corpus holds two words of the "
                                          r"vocabulary \(2 words of min_count 2 or more\)"):
        m.train(str(lonely))
    assert m.last_train is None, "refused before any epoch"
    m = Word2Vec(threads=1, dim=8, min_count=1, sample=0, epochs=2).train(str(lonely))   # "c d e": examples
    assert m.last_train.examples > 0
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("alpha beta gamma delta\n")   # frequency 1/4 each: subsampling keeps no pair with this seed
    m = Word2Vec(threads=1, dim=8, min_count=1, epochs=3, seed=1)
    syn0 = None
    with pytest.raises(CorpusError, match=r"nothing was trained: no training example in 3 epochs \(subsampling "
                                          r"dropped every word that had a context; on a tiny corpus set sample to 0\)"):
        m.build_vocab(str(tiny))
        syn0 = m.syn0.copy()
        m.train()
    assert m.last_train.examples == 0 and np.array_equal(m.syn0, syn0)
    assert Word2Vec(threads=1, dim=8, min_count=1, epochs=3, seed=1, sample=0).train(str(tiny)).last_train.examples
