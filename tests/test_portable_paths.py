"""The tests run from any checkout: none names a machine's absolute path.

Data beside the checkout is reached relative to it (``ROOT.parent / "shared" / "data"``), and a test
that needs such data skips, with its reason, where the folder is missing.
"""
import ast

from .conftest import ROOT

MACHINE_ROOT = "/" + "work/"   # where this workplace keeps its checkouts and the shared data


def test_no_test_names_an_absolute_path_of_this_machine():
    found = []
    for path in sorted(ROOT.joinpath("tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(MACHINE_ROOT):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found, "\n".join(found)
