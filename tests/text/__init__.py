"""Tests of ``w2v.text``: each file is named after the module it tests, where there is one."""
