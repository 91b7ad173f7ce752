"""Tests of ``w2v.distributed``: each file is named after the module it tests, where there is one."""
