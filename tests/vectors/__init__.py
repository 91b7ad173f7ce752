"""Tests of ``w2v.vectors``: each file is named after the module it tests, where there is one."""
