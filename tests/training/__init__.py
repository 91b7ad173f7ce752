"""Tests of ``w2v.training``: each file is named after the module it tests, where there is one."""
