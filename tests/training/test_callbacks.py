"""Training callbacks (w2v.training.callbacks): gensim's CallbackAny2Vec protocol, in gensim's order."""
import pytest

from w2v import CallbackAny2Vec, ParameterError, Word2Vec

SENTENCES = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "sat", "on", "the", "log"]] * 40
SMALL = dict(vector_size=8, min_count=1, sample=0, workers=1, epochs=3)


class Recorder(CallbackAny2Vec):
    def __init__(self):
        self.calls = []
        self.losses = []

    def on_train_begin(self, model):
        self.calls.append("train_begin")

    def on_epoch_begin(self, model):
        self.calls.append("epoch_begin")

    def on_epoch_end(self, model):
        self.calls.append("epoch_end")
        self.losses.append(model.get_latest_training_loss())

    def on_train_end(self, model):
        self.calls.append("train_end")


EXPECTED = ["train_begin"] + ["epoch_begin", "epoch_end"] * 3 + ["train_end"]


def test_callbacks_are_called_in_gensims_order_with_the_loss_so_far():
    rec = Recorder()
    m = Word2Vec(sentences=SENTENCES, callbacks=[rec], **SMALL)
    assert rec.calls == EXPECTED
    assert 0 < rec.losses[0] < rec.losses[1] < rec.losses[2] == m.get_latest_training_loss()
    assert m.running_training_loss == m.get_latest_training_loss()
    rec.calls.clear()
    m.train(SENTENCES, total_examples=m.corpus_count, epochs=m.epochs, callbacks=[rec])
    assert rec.calls == EXPECTED


def test_callbacks_are_duck_typed_and_may_have_some_methods_only():
    seen = []

    class OnlyEnd:
        def on_epoch_end(self, model):
            seen.append(model.run_state["epochs_done"])

    gensim = pytest.importorskip("gensim")

    class TheirBase(gensim.models.callbacks.CallbackAny2Vec):
        def on_train_end(self, model):
            seen.append("end")

    m = Word2Vec(**SMALL)
    m.build_vocab(SENTENCES)
    m.train(SENTENCES, total_examples=m.corpus_count, epochs=3, callbacks=(OnlyEnd(), TheirBase()))
    assert seen == [1, 2, 3, "end"]
    with pytest.raises(ParameterError, match="none of the methods"):
        m.train(SENTENCES, total_examples=m.corpus_count, epochs=1, callbacks=[object()])


def test_a_callback_that_saves_each_epoch_writes_a_model_that_loads(tmp_path):
    class EpochSaver(CallbackAny2Vec):
        def __init__(self):
            self.epoch = 0

        def on_epoch_end(self, model):
            model.save(str(tmp_path / f"epoch{self.epoch}"))
            self.epoch += 1

    m = Word2Vec(sentences=SENTENCES, callbacks=[EpochSaver()], **SMALL)
    loaded = Word2Vec.load(str(tmp_path / "epoch2"))
    assert loaded.wv.index_to_key == m.wv.index_to_key
    assert (loaded.wv.vectors == m.wv.vectors).all()
    assert Word2Vec.load(str(tmp_path / "epoch0")).run_state["epochs_done"] == 1


def test_w2vs_epoch_hook_runs_beside_callbacks():
    order = []

    class Cb(CallbackAny2Vec):
        def on_epoch_end(self, model):
            order.append("callback")

    m = Word2Vec(**SMALL)
    m.train(SENTENCES, on_epoch_end=lambda e: order.append(e), callbacks=[Cb()])
    assert order == [0, "callback", 1, "callback", 2, "callback"]


def test_the_loss_of_a_run_without_callbacks_is_the_sum_over_its_epochs():
    m = Word2Vec(sentences=SENTENCES, **SMALL)
    r = m.last_train
    assert len(r.epoch_examples) == 3 and sum(r.epoch_examples) == r.examples
    assert m.get_latest_training_loss() == pytest.approx(sum(a * b for a, b in zip(r.epoch_loss, r.epoch_examples)))
    assert Word2Vec(**SMALL).get_latest_training_loss() == 0.0
