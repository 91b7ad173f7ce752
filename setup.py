"""Package layout (metadata lives in setup.cfg).

The command-line interface lives in the folder ``cli/`` and is installed as
the package ``w2v_cli``, so that no generic top-level ``cli`` package lands in
site-packages; the console script ``w2v`` runs ``w2v_cli.main:main``.
"""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["w2v", "w2v.*"]) + ["w2v_cli"], package_dir={"w2v_cli": "cli"})
