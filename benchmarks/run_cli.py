#!/usr/bin/env python3
"""Run the ``w2v`` command of this checkout (its ``w2v/`` and ``cli/``) without installing it.

The CLI's folder ``cli/`` is installed as the package ``w2v_cli``; this loads
it under that name from the checkout, so benchmarks time the code next to
them whatever is installed in the environment:

    python3 benchmarks/run_cli.py train corpus.txt -o vectors.bin
"""
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def load_cli(repo=REPO):
    """Import ``repo/cli`` as the package ``w2v_cli`` (with ``repo`` first on sys.path for ``w2v``)."""
    sys.path.insert(0, str(repo))
    spec = importlib.util.spec_from_file_location("w2v_cli", repo / "cli" / "__init__.py",
                                                  submodule_search_locations=[str(repo / "cli")])
    package = importlib.util.module_from_spec(spec)
    sys.modules["w2v_cli"] = package
    spec.loader.exec_module(package)
    from w2v_cli.main import main
    return main


if __name__ == "__main__":
    load_cli()(prog_name="w2v")
