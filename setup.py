"""Package layout (metadata lives in setup.cfg).

The command-line interface lives in the folder ``cli/`` and is installed as
the package ``w2v_cli``, so that no generic top-level ``cli`` package lands in
site-packages; the console script ``w2v`` runs ``w2v_cli.main:main``.

The bundled corpus and evaluation sets live in the folder ``data/`` and are
installed as the package ``w2v.data`` (its files are package data, listed in
setup.cfg), so an installed wheel holds them as an editable install does; the
code finds them with ``importlib.resources.files("w2v.data")``.
"""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["w2v", "w2v.*"]) + ["w2v.data", "w2v_cli"],
      package_dir={"w2v.data": "data", "w2v_cli": "cli"})
