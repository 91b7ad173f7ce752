"""Shared pieces of the fuzz tests: paths into a JSON value, a value replaced by odd JSON text, special files."""
import json
import os
import shutil


def leaves(obj, path=()):
    """Every path into ``obj`` (containers included)."""
    yield path
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from leaves(value, path + (key,))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from leaves(value, path + (i,))


def with_value(obj, path, text, indent=None):
    """The JSON text of ``obj`` (dumped with ``indent``) with the value at ``path`` replaced by the JSON text
    ``text``."""
    if not path:
        return text
    obj = json.loads(json.dumps(obj))
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = "@@odd@@"
    return json.dumps(obj, indent=indent).replace('"@@odd@@"', text)


def make_special(target, kind, outside):
    """Put a special file of ``kind`` at ``target`` (which exists or not): ``fifo``, ``dev-zero``,
    ``dev-urandom``, ``directory``, ``loop``, ``dangling``, or else a link to ``outside``."""
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif os.path.lexists(target):
        os.remove(target)
    if kind == "fifo":
        os.mkfifo(target)
    elif kind in ("dev-zero", "dev-urandom"):
        target.symlink_to("/dev/" + kind[4:])
    elif kind == "directory":
        target.mkdir()
    elif kind == "loop":
        target.symlink_to(target)
    elif kind == "dangling":
        target.symlink_to(target.parent / "gone")
    else:
        target.symlink_to(outside)
