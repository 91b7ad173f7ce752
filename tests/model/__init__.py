"""Tests of ``w2v.model``: each file is named after the module it tests, where there is one."""
