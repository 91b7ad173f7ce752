"""Tests of ``w2v.formats``: each file is named after the module it tests, where there is one."""
