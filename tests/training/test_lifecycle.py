"""The run lifecycle shared by the devices: RunResult, merged spans, continued random states."""
import math

import numpy as np

from w2v.training.lifecycle import RunResult, continued_states, merge_results, run_totals, seed_states


def test_run_totals_and_merged_spans():
    per_epoch = np.array([[6.0, 3, 10, 12], [0.0, 0, 1, 2]])
    totals = run_totals(per_epoch, 1.5)
    assert totals["epoch_loss"][0] == 2.0 and math.isnan(totals["epoch_loss"][1])
    assert (totals["examples"], totals["kept"], totals["words"], totals["seconds"]) == (3, 11, 14, 1.5)
    spans = [RunResult(**run_totals(per_epoch[:1], 1.0), kernel_load_seconds=0.25),
             RunResult(**run_totals(per_epoch[1:], 0.5), kernel_load_seconds=0.5)]
    merged = merge_results(spans, 2)
    assert merged.epoch_loss[0] == 2.0 and math.isnan(merged.epoch_loss[1])
    assert (merged.examples, merged.kept, merged.words, merged.seconds) == (3, 11, 14, 1.5)
    assert (merged.first_epoch, merged.kernel_load_seconds, merged.device) == (2, 0.75, "cpu")
    empty = merge_results([], 3)
    assert empty.epoch_loss == [] and empty.seconds == 0 and empty.first_epoch == 3


def test_continued_states():
    assert np.array_equal(continued_states(None, 3, 7), seed_states(7, 3))
    saved = seed_states(5, 2)
    assert continued_states(saved, 2, 7) is saved                 # advanced in place by the kernels
    other = continued_states(saved, 4, 7)
    assert other.shape == (4, 1) and other.dtype == np.uint64
    assert np.array_equal(other, seed_states(int(np.bitwise_xor.reduce(saved.ravel())), 4))
    assert not np.array_equal(other, seed_states(7, 4))
