"""Tests of ``w2v.cuda``: each file is named after the module it tests, where there is one."""
