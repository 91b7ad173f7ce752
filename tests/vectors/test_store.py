"""VectorStore, the one owner of KeyedVectors' state, and the composition around it."""
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import w2v.vectors
from w2v.errors import FormatError, ParameterError
from w2v.vectors.keyed import KeyedVectors
from w2v.vectors.store import VectorStore


def _store(n=4, dim=3, **kwargs):
    vectors = np.arange(n * dim, dtype=np.float32).reshape(n, dim) + 1
    return VectorStore([f"w{i}" for i in range(n)], vectors, **kwargs)


def test_no_class_of_the_vectors_package_inherits_anything_but_an_exception():
    for info in pkgutil.iter_modules(w2v.vectors.__path__):
        module = importlib.import_module(f"w2v.vectors.{info.name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or issubclass(cls, BaseException):
                continue
            assert cls.__bases__ == (object,), f"{module.__name__}.{name} inherits {cls.__bases__}"
    assert KeyedVectors.__mro__ == (KeyedVectors, object)


def test_keyedvectors_reads_and_writes_its_storage_through_one_store():
    kv = KeyedVectors(["a", "b"], np.eye(2), counts=[3, 1])
    store = kv.store
    assert kv.vectors is store.vectors and kv.expandos is store.attributes and kv.counts is store.attributes["count"]
    kv.vectors = np.ones((2, 2))
    kv.index_to_key = ["x", "y"]
    kv.key_to_index = {"x": 0, "y": 1}
    kv.counts = None
    assert kv.store is store
    assert store.vectors.tolist() == [[1, 1], [1, 1]] and store.index_to_key == ["x", "y"]
    assert store.key_to_index == {"x": 0, "y": 1} and "count" not in store.attributes
    kv.add_vectors(["z"], [[2, 0]])
    assert store.index_to_key == ["x", "y", "z"] and kv.get_index("z") == 2


def test_add_rows_keeps_words_index_rows_and_attributes_in_step():
    store = _store(attributes={"count": np.array([5, 4, 3, 2], np.int64)})
    store.fill_norms()
    store.add_rows(["new0", "new1"], np.full((2, 3), 7, np.float32))
    assert store.index_to_key[-2:] == ["new0", "new1"] and store.key_to_index["new1"] == 5
    assert store.vectors.shape == (6, 3) and store.vectors[5].tolist() == [7, 7, 7]
    assert store.attributes["count"].tolist() == [5, 4, 3, 2, 0, 0]
    assert store.norms is None and store.divisors is None       # the vectors changed: the norms are gone


def test_reorder_moves_every_part_together():
    store = _store(attributes={"count": np.array([1, 9, 5, 7], np.int64)})
    rows = store.vectors.copy()
    order = np.array([1, 3, 2, 0])
    store.reorder(order)
    assert store.index_to_key == ["w1", "w3", "w2", "w0"]
    assert np.array_equal(store.vectors, rows[order]) and store.attributes["count"].tolist() == [9, 7, 5, 1]
    assert all(store.key_to_index[w] == i for i, w in enumerate(store.index_to_key))
    assert store.find("w0") == 3


def test_set_rows_copies_a_read_only_matrix(tmp_path):
    path = tmp_path / "v.npy"
    np.save(path, np.ones((3, 2), np.float32))
    mapped = np.load(path, mmap_mode="r")
    store = VectorStore(["a", "b", "c"], mapped)
    assert store.vectors is mapped
    store.set_rows(np.array([1]), np.array([[5, 6]], np.float32))
    assert store.vectors.tolist() == [[1, 1], [5, 6], [1, 1]] and store.vectors.flags.writeable
    assert np.load(path).tolist() == [[1, 1]] * 3


def test_find_scans_for_a_few_words_before_building_the_index():
    store = _store(n=10)
    assert store.find("w7", scans=2) == 7 and store.find("nope", scans=2) == -1
    assert store.find("w7", scans=2) == 7                     # remembered, not scanned again
    assert store.built_key_to_index is None
    assert store.find("w3", scans=2) == 3                     # a third distinct word: the index is built
    assert store.built_key_to_index is not None and len(store.built_key_to_index) == 10


def test_the_index_follows_the_words_only_through_the_stores_methods():
    store = _store(n=3, key_to_index=None, source="vocab.tsv")
    assert store.key_to_index == {"w0": 0, "w1": 1, "w2": 2}
    store.replace_keys(["a", "b", "c"])                      # as gensim: the caller sets the index too
    assert store.key_to_index == {"w0": 0, "w1": 1, "w2": 2}
    store.rebuild_index()
    assert store.key_to_index == {"a": 0, "b": 1, "c": 2}
    store.replace_keys(["a", "b", "a"])
    store.rebuild_index()
    with pytest.raises(FormatError, match="vocab.tsv: duplicate word 'a'"):
        _ = store.key_to_index


def test_normalize_rows_gives_unit_rows_and_their_norms_without_a_pass():
    store = VectorStore(["a", "b"], np.array([[0, 0], [3, 4]], np.float32))
    store.normalize_rows()
    assert store.vectors.tolist() == [[0, 0], [pytest.approx(0.6), pytest.approx(0.8)]]
    assert store.norms.tolist() == [0, 1] and store.divisors.tolist() == [1, 1]
    assert np.array_equal(store.unit_vectors(), store.vectors)


def test_the_store_refuses_what_breaks_one_row_and_one_value_per_word():
    store = _store(n=3)
    with pytest.raises(ParameterError, match="vectors has 2 rows but the vocabulary has 3 words"):
        store.set_vectors(np.ones((2, 3)))
    with pytest.raises(ParameterError, match="one value per word"):
        store.set_attribute("count", np.zeros(2, np.int64))
    with pytest.raises(ParameterError, match="NaN"):
        store.set_vectors(np.full((3, 3), np.nan))
    store.set_vectors(np.full((3, 3), np.nan), check_values=False)      # a loader's checked values
    with pytest.raises(FormatError, match="model_dir: the vector of 'w0'"):
        store.fill_norms(source="model_dir")
