"""The table of settings (``w2v.settings.SPECS``): each field's default, check, ``w2v train`` flag and
gensim name, declared once; ``w2v train``'s options and ``Word2Vec(...)``'s gensim parameters come from it."""
import copy
import dataclasses
import inspect

import click
import pytest

from w2v import Settings, Word2Vec
from w2v.model.gensim_params import GENSIM_ORDER, OPTION_DEFAULTS
from w2v.settings import SPECS
from w2v.util.checks import Boolean, Integer, NoneOr, OneOf, Real
from w2v_cli.options import SettingFlags
from w2v_cli.train import train

FIELDS = [f.name for f in dataclasses.fields(Settings)]
WITH_GENSIM_NAME = [field for field, spec in SPECS.items() if spec.gensim is not None]
# w2v train's options that are not settings
NOT_SETTINGS = {"output", "text_format", "resume", "update_vocab", "save_model", "checkpoint", "checkpoint_every",
                "checkpoint_words", "scheduler", "dask_workers", "report_json", "plot_training", "phrases",
                "allow_binary", "quiet"}


def options_of(command):
    return [p for p in command.params if isinstance(p, click.Option)]


def fields_without_one_flag(command):
    """The fields of Settings that have no option of ``command``, or more than one, or another flag."""
    wrong = []
    for field in FIELDS:
        named = [p for p in options_of(command) if p.name == field]
        flag = SPECS[field].flag.name.split("/") if field in SPECS else None
        if len(named) != 1 or [*named[0].opts, *named[0].secondary_opts] != flag:
            wrong.append(field)
    return wrong


def test_every_field_is_in_the_table_with_its_default():
    assert list(SPECS) == FIELDS
    assert all(f.default == SPECS[f.name].default for f in dataclasses.fields(Settings))


def test_every_field_has_exactly_one_train_flag():
    assert fields_without_one_flag(train) == []
    flags = [opt for p in options_of(train) for opt in (*p.opts, *p.secondary_opts)]
    assert len(flags) == len(set(flags))
    assert {p.name for p in options_of(train)} == set(FIELDS) | NOT_SETTINGS


def test_the_flag_check_fails_for_a_field_without_its_flag():
    command = copy.copy(train)
    command.params = [p for p in train.params if p.name != "dim"]
    assert fields_without_one_flag(command) == ["dim"]


@pytest.mark.parametrize("field", list(SPECS))
def test_a_flags_default_is_its_fields(field):
    spec = SPECS[field]
    option = next(p for p in options_of(train) if p.name == field)
    if spec.flag.unset:   # None: not given, the field's default applies (the help text says which)
        assert option.default is None
        return
    assert spec.flag.to_field(option.default) == spec.default
    if option.is_flag and not option.secondary_opts:   # --hs: off unless given
        assert option.default is False
        return
    help_text = option.get_help_record(click.Context(train))[1]
    shown = option.opts[0][2:] if option.is_flag and option.default else option.default
    shown = option.secondary_opts[0][2:] if option.is_flag and not option.default else shown
    assert help_text.endswith(f"[default: {shown}]"), help_text


def test_the_default_command_line_gives_the_default_settings():
    ctx = train.make_context("train", ["corpus.txt"])
    flags = SettingFlags.take(dict(ctx.params), ctx)
    assert flags.explicit == frozenset() and flags.explicit_settings() == {}
    assert Settings(**flags.new_settings()) == Settings()


def test_given_flags_reach_the_fields_through_their_converters():
    ctx = train.make_context("train", ["c.txt", "--memory-budget", "3", "--threads", "0", "--max-vocab", "7",
                                       "--cbow-sum", "--round-words", "9"])
    flags = SettingFlags.take(dict(ctx.params), ctx)
    assert flags.explicit == {"memory_budget", "threads", "max_vocab_size", "cbow_mean", "round_words"}
    assert flags.explicit_settings() == {"memory_budget": 3 << 20, "threads": None, "max_vocab_size": 7,
                                         "cbow_mean": False, "round_words": 9}
    assert "round_words" not in flags.new_settings()   # without --deterministic: a Dask run's round size


def test_word2vecs_gensim_names_are_the_fields_gensim_names():
    params = inspect.signature(Word2Vec).parameters
    gensims = [n for n, p in params.items() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert gensims == list(GENSIM_ORDER)
    assert set(gensims) - set(OPTION_DEFAULTS) == {SPECS[f].gensim.name for f in WITH_GENSIM_NAME}
    for field in WITH_GENSIM_NAME:
        assert params[SPECS[field].gensim.name].default == SPECS[field].gensim_default, field
    w2v_names = [n for n, p in params.items() if p.kind is p.KEYWORD_ONLY]
    assert w2v_names == [f for f in FIELDS if f not in WITH_GENSIM_NAME or SPECS[f].gensim.name != f]


def _gensim_value(field):
    """A value of the gensim parameter of ``field`` that is not its default."""
    spec = SPECS[field]
    check = spec.check.inner if isinstance(spec.check, NoneOr) else spec.check
    if isinstance(check, (Boolean, OneOf)):   # gensim's 0/1 flags; sg
        return 0 if spec.gensim_default else 1
    if isinstance(check, Integer):
        return (spec.default or check.lo) + 1
    assert isinstance(check, Real)
    return spec.default / 2


@pytest.mark.parametrize("field", WITH_GENSIM_NAME)
def test_a_gensim_name_sets_its_field(field):
    g = SPECS[field].gensim
    value = _gensim_value(field)
    assert value != SPECS[field].gensim_default
    assert getattr(Word2Vec(**{g.name: value}).settings, field) == g.to_field(value)


def test_the_gensim_names_are_gensims():
    gensim = pytest.importorskip("gensim")
    theirs = inspect.signature(gensim.models.Word2Vec).parameters
    for field in WITH_GENSIM_NAME:
        g = SPECS[field].gensim
        assert g.name in theirs, field
        if SPECS[field].gensim_default is not None:   # None: the default depends on the mode (sg, workers)
            assert theirs[g.name].default == SPECS[field].gensim_default, field
