"""The test suite itself: the quick run (``python -m pytest -m "not slow"``, README) covers every test module,
and the folders of ``tests/`` mirror the packages of ``w2v/`` (docs/architecture.md).
"""
import ast

import pytest

from .conftest import ROOT

TESTS_DIR = ROOT / "tests"
TESTS = sorted(TESTS_DIR.rglob("test_*.py"))
#: folders of ``tests/`` that mirror no package of ``w2v/``: the CLI's tests and the helpers the tests share
OTHER_FOLDERS = ("cli", "support")


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


def packages_of(source):
    """The names of the packages directly under the folder ``source`` (its folders holding an ``__init__.py``)."""
    return sorted(init.parent.name for init in source.glob("*/__init__.py"))


def layout_problems(tests, packages):
    """What keeps the folder ``tests`` from mirroring ``packages`` (and ``cli``): one line per problem.

    Each folder of ``tests`` is a package (its modules import ``..conftest`` and ``..support``) named
    after one of ``packages`` or one of :data:`OTHER_FOLDERS`; ``support`` holds no test module, and
    the helpers are all there (outside it, only test modules, ``__init__.py`` and ``conftest.py``);
    and each of ``packages`` and ``cli`` has a folder holding at least one test module.
    """
    folders = sorted(f for f in tests.iterdir() if f.is_dir() and not f.name.startswith((".", "__")))   # __pycache__
    named = [f"{f.relative_to(tests.parent).as_posix()}/" for f in folders]
    problems = [f"{name} mirrors no package of w2v/ (nor is it {' or '.join(OTHER_FOLDERS)})"
                for f, name in zip(folders, named) if f.name not in (*packages, *OTHER_FOLDERS)]
    problems += [f"{name} has no __init__.py" for f, name in zip(folders, named) if not (f / "__init__.py").is_file()]
    problems += [f"{p.relative_to(tests.parent).as_posix()} is a test module among the shared helpers"
                 for p in sorted(tests.joinpath("support").rglob("test_*.py"))]
    outside = [tests, *(f for f in folders if f.name != "support")]
    problems += [f"{p.relative_to(tests.parent).as_posix()} is a helper outside {tests.name}/support/"
                 for folder in outside for p in sorted(folder.glob("*.py"))
                 if not p.name.startswith("test_") and p.name not in ("__init__.py", "conftest.py")]
    problems += [f"{tests.name}/{package}/ holds no test module" for package in (*packages, "cli")
                 if not any(tests.joinpath(package).glob("test_*.py"))]
    return problems


def test_the_test_folders_mirror_the_packages():
    packages = packages_of(ROOT / "w2v")
    assert {"kernels", "text", "training", "vectors"} <= set(packages), packages
    assert layout_problems(TESTS_DIR, packages) == []


def test_a_test_folder_out_of_the_mirror_is_found(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    for name in ("__init__.py", "conftest.py", "test_readme.py", "usage.py"):
        tests.joinpath(name).write_text("")
    layout = {"text": ["__init__.py", "conftest.py", "test_vocab.py"], "kernels": ["__init__.py", "cases.py"],
              "old": ["__init__.py", "test_x.py"], "cli": ["test_main.py"],
              "support": ["__init__.py", "reference.py", "test_helper.py"]}
    for folder, files in layout.items():
        tests.joinpath(folder).mkdir()
        for name in files:
            tests.joinpath(folder, name).write_text("")
    assert layout_problems(tests, ["kernels", "text", "training"]) == [
        "tests/old/ mirrors no package of w2v/ (nor is it cli or support)",
        "tests/cli/ has no __init__.py",
        "tests/support/test_helper.py is a test module among the shared helpers",
        "tests/usage.py is a helper outside tests/support/",
        "tests/kernels/cases.py is a helper outside tests/support/",
        "tests/kernels/ holds no test module",
        "tests/training/ holds no test module",
    ]
    assert packages_of(tmp_path) == ["tests"]
    assert packages_of(tests) == ["kernels", "old", "support", "text"]
