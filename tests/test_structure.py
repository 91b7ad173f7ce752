"""The shape of the code (docs/architecture.md): module and function sizes, no private names across modules.

Import layers and cycles are checked by ``lint-imports`` (``.importlinter``) in CI; these are the
rules it cannot express.
"""
import ast
import io
import tokenize
from pathlib import Path

import pytest

from .conftest import ROOT

SOURCES = sorted([*ROOT.joinpath("w2v").rglob("*.py"), *ROOT.joinpath("cli").rglob("*.py")])
MAX_MODULE_LINES = 600   # lines of code: docstrings, comments and blank lines do not count
MAX_FUNCTION_LINES = 80
# Numba kernels may be longer where blocking (loads, registers, shared memory) needs it; each says so
# in a comment starting with "# blocking:" inside the function.
KERNEL_MODULES = ("w2v/kernels/", "w2v/cuda/kernels.py")
KERNEL_REASON = "# blocking:"


def _rel(path):
    return path.relative_to(ROOT).as_posix()


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "cli":
        parts[0] = "w2v_cli"
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _functions(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def code_lines(text):
    """Lines of ``text`` that hold code: not blank, not only a comment, not inside a docstring."""
    docs = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                    str):
                docs.update(range(first.lineno, first.end_lineno + 1))
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    code = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in skip:
            code.update(r for r in range(tok.start[0], tok.end[0] + 1) if r not in docs)
    return len(code)


def test_code_lines_count_neither_docstrings_nor_comments():
    text = 'def f():\n    """A\n    docstring."""\n    # a comment\n\n    return (1 +\n            2)\n'
    assert code_lines(text) == 3


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_module_is_at_most_600_lines_of_code(path):
    n = code_lines(path.read_text(encoding="utf-8"))
    assert n <= MAX_MODULE_LINES, f"{_rel(path)}: {n} lines of code"


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_functions_are_at_most_80_lines_except_kernels_that_say_why(path):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    long = []
    for fn in _functions(ast.parse(text)):
        n = fn.end_lineno - fn.lineno + 1
        if n <= MAX_FUNCTION_LINES:
            continue
        body = "\n".join(lines[fn.lineno - 1:fn.end_lineno])
        if _rel(path).startswith(KERNEL_MODULES) and KERNEL_REASON in body:
            continue
        long.append(f"{fn.name} ({n} lines)")
    assert not long, f"{_rel(path)}: {', '.join(long)}"


def test_no_module_imports_another_modules_private_names():
    modules = {_module_name(p): p for p in SOURCES}
    found = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target or not target.startswith(("w2v", "w2v_cli")) or target == name:
                continue
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and f"{target}.{alias.name}" not in modules:
                    found.append(f"{_rel(path)} imports {target}.{alias.name}")
    assert not found, found


def test_the_checks_see_every_module():
    names = {_module_name(p) for p in SOURCES}
    assert {"w2v", "w2v.model.word2vec", "w2v.kernels.cpu", "w2v.formats.native", "w2v_cli.train"} <= names


def test_every_numba_function_lives_in_the_kernels_package():
    # w2v.kernels.cache.CACHED_FOLDERS names the one folder whose modules Numba caches; a @njit function
    # elsewhere would compile in every run, or fail where the package cannot be written
    from w2v.kernels.cache import CACHED_FOLDERS

    kernels = ROOT / "w2v" / "kernels"
    assert [Path(f) for f in CACHED_FOLDERS] == [kernels]
    found = []
    for path in SOURCES:
        if path.is_relative_to(kernels):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "numba":
                names = {a.name for a in node.names}
                if names & {"njit", "jit", "vectorize", "guvectorize", "cfunc", "stencil"}:
                    found.append(f"{_rel(path)}:{node.lineno} imports {sorted(names)} from {node.module}")
            if isinstance(node, ast.Attribute) and node.attr == "njit":
                found.append(f"{_rel(path)}:{node.lineno} uses .njit")
    assert not found, found
