"""Tests of ``w2v.util``: each file is named after the module it tests, where there is one."""
