"""The data bundled with w2v, installed as the package ``w2v.data`` (see setup.py).

``corpus-small.txt.xz`` is the demo corpus of ``w2v train`` (its books are listed in
``corpus-small.books.tsv``); ``eval/`` holds the evaluation sets of ``w2v eval``
(their sources are in ``eval/README.md``).  Code finds them with
``importlib.resources.files("w2v.data")``, which gives this folder both in a source
checkout (editable install) and in an installed wheel.
"""
