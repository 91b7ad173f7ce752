"""Tests of ``w2v.kernels``: each file is named after the module it tests, where there is one."""
