"""Tests of the CLI, ``cli/`` (``w2v_cli``): each file is named after the module it tests, where there is one."""
