"""A full model or checkpoint is untrusted input: what its files say is checked before it is used.

The recorded corpus never makes ``--resume`` read a file the user did not name; every field of the
run state is checked (types, ranges, against one another and against the corpus) in one place, for
``Word2Vec.load``, ``w2v train --resume`` and ``w2v info`` alike (docs/reliability.md, "Model files
are untrusted input").
"""
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from w2v import Word2Vec
from w2v.errors import FormatError, ParameterError
from w2v_cli.main import main

from ..conftest import ROOT
from ..support.model_files import copy_model, edit_header, put_member, stopped_within_epoch, write_corpus

SECRET = "root nologin sbin\n" * 50


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A corpus, a Hogwild checkpoint within an epoch (a folder and one file) and a deterministic one."""
    folder = tmp_path_factory.mktemp("made")
    corpus = write_corpus(folder / "corpus.txt")
    return {"corpus": corpus, "folder": stopped_within_epoch(corpus, folder / "ck"),
            "file": stopped_within_epoch(corpus, folder / "ck.w2v"),
            "lanes": stopped_within_epoch(corpus, folder / "lanes", deterministic=True, lanes=2)}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(res, *parts):
    lines = res.output.strip().splitlines()
    assert res.exit_code == 1 and len(lines) == 1 and "Traceback" not in res.output, res.output
    assert all(p in lines[0] for p in parts), lines[0]
    return lines[0]


def usage_error(res, *parts):
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert all(p in lines[-1] for p in parts), lines[-1]


def test_a_checkpoint_cannot_make_resume_read_a_file_the_user_did_not_name(made, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "w1 w2 w3 w4\n" * 50, encoding="utf-8")
    ck = copy_model(made["folder"], tmp_path / "ck")
    edit_header(ck, lambda h: h["training"].update(corpus_files=[str(secret)]))
    out = tmp_path / "out.txt"
    # the case: its words would reach the output (a new run on the file, its words added)
    res = run("train", "--resume", ck, "--update-vocab", "--min-count", "1", "--text", "-o", out, "-q")
    usage_error(res, "--update-vocab", "pass CORPUS")
    res = run("train", "--resume", ck, "--text", "-o", out, "-q")
    one_line_error(res, str(secret), "is not the file the run read", "pass the corpus")
    assert not out.exists()
    # a model that records no sizes and times (an older w2v's) names its corpus, and is refused too
    edit_header(ck, lambda h: h["training"].pop("corpus_file_stamps"))
    one_line_error(run("train", "--resume", ck, "-o", out, "-q"), str(secret), "not the size and time")
    # the exact size and time of another file: read, but its words are not the run's: refused before training
    st = secret.stat()
    edit_header(ck, lambda h: h["training"].update(corpus_file_stamps=[[st.st_size, st.st_mtime_ns]]))
    one_line_error(run("train", "--resume", ck, "-o", out, "-q"), "holds other words", "pass the corpus")
    assert not out.exists()
    # the checkpoint as it was resumes on the corpus it records
    res = run("train", "--resume", made["folder"], "-o", out, "-q")
    assert res.exit_code == 0 and out.exists(), res.output


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder", "link-to-fifo"])
def test_a_recorded_corpus_that_is_not_a_regular_file_is_refused_without_blocking(made, tmp_path, kind):
    ck = copy_model(made["folder"], tmp_path / "ck")
    special = tmp_path / "special"
    if kind in ("fifo", "link-to-fifo"):
        os.mkfifo(tmp_path / "fifo")
        special = tmp_path / "fifo" if kind == "fifo" else special
        if kind == "link-to-fifo":
            special.symlink_to(tmp_path / "fifo")
    elif kind == "dev-zero":
        special = "/dev/zero"
    else:
        special.mkdir()
    edit_header(ck, lambda h: h["training"].update(corpus_files=[str(special)]))
    # a child process: a read of the pipe would block it (the deadline is a bound against a hang)
    proc = subprocess.run([sys.executable, "-c", "from w2v_cli.main import main; main()", "train", "--resume",
                           str(ck), "-o", str(tmp_path / "v.bin"), "-q"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert str(special) in lines[0] and "not a regular file" in lines[0], lines[0]


@pytest.mark.parametrize("form", ["folder", "lanes"])
def test_a_position_past_the_end_of_the_corpus_is_refused_in_either_mode(made, tmp_path, form):
    ck = copy_model(made[form], tmp_path / "ck")
    edit_header(ck, lambda h: h["training"].update(position=10**9))
    with pytest.raises(FormatError, match=r"ck/model.json: training.position must be an integer in 1\.\."):
        Word2Vec.load(str(ck))
    extra = ["--deterministic"] if form == "lanes" else ["--threads", "1"]
    one_line_error(run("train", made["corpus"], "--resume", ck, "-o", tmp_path / "v.bin", "-q", *extra),
                   "model.json", "training.position")
    assert not (tmp_path / "v.bin").exists()
    length = Word2Vec.load(str(made[form])).run_state["corpus_length"]
    edit_header(ck, lambda h: h["training"].update(position=length))   # the end: no id of the epoch left
    with pytest.raises(FormatError, match="training.position"):
        Word2Vec.load(str(ck))
    # a run state set by hand is checked against the corpus the run trains on (a sharded run's is the same
    # corpus by its count of words, whatever its length)
    m = Word2Vec.load(str(made[form]))
    m.run_state = dict(m.run_state, sharded=True, position=length * 5)
    with pytest.raises(ParameterError, match="outside this corpus"):
        m.train(str(made["corpus"]))


#: (field, value): the issue's huge numbers, and mistyped values
BAD_FIELDS = [("epoch_stats", [2**64, 0, 0, 0]), ("position", 2**63), ("position", 3.0), ("epochs_done", True),
              ("epoch_stats", [1, 2, "3", 4]), ("epoch_stats", [[1], 0, 0, 0]),
              ("epoch_stats", [float("inf"), 0, 0, 0]), ("epoch_stats", [0, 0, 10, 5]), ("corpus_length", 10**30),
              ("epochs", 2**64), ("progress", [[None, 0.1, 0.5, 1, 10.0, 0.01, 3.0]]),
              ("progress", [[0, 0.1, 0.5, 1, 10.0, 0.01, 1e999]]),
              ("corpus_fingerprint", {"ids": 2**70, "words": 1, "hash": "0" * 32}), ("corpus_files", ["a\0b"]),
              ("corpus_file_stamps", [[2**64, 0]]), ("output", {"path": "", "format": "bin"})]


@pytest.mark.parametrize("field, value", BAD_FIELDS, ids=[f"{f}={str(v)[:20]}" for f, v in BAD_FIELDS])
@pytest.mark.parametrize("form", ["folder", "file"])
def test_huge_or_mistyped_numbers_in_a_run_state_are_format_errors_naming_the_field(made, tmp_path, form, field,
                                                                                      value):
    ck = copy_model(made[form], tmp_path / ("ck" if form == "folder" else "ck.w2v"))
    edit_header(ck, lambda h: h["training"].update({field: value}))
    with pytest.raises(FormatError, match=f"model.json.*training.{field}"):
        Word2Vec.load(str(ck))
    one_line_error(run("train", made["corpus"], "--resume", ck, "-o", tmp_path / "v.bin", "-q"), f"training.{field}")
    one_line_error(run("info", ck), "model.json", f"training.{field}")


def linked_out(ck, target):
    os.remove(ck / "model.json")
    (ck / "model.json").symlink_to(target)


#: what model.json holds, or how it is replaced, for w2v info
INFO_CASES = {
    "training-5": lambda ck: edit_header(ck, lambda h: h.update(training=5)),
    "training-list": lambda ck: edit_header(ck, lambda h: h.update(training=[1, 2])),
    "epochs-float": lambda ck: edit_header(ck, lambda h: h["training"].update(epochs=2.0)),
    "settings-5": lambda ck: edit_header(ck, lambda h: h.update(settings=5)),
    "alpha-10e400": lambda ck: edit_header(ck, lambda h: h["settings"].update(alpha=10**400)),
    "nested": lambda ck: put_member(ck, "model.json", b"[" * 5000 + b"]" * 5000),
    "not-json": lambda ck: put_member(ck, "model.json", b"root:x:0:0:root:/root:/bin/bash\n"),
    "header-list": lambda ck: put_member(ck, "model.json", b"[1, 2]"),
}
LINK_CASES = ("link-to-json", "link-to-text")


@pytest.mark.parametrize("form, case", [(form, case) for form in ("folder", "file") for case in INFO_CASES]
                         + [("folder", case) for case in LINK_CASES])   # a member of one file is no link
def test_info_reads_a_full_models_header_as_load_does(made, tmp_path, form, case):
    ck = copy_model(made[form], tmp_path / ("ck" if form == "folder" else "ck.w2v"))
    if case == "link-to-json":   # another model's header, outside the folder: its values are never shown
        other = tmp_path / "other.json"
        other.write_text(json.dumps({"format": "w2v-model", "version": 1, "secret": "s3cr3t"}), encoding="utf-8")
        linked_out(ck, other)
    elif case == "link-to-text":
        other = tmp_path / "passwd"
        other.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
        linked_out(ck, other)
    else:
        INFO_CASES[case](ck)
    with pytest.raises(FormatError):
        Word2Vec.load(str(ck))
    res = run("info", ck)
    one_line_error(res, "Error: ", "model.json")
    assert "s3cr3t" not in res.output and "root:x" not in res.output
