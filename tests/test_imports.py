"""Imports: one inside a function says why, and ``import w2v`` and the CLI start without the heavy packages.

An import inside a function needs a reason (docs/architecture.md, "Imports inside functions"): a measured
start-up cost, an optional extra, or an import cycle that cannot be cut otherwise; the reason is a comment on
the import or on the line just above it.  Every other import belongs at the top of its module.
"""
import ast
import io
import re
import subprocess
import sys
import tokenize
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.joinpath("w2v").rglob("*.py"), *ROOT.joinpath("cli").rglob("*.py")])

#: imports inside functions that do not say why yet, as "path: line text" (a line found twice in a file is
#: listed twice); each is to be moved to the top of its module or given its reason, and then removed here
NOT_YET_EXPLAINED = [
    "w2v/distributed/cluster.py: import distributed",
    "w2v/distributed/cluster.py: from distributed.deploy.spec import SpecCluster",
    "w2v/distributed/cluster.py: import signal",
    "w2v/distributed/cluster.py: from distributed import wait",
    "w2v/distributed/cluster.py: from concurrent.futures import CancelledError",
    "w2v/distributed/cluster.py: from concurrent.futures import CancelledError",
    "w2v/distributed/cluster.py: from distributed.comm.core import CommClosedError",
    "w2v/distributed/plan.py: from ..text.shards import DEFAULT_SHARD_BYTES, plan_shards",
    "w2v/distributed/train.py: from ..training.kernelcalls import check_kernel_inputs, kernel_params",
    "w2v/distributed/vocabulary.py: from ..text.shards import DEFAULT_SHARD_BYTES, plan_shards",
    "w2v/distributed/worker.py: from ..kernels.cpu import train_tokens",
    "w2v/distributed/worker.py: from ..training.lifecycle import seed_states",
    "w2v/distributed/worker.py: from ..training.kernelcalls import kernel_args",
    "w2v/distributed/worker.py: from ..training.kernelcalls import start_kernel_load",
    "w2v/distributed/worker.py: from ..text.shards import scan_shard",
    "w2v/distributed/worker.py: from ..text.shards import merge_counts",
    "w2v/distributed/worker.py: from ..text.vocab import build_vocab",
    "w2v/distributed/worker.py: from ..text.shards import encode_ids",
]

#: what ``import w2v`` and the CLI must start without
HEAVY = ("numba", "dask", "distributed", "matplotlib")

#: comments that are only directions to a tool, and say nothing to a reader
_TOOL_DIRECTIVE = re.compile(r"noqa(:\s*[A-Z]+[0-9]+(\s*,\s*[A-Z]+[0-9]+)*)?|pragma:\s*no\s+cover|type:\s*ignore\S*",
                             re.IGNORECASE)


def _rel(path):
    return path.relative_to(ROOT).as_posix()


def _comment_lines(text):
    """Line number -> the text of the comments on that line that say something (not only ``# noqa``)."""
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            words = _TOOL_DIRECTIVE.sub("", tok.string.lstrip("#")).strip(" -:()")
            if words:
                found[tok.start[0]] = words
    return found


def function_imports(text):
    """``(line number, line text, says why)`` of each import statement inside a function of ``text``.

    It says why when a comment that is not only a tool's direction (``# noqa: F401``) stands on one of its
    lines, or on a line of its own just above it.
    """
    lines = text.splitlines()
    comments = _comment_lines(text)
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                above = child.lineno - 1
                own_line = above >= 1 and lines[above - 1].lstrip().startswith("#") and above in comments
                says_why = own_line or any(n in comments for n in range(child.lineno, child.end_lineno + 1))
                found.append((child.lineno, lines[child.lineno - 1].strip(), says_why))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(text), False)
    return found


def unexplained_imports():
    """Each import inside a function that does not say why, as ``"path: line text"`` (the comment cut off)."""
    out = []
    for path in SOURCES:
        for _, line, says_why in function_imports(path.read_text(encoding="utf-8")):
            if not says_why:
                out.append(f"{_rel(path)}: {line.split('#')[0].strip()}")
    return out


def test_the_scan_finds_imports_in_functions_and_their_reasons():
    text = ("import os\n"
            "def f():\n"
            "    import json\n"
            "    import re   # start-up: a reason on its line\n"
            "    # optional extra: a reason on the line above\n"
            "    from x import (a,\n"
            "                   b)   # a reason on its last line\n"
            "    from y import c  # noqa: F401\n"
            "    x = 1   # a comment on a line of code above\n"
            "    from z import d\n"
            "    class C:\n"
            "        def g(self):\n"
            "            return lambda: __import__('q')\n"
            "    if x:\n"
            "        from w import e\n"
            "class D:\n"
            "    import typing\n"
            "    def h(self):\n"
            "        from v import k  # noqa: F401  (optional extra: v)\n")
    assert function_imports(text) == [(3, "import json", False),
                                      (4, "import re   # start-up: a reason on its line", True),
                                      (6, "from x import (a,", True),
                                      (8, "from y import c  # noqa: F401", False),
                                      (10, "from z import d", False),
                                      (15, "from w import e", False),
                                      (19, "from v import k  # noqa: F401  (optional extra: v)", True)]


def test_every_import_inside_a_function_says_why():
    found = unexplained_imports()
    unexpected = sorted((Counter(found) - Counter(NOT_YET_EXPLAINED)).elements())
    assert not unexpected, ("imports inside functions without a reason (move them to the top of the module, or "
                            "say why in a comment on the line or just above it):\n" + "\n".join(unexpected))


def test_the_list_of_imports_not_yet_explained_holds_only_imports_still_there():
    gone = sorted((Counter(NOT_YET_EXPLAINED) - Counter(unexplained_imports())).elements())
    assert not gone, "explained or moved now: remove them from NOT_YET_EXPLAINED:\n" + "\n".join(gone)


def _modules_after(code):
    """The names in ``sys.modules`` of a new interpreter after it runs ``code``."""
    script = code + "\nimport sys\nprint('--- sys.modules ---', *sorted(sys.modules), sep='\\n')\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split("--- sys.modules ---\n")[-1].split())


def _heavy(modules):
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_import_w2v_loads_no_heavy_package():
    modules = _modules_after("import w2v")
    assert "w2v" in modules and not _heavy(modules)


def test_the_cli_and_every_help_page_load_no_heavy_package():
    code = ("from w2v_cli.main import main\n"
            "for command in [[]] + [[name] for name in sorted(main.commands)]:\n"
            "    try:\n"
            "        main(command + ['--help'])\n"
            "    except SystemExit as exc:\n"
            "        assert exc.code == 0, (command, exc.code)\n")
    modules = _modules_after(code)
    assert {"w2v_cli.main", "w2v_cli.train", "w2v_cli.vectors"} <= modules and not _heavy(modules)


def test_a_heavy_package_is_seen_when_loaded():
    assert "numba" in _heavy(_modules_after("import w2v.kernels.cpu"))
