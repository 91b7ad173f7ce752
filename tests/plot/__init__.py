"""Tests of ``w2v.plot``: each file is named after the module it tests, where there is one."""
