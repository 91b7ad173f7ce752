"""The test suite itself: the quick run (``python -m pytest -m "not slow"``, README) covers every test module."""
import ast

import pytest

from .conftest import ROOT

TESTS_DIR = ROOT / "tests"
TESTS = sorted(TESTS_DIR.rglob("test_*.py"))


def _is_slow(decorators):
    return any("slow" in ast.unparse(d) for d in decorators)


def _quick_tests(tree):
    """Test functions and methods not marked slow (nor in a module or class marked slow)."""
    module_slow = any(isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)
                      and "slow" in ast.unparse(node.value) for node in tree.body)
    if module_slow:
        return []
    quick = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and not _is_slow(node.decorator_list):
            quick.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test") and not _is_slow(node.decorator_list):
            quick += [f"{node.name}.{f.name}" for f in node.body if isinstance(f, ast.FunctionDef)
                      and f.name.startswith("test") and not _is_slow(f.decorator_list)]
    return quick


@pytest.mark.parametrize("path", TESTS, ids=lambda p: p.relative_to(TESTS_DIR).as_posix())
def test_every_test_module_has_quick_tests(path):
    assert _quick_tests(ast.parse(path.read_text(encoding="utf-8"))), f"{path.name}: every test is marked slow"


def test_a_module_of_slow_tests_is_found():
    tree = ast.parse("import pytest\n@pytest.mark.slow\ndef test_a():\n    pass\n")
    assert _quick_tests(tree) == []
    tree = ast.parse("import pytest\npytestmark = pytest.mark.slow\ndef test_a():\n    pass\n")
    assert _quick_tests(tree) == []
    assert _quick_tests(ast.parse("def test_a():\n    pass\n")) == ["test_a"]
