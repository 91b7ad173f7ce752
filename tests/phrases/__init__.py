"""Tests of ``w2v.phrases``: each file is named after the module it tests, where there is one."""
