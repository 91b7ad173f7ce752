"""The vector commands of the CLI: similar, analogy, eval, convert, info."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from w2v_cli.main import main
from w2v.vectors.keyed import KeyedVectors, load, save_native, save_word2vec_format

from ..conftest import ROOT

WORDS = ["man", "woman", "king", "queen", "boy", "girl", "prince", "princess", "paris", "france",
         "london", "england", "big", "bigger", "small", "smaller"]


def run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_line_error(res, *fragments):
    assert res.exit_code == 1, res.output
    out = res.output.strip()
    assert "Traceback" not in out and len(out.splitlines()) == 1, out
    assert out.startswith("Error:")
    for frag in fragments:
        assert frag in out, out


@pytest.fixture
def model(tmp_path):
    """A tiny model where 'queen' = 'king' - 'man' + 'woman' holds exactly (and similar offsets)."""
    rng = np.random.default_rng(0)
    dim = 12
    pairs = [("man", "woman"), ("king", "queen"), ("boy", "girl"), ("prince", "princess"),
             ("paris", "france"), ("london", "england"), ("big", "bigger"), ("small", "smaller")]
    offsets = {"woman": rng.standard_normal(dim), "france": rng.standard_normal(dim),
               "bigger": rng.standard_normal(dim)}
    offsets.update(queen=offsets["woman"], girl=offsets["woman"], princess=offsets["woman"],
                   england=offsets["france"], smaller=offsets["bigger"])
    vec = {}
    for first, second in pairs:
        vec[first] = rng.standard_normal(dim)
        vec[second] = vec[first] + offsets[second]
    kv = KeyedVectors(WORDS, np.array([vec[w] for w in WORDS], np.float32), counts=np.arange(16, 0, -1),
                      settings={"dim": dim, "model": "sg"})
    path = tmp_path / "m.bin"
    save_word2vec_format(kv, path)
    return kv, path


def test_help_for_every_command():
    for cmd in ("similar", "analogy", "eval", "convert", "info"):
        res = run([cmd, "--help"])
        assert res.exit_code == 0 and "Usage:" in res.output, cmd
    res = run(["--help"])
    for cmd in ("similar", "analogy", "eval", "convert", "info"):
        assert cmd in res.output


def test_similar(model):
    kv, path = model
    res = run(["similar", path, "king", "--topn", "3"])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 3
    expected = kv.most_similar("king", topn=3)
    assert [line.split()[0] for line in lines] == [w for w, _ in expected]
    assert float(lines[0].split()[1]) == pytest.approx(expected[0][1], abs=1e-4)
    res = run(["similar", path, "king", "woman", "--negative", "man", "-n", "1"])
    assert res.exit_code == 0 and res.output.split()[0] == "queen"


def test_restrict_vocab_below_one_is_refused(model):
    # 0 once meant "no limit" in similar/analogy while eval refused it
    # (every command: a usage error, exit 2, as for any value out of its range)
    _, path = model
    for args in (["similar", path, "king"], ["analogy", path, "man", "woman", "king"],
                 ["analogy", path, "man", "woman", "king", "--method", "3cosmul"], ["eval", path]):
        res = run(args + ["--restrict-vocab", "0"])
        assert res.exit_code == 2 and "restrict-vocab" in res.output and "Traceback" not in res.output
        assert run(args + ["--restrict-vocab", "16"]).exit_code == 0


def test_convert_limit_below_one_is_a_usage_error(model, tmp_path):
    _, path = model
    res = run(["convert", path, tmp_path / "out.txt", "--limit", "0"])
    assert res.exit_code == 2 and "--limit" in res.output and not (tmp_path / "out.txt").exists()
    assert run(["convert", path, tmp_path / "out.txt", "--limit", "3"]).exit_code == 0


def test_analogy(model):
    kv, path = model
    for a, b, c, d in [("man", "woman", "king", "queen"), ("paris", "france", "london", "england"),
                       ("big", "bigger", "small", "smaller")]:
        res = run(["analogy", path, a, b, c, "--topn", "2"])
        assert res.exit_code == 0, res.output
        assert res.output.split()[0] == d
        assert len(res.output.strip().splitlines()) == 2
    res = run(["analogy", path, "man", "woman", "king", "--method", "3cosmul", "-n", "3"])
    assert res.exit_code == 0 and res.output.split()[0] == "queen"
    expected = kv.most_similar_cosmul(positive=["woman", "king"], negative=["man"], topn=3)
    lines = [line.split() for line in res.output.strip().splitlines()]
    assert [w for w, _ in lines] == [w for w, _ in expected]
    np.testing.assert_allclose([float(s) for _, s in lines], [s for _, s in expected], atol=1e-4)


def test_restrict_vocab_limits_the_answers_to_the_most_frequent_words(model):
    _, path = model
    res = run(["similar", path, "king", "--restrict-vocab", "4"])
    assert res.exit_code == 0, res.output
    assert sorted(line.split()[0] for line in res.output.strip().splitlines()) == ["man", "queen", "woman"]
    for method in ("3cosadd", "3cosmul"):   # the answer "england" is not among the first 4 words
        res = run(["analogy", path, "paris", "france", "london", "--restrict-vocab", "4", "--method", method])
        assert res.exit_code == 0, res.output
        assert {line.split()[0] for line in res.output.strip().splitlines()} <= {"man", "woman", "king", "queen"}


def test_topn_below_one_is_a_usage_error(model):
    _, path = model
    for args in (["similar", path, "king"], ["analogy", path, "man", "woman", "king"]):
        for n in ("0", "-1"):
            res = run(args + ["--topn", n])
            assert res.exit_code == 2 and "must be at least 1" in res.output and "Traceback" not in res.output
        res = run(args + ["-n", "1"])
        assert res.exit_code == 0 and len(res.output.strip().splitlines()) == 1, res.output


def test_eval_with_files_and_json(model, tmp_path):
    kv, path = model
    q = tmp_path / "q.txt"
    q.write_text(": gender\nman woman king queen\nboy girl prince princess\nman woman zzz yyy\n"
                 ": capital\nparis france london england\n")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("man\twoman\t8\nking\tqueen\t7\nbig\tsmall\t1\nparis\tengland\t2\nzzz\tman\t3\n")
    res = run(["eval", path, "--analogies", q, "--pairs", pairs, "--sections"])
    assert res.exit_code == 0, res.output
    assert "q.txt" in res.output and "pairs.tsv" in res.output and "gender" in res.output
    res = run(["eval", path, "--analogies", q, "--pairs", pairs, "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    score, sections = kv.evaluate_word_analogies(q)
    (r, _), (rho, _), oov = kv.evaluate_word_pairs(pairs)
    a = report["analogies"][0]
    # the fixture's offsets make every answered question right: the score is known independently
    assert a["accuracy"] == score == 1.0 and a["oov"] == 1 and a["answered"] == 3
    p = report["pairs"][0]
    assert p["pearson"] == r and p["spearman"] == rho and p["oov_percent"] == oov


def test_eval_counts_wrong_answers_per_section(model, tmp_path):
    # the fixture answers every question right but one whose expected word is not the answer
    _, path = model
    q = tmp_path / "q.txt"
    q.write_text(": gender\nman woman king queen\nman woman king paris\nman woman zzz yyy\n"
                 ": capital\nparis france london england\n")
    res = run(["eval", path, "--analogies", q, "--json"])
    assert res.exit_code == 0, res.output
    a = json.loads(res.output)["analogies"][0]
    assert (a["correct"], a["answered"], a["oov"]) == (2, 3, 1) and a["accuracy"] == pytest.approx(2 / 3)
    assert a["sections"] == [{"section": "gender", "correct": 1, "answered": 2, "oov": 1},
                             {"section": "capital", "correct": 1, "answered": 1, "oov": 0}]
    res = run(["eval", path, "--analogies", q, "--sections"])
    assert res.exit_code == 0, res.output
    rows = [line.split() for line in res.output.splitlines()]
    assert ["q.txt", "66.67%", "2", "3", "1"] in rows
    assert ["gender", "50.00%", "1", "2", "1"] in rows and ["capital", "100.00%", "1", "1", "0"] in rows
    # --restrict-vocab 4: only man, woman, king, queen count; the other questions are out of vocabulary
    res = run(["eval", path, "--analogies", q, "--restrict-vocab", "4", "--json"])
    a = json.loads(res.output)["analogies"][0]
    assert (a["correct"], a["answered"], a["oov"]) == (1, 1, 3)


def test_eval_case_sensitive(model, tmp_path):
    # by default words are upper-cased before matching (gensim's case_insensitive=True)
    _, path = model
    q = tmp_path / "q.txt"
    q.write_text(": gender\nMAN WOMAN KING QUEEN\n")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("MAN\tWOMAN\t8\nking\tqueen\t7\nbig\tsmall\t1\nparis\tengland\t2\n")
    report = json.loads(run(["eval", path, "--analogies", q, "--pairs", pairs, "--json"]).output)
    assert (report["analogies"][0]["correct"], report["analogies"][0]["oov"]) == (1, 0)
    assert report["pairs"][0]["oov_percent"] == 0.0
    res = run(["eval", path, "--analogies", q, "--pairs", pairs, "--json", "--case-sensitive"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert (report["analogies"][0]["answered"], report["analogies"][0]["oov"]) == (0, 1)
    assert report["pairs"][0]["oov_percent"] == 25.0


def test_eval_defaults_to_bundled_sets(model):
    _, path = model
    res = run(["eval", path, "--restrict-vocab", "100"])
    assert res.exit_code == 0, res.output
    for name in ("questions-words.txt", "wordsim353.tsv", "simlex999.txt"):
        assert name in res.output


@pytest.mark.parametrize("to,name", [("bin", "out.bin"), ("text", "out.txt"), ("native", "out_model"),
                                     ("text", "out.txt.gz"), (None, "out.vec"), ("text", "out.bin"),
                                     ("bin", "out.txt"), ("native", "out.vec"), (None, "out.bin.xz")])
def test_convert_and_info(model, tmp_path, to, name):
    kv, path = model
    out = tmp_path / name
    args = ["convert", path, out] + (["--to", to] if to else [])
    res = run(args)
    assert res.exit_code == 0, res.output
    back = load(out)
    assert back.index_to_key == kv.index_to_key and np.array_equal(back.vectors, kv.vectors)
    res = run(["info", out])
    assert res.exit_code == 0, res.output
    assert "16 words" in res.output and "dimensions:  12" in res.output
    default = "word2vec-binary" if ".bin" in name else "word2vec-text"
    expected_format = {"bin": "word2vec-binary", "text": "word2vec-text", "native": "native", None: default}[to]
    compression = {".gz": " (gzip-compressed)", ".xz": " (xz-compressed)"}.get(out.suffix, "")
    assert f"format:      {expected_format}{compression}\n" in res.output, res.output


def test_written_files_get_the_mode_open_would_give(model, tmp_path):
    # an atomic write goes through a temporary file (mode 0600): the result gets 0666 less the umask
    import os
    import stat

    _, path = model
    old = os.umask(0o027)
    try:
        res = run(["convert", path, tmp_path / "out.txt"])
    finally:
        os.umask(old)
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(os.stat(tmp_path / "out.txt").st_mode) == 0o640


def test_info_shows_settings(model, tmp_path):
    kv, _ = model
    save_native(kv, tmp_path / "nat")
    res = run(["info", tmp_path / "nat"])
    assert res.exit_code == 0 and '"sg"' in res.output and "counts:      yes" in res.output
    res = run(["convert", tmp_path / "nat", tmp_path / "small.bin", "--limit", "4"])
    assert res.exit_code == 0 and len(load(tmp_path / "small.bin")) == 4


def test_one_line_errors(model, tmp_path):
    _, path = model
    assert_one_line_error(run(["similar", path, "nosuchword"]), "nosuchword")
    assert_one_line_error(run(["analogy", path, "man", "woman", "nosuchword"]), "nosuchword")
    assert_one_line_error(run(["similar", tmp_path / "missing.bin", "king"]), "missing.bin")
    assert_one_line_error(run(["info", tmp_path / "missing.bin"]), "missing.bin")
    corrupt = tmp_path / "corrupt.bin"
    corrupt.write_bytes(path.read_bytes()[:-30])
    assert_one_line_error(run(["similar", corrupt, "king"]), "corrupt.bin", "end of file")
    assert_one_line_error(run(["convert", corrupt, tmp_path / "x.bin"]), "corrupt.bin")
    half = tmp_path / "half.bin"
    half.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert_one_line_error(run(["info", half]), "half.bin", "truncated")
    garbage = tmp_path / "garbage.txt"
    garbage.write_bytes(b"\x00\x01binary junk\nmore")
    assert_one_line_error(run(["info", garbage]), "garbage.txt")
    assert_one_line_error(run(["eval", path, "--analogies", tmp_path / "nope.txt"]), "nope.txt")
    assert_one_line_error(run(["eval", path, "--pairs", tmp_path / "nope.tsv"]), "nope.tsv: no such file or directory")
    assert_one_line_error(run(["convert", path, tmp_path / "no" / "dir" / "x.bin"]), "x.bin")
    notmodel = tmp_path / "dir"
    notmodel.mkdir()
    (notmodel / "keep.txt").write_text("x")
    assert_one_line_error(run(["convert", path, notmodel, "--to", "native"]), "refusing")
    res = run(["convert", path, tmp_path / "y", "--to", "hdf5"])
    assert res.exit_code == 2 and "Traceback" not in res.output  # click usage error


def test_eval_json_writes_null_for_an_undefined_correlation(model, tmp_path):
    _, path = model
    pairs = tmp_path / "flat.tsv"
    pairs.write_text("man\twoman\t5\nking\tqueen\t5\nbig\tsmall\t5\n")   # constant scores: no correlation

    def no_constants(name):
        raise AssertionError(f"bare {name} is not JSON")

    res = run(["eval", path, "--pairs", pairs, "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output, parse_constant=no_constants)   # strict: NaN/Infinity refused
    p = report["pairs"][0]
    assert p["pearson"] is None and p["spearman"] is None and p["pearson_p"] is None
    assert p["oov_percent"] == 0.0
    text = run(["eval", path, "--pairs", pairs])
    assert text.exit_code == 0 and "nan" in text.output                 # the table still shows nan


def test_similar_with_a_zero_vector(tmp_path):
    path = tmp_path / "z.txt"
    path.write_text("3 3\na 0 0 0\nb 1 2 3\nc 3 2 1\n")
    res = run(["similar", path, "b"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == ["c  0.7143", "a  0.0000"]       # no nan, no warning
    assert_one_line_error(run(["similar", path, "a"]), "'a' has a zero vector: no direction to compare")
    assert_one_line_error(run(["analogy", path, "a", "a", "a", "--method", "3cosmul"]), "zero vector")


def test_similar_on_a_huge_value(tmp_path):
    # one value 3e38 (a valid float32): its square overflowed float32 and the query "cancelled out";
    # a norm beyond half the float32 range is refused, a smaller one scores right
    path = tmp_path / "huge.txt"
    path.write_text("4 3\nthe 3e38 0.1 0.2\nb 1 2 3\nc 3 2 1\nd 1 1 1\n")
    assert_one_line_error(run(["similar", path, "the"]), f"{path}: the vector of 'the' (row 0)")
    path.write_text("4 3\nthe 1e38 0.1 0.2\nb 1 2 3\nc 3 2 1\nd 1 1 1\n")
    res = run(["similar", path, "the"])
    assert res.exit_code == 0, res.output
    assert "warning" not in res.output and "cancel" not in res.output
    lines = [line.split() for line in res.output.strip().splitlines()]
    vecs = np.array([[1e38, .1, .2], [1, 2, 3], [3, 2, 1], [1, 1, 1]], np.float32).astype(np.float64)
    cos = vecs @ vecs[0] / (np.linalg.norm(vecs, axis=1) * np.linalg.norm(vecs[0]))   # float64: no overflow
    assert [w for w, _ in lines] == ["c", "d", "b"]
    np.testing.assert_allclose([float(s) for _, s in lines], cos[[2, 3, 1]], atol=1e-4)


def _cut_utf8_file(tmp_path):
    """A word2vec.c-style binary file whose long word was cut inside a multi-byte character
    (as word2vec.c's 100-byte limit on words can)."""
    cut = ("日本語" * 12).encode("utf-8")[:97] + "語".encode("utf-8")[-1:]
    vecs = np.arange(9, dtype=np.float32).reshape(3, 3) + 1
    out = b"3 3\n"
    for w, v in zip([b"</s>", cut, b"the"], vecs):
        out += w + b" " + v.astype("<f4").tobytes() + b"\n"
    path = tmp_path / "cut.bin"
    path.write_bytes(out)
    return path


def test_unicode_errors_option_loads_cut_words(tmp_path):
    path = _cut_utf8_file(tmp_path)
    res = run(["similar", path, "the"])
    # the error names the way out, and the CLI has it
    assert_one_line_error(res, "not valid UTF-8", "--unicode-errors replace")
    res = run(["similar", path, "the", "--unicode-errors", "replace"])
    assert res.exit_code == 0, res.output
    assert "\ufffd" in res.output
    out = tmp_path / "out.txt"
    res = run(["convert", path, out, "--unicode-errors", "ignore"])
    assert res.exit_code == 0, res.output
    assert load(out).index_to_key[1] == ("日本語" * 12).encode("utf-8")[:96].decode("utf-8")
    res = run(["analogy", path, "</s>", "the", "</s>", "--unicode-errors", "replace"])
    assert res.exit_code == 0, res.output
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("the\t</s>\t1\nthe\tthe\t2\n</s>\t</s>\t3\n", encoding="utf-8")
    res = run(["eval", path, "--pairs", pairs, "--unicode-errors", "replace"])
    assert res.exit_code == 0, res.output


def test_closed_stdout_pipe_stops_quietly(model):
    """``w2v similar ... | head -1``: the reader went away, which is not an error to report."""
    import subprocess
    import sys
    root = ROOT
    cmd = [sys.executable, "-c", "from w2v_cli.main import main; main()",
           "similar", str(model[1]), "king", "--topn", "15"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root)
    proc.stdout.close()                       # closed before the command prints anything
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert err == "", err                     # was "Error: [Errno 32] Broken pipe"


@pytest.mark.parametrize("name", ["q.txt.gz", "q.txt.bz2", "q.txt.xz"])
def test_eval_names_a_corrupt_compressed_file(model, tmp_path, name):
    # a corrupt .gz or .bz2 set printed gzip's "Not a gzipped file" or bz2's "Invalid data stream"
    # alone, without the file's name (a corrupt .xz one named it)
    _, path = model
    bad = tmp_path / name
    # the format's magic bytes, then garbage: compression is recognised from the first bytes
    magic = {"gz": b"\x1f\x8b", "bz2": b"BZh", "xz": b"\xfd7zXZ\x00"}[name.rsplit(".", 1)[1]]
    bad.write_bytes(magic + b"not compressed at all")
    for option in ("--analogies", "--pairs"):
        assert_one_line_error(run(["eval", path, option, bad]), name, "cannot read")
