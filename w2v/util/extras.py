"""How to install an optional extra of w2v, in one form for every message that asks for one."""

__all__ = ["install_hint"]


def install_hint(extra):
    """The command that installs the optional ``extra`` (``"plot"``, ``"dist"``, ...), for an error message.

    An installed w2v takes ``pip install 'w2v[plot]'``; a source checkout, the
    way README.md installs it, takes ``pip install -e '.[plot]'`` in its folder.
    The hint gives both.

    Parameters
    ----------
    extra : str

    Returns
    -------
    str
    """
    return f"pip install 'w2v[{extra}]' (from a source checkout: pip install -e '.[{extra}]')"
