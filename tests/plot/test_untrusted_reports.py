"""Training reports (``--report-json``) are untrusted: ``w2v plot-run`` and ``w2v.plot.training`` check every
field they read, and the command reads the file through the guarded JSON reader."""
import json

import pytest
from click.testing import CliRunner

import w2v.plot.curves
from w2v.errors import ParameterError
from w2v_cli.main import main

COLUMNS = ["segment", "seconds", "fraction", "epoch", "words_per_sec", "learning_rate", "loss"]


def report(**changes):
    ticks = [[0, 0.5 * k, k / 10, 1 + (k > 5), 1e6, 0.025 * (1 - k / 10), 3.0 - 0.1 * k] for k in range(1, 11)]
    base = {"progress": {"columns": list(COLUMNS), "ticks": ticks}, "settings": {"epochs": 2, "dim": 8},
            "corpus": ["c.txt"], "train_seconds": 5.0, "words_per_sec": 1e6}
    base.update(changes)
    return base


def bad_tick(value, column="seconds", row=3):
    r = report()
    r["progress"]["ticks"][row][COLUMNS.index(column)] = value
    return r


CASES = {
    "settings-a-number": (report(settings=1.0), "settings are not an object"),
    "settings-a-list": (report(settings=[1]), "settings are not an object"),
    "epochs-a-string": (report(settings={"epochs": "2"}), "epochs are 2, not an integer"),
    "epochs-huge": (report(settings={"epochs": 10 ** 30}), "not an integer from 1 to 10,000"),
    "dim-a-dict": (report(settings={"epochs": 2, "dim": {"a": 1}}), "dim is"),
    "dict-in-ticks": (bad_tick({"a": 1}), "row 4: seconds is"),
    "string-in-ticks": (bad_tick("1"), "row 4: seconds is 1, not a finite number"),
    "bool-in-ticks": (bad_tick(True), "not a finite number"),
    "null-epoch": (bad_tick(None, "epoch"), "row 4: epoch is None"),
    "huge-int-in-ticks": (bad_tick(10 ** 400), "not a finite number"),
    "row-a-dict": (report(progress={"columns": COLUMNS, "ticks": [{"a": 1}]}), "rows do not have 7 fields"),
    "dict-in-columns": (report(progress={"columns": [{"a": 1}] + COLUMNS[1:], "ticks": [[0] * 7]}),
                        "columns are not distinct names"),
    "column-missing": (report(progress={"columns": COLUMNS[:-1], "ticks": [[0] * 6]}), "lacks the column 'loss'"),
    "ticks-a-dict": (report(progress={"columns": COLUMNS, "ticks": {"a": 1}}), "not a list"),
    "corpus-a-number": (report(corpus=3), "corpus is not a list of paths"),
    "train-seconds-a-list": (report(train_seconds=[1]), "train_seconds is"),
    "rounds-a-number": (report(rounds=5), "rounds are neither a list of rounds nor a table"),
    "rounds-list-of-numbers": (report(rounds=[1, 2]), "rounds are neither a list of rounds nor a table"),
    "round-without-wall-seconds": (report(rounds=[{"merge_seconds": [0.1]}]), "need finite wall_seconds"),
    "round-merge-seconds-a-dict": (report(rounds=[{"wall_seconds": 1.0, "merge_seconds": {"a": 1}}]),
                                   "need finite wall_seconds and a list of merge_seconds"),
    "rounds-dict-in-rows": (report(rounds={"columns": ["rounds", "seconds", "merge_seconds"], "rows": [[{}, 1, 1]]}),
                            "rounds row 1: rounds is"),
    "too-many-segments": (report(progress={"columns": COLUMNS, "ticks": [[s, 1, 0.5, 1, 1, 1, 1]
                                                                         for s in range(1001)]}),
                          "more than 1,000 segments"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_mistyped_report_is_a_parameter_error_naming_the_field(case):
    bad, message = CASES[case]
    with pytest.raises(ParameterError, match=message):
        w2v.plot.curves.run_series(bad)


def test_a_report_that_is_not_an_object_is_a_parameter_error():
    with pytest.raises(ParameterError):
        w2v.plot.curves.run_series([1, 2])


def test_the_checked_report_still_gives_the_curves():
    series = w2v.plot.curves.run_series(report())
    assert series["time"].tolist() == [0.5 * k for k in range(1, 11)] and len(series["epoch_ends"]) == 1
    two = report()
    two["progress"]["ticks"] += [[1, 0.5 * k, 0.5 + k / 20, 2, 1e6, 0.01, 2.0] for k in range(1, 5)]
    series = w2v.plot.curves.run_series(two)
    assert series["resumes"] == [5.0] and series["time"][-1] == 7.0


@pytest.fixture
def plot_run(tmp_path):
    pytest.importorskip("matplotlib", reason="pictures need matplotlib: pip install 'w2v[plot]'")

    def run(text):
        (tmp_path / "r.json").write_text(text)
        return CliRunner().invoke(main, ["plot-run", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.png")])
    return run


@pytest.mark.parametrize("case", ["settings-a-number", "dict-in-ticks", "dict-in-columns", "epochs-huge"])
def test_plot_run_prints_one_line_for_a_mistyped_report(plot_run, tmp_path, case):
    bad, message = CASES[case]
    res = plot_run(json.dumps(bad))
    assert res.exit_code == 1 and res.output.startswith(f"Error: {tmp_path / 'r.json'}: ")
    assert message.split(":")[0] in res.output and res.output.count("\n") == 1, res.output
    assert not (tmp_path / "r.png").exists()


def test_plot_run_prints_one_line_for_a_deeply_nested_report(plot_run, tmp_path):
    res = plot_run('{"settings": ' + "[" * 5000 + "]" * 5000 + "}")
    assert res.exit_code == 1 and res.output == (
        f"Error: {tmp_path / 'r.json'}: JSON nested 5001 levels deep, more than the 100 allowed\n")


def test_plot_run_draws_a_good_report(plot_run, tmp_path):
    res = plot_run(json.dumps(report()))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
