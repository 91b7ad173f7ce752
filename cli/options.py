"""``w2v train``'s options for the settings, made from the table of :mod:`w2v.settings`.

:func:`setting_options` turns fields of :class:`w2v.settings.Settings` into
click options (flag, help, type, default as their :class:`~w2v.settings.Flag`
says); :class:`SettingFlags` holds what one call gave them, checks it with
messages that name the options (:data:`FLAG_NAMES`; the library's name the
fields), and turns it into settings: for a new model, or the ones given
explicitly to a resumed one.
"""
import dataclasses
import types

import click
from click.core import ParameterSource

from w2v.errors import ParameterError
from w2v.settings import SPECS, check_relations
from w2v.util.checks import Boolean, Integer, NoneOr, OneOf, Real

__all__ = ["FLAG_NAMES", "FlagNames", "SettingFlags", "setting_options"]

# --round-words and --lanes are settings of deterministic mode only: without --deterministic,
# --round-words is a Dask run's round size (w2v.distributed) and --lanes is refused
_DETERMINISTIC_ONLY = ("round_words", "lanes")


def setting_options(*fields):
    """A decorator adding the click options of the settings ``fields``, in this order.

    Each option's parameter is named after its field (``--max-vocab`` is ``max_vocab_size``).
    """
    def decorate(command):
        for field in reversed(fields):   # click lists the options in the order the decorators are written
            command = _option(field)(command)
        return command
    return decorate


def _option(field):
    spec = SPECS[field]
    flag = spec.flag
    check = spec.check.inner if isinstance(spec.check, NoneOr) else spec.check
    kwargs = {"help": flag.help}
    if flag.metavar:
        kwargs["metavar"] = flag.metavar
    if isinstance(check, Boolean) and "/" not in flag.name:   # --hs: off unless given
        return click.option(flag.name, field, is_flag=True, default=False, **kwargs)
    if isinstance(check, OneOf):
        kwargs["type"] = click.Choice(list(check.choices))
    elif not isinstance(check, Boolean):
        kwargs["type"] = {Integer: int, Real: float}[type(check)]
    if flag.unset:
        return click.option(flag.name, field, default=None, **kwargs)
    return click.option(flag.name, field, default=flag.from_field(spec.default), show_default=True, **kwargs)


class FlagNames:
    """How the CLI's messages name a setting: by its option (``--min-alpha``, ``--device cuda``), where
    :class:`w2v.settings.FieldNames` names the field."""

    def name(self, field):
        """The option of the setting ``field``, in a message."""
        return SPECS[field].flag.option

    def value(self, field, value):
        """The option of the setting ``field`` given ``value``, in a message."""
        return self.name(field) if value is True else f"{self.name(field)} {value}"


FLAG_NAMES = FlagNames()


@dataclasses.dataclass(frozen=True)
class SettingFlags:
    """The values one ``w2v train`` call gave the settings' options (in the options' units, by field name).

    Attributes
    ----------
    values : mapping
        Each field's option value; ``None`` for an option not given whose default is unset.
    explicit : frozenset
        The fields whose options were given on the command line.
    """

    values: types.MappingProxyType
    explicit: frozenset = frozenset()

    @classmethod
    def take(cls, params, ctx):
        """Remove the settings' options from click's ``params`` (a dict, changed) and hold their values."""
        values = {field: params.pop(field) for field in SPECS}
        given = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
        explicit = frozenset(f for f in values if ctx.get_parameter_source(f) in given)
        return cls(types.MappingProxyType(values), explicit)

    def __getitem__(self, field):
        return self.values[field]

    def with_default(self, field, value):
        """These values, with ``value`` for ``field`` where its option was not given (``None``)."""
        if self.values[field] is not None:
            return self
        return dataclasses.replace(self, values=types.MappingProxyType({**self.values, field: value}))

    def check(self):
        """Raise :class:`ParameterError`, naming the option, on a value it does not take.

        An option's own check where it has one (:attr:`w2v.settings.Flag.check`:
        ``--threads 0``, ``--memory-budget`` in MiB), else its field's check of
        the value it gives the field.  ``--round-words`` and ``--lanes`` are
        settings only with ``--deterministic``: without it ``--round-words`` is
        a Dask run's round size, checked there, and ``--lanes`` is refused.
        The rules between settings are checked on the settings of a run:
        :meth:`check_new_settings`, or a resumed model's
        (``w2v_cli.resume.load_for_resume``).
        """
        for field, value in self.values.items():
            if value is None:   # not given: the field's default
                continue
            if field in _DETERMINISTIC_ONLY and not self.values["deterministic"]:   # Dask's, or refused later
                continue
            spec = SPECS[field]
            flag = spec.flag
            problem = flag.check.problem(value) if flag.check else spec.check.problem(flag.to_field(value))
            if problem is not None:
                raise ParameterError(f"{flag.option} {problem}")

    def check_new_settings(self):
        """Raise :class:`ParameterError`, naming the options, unless the settings of a new model keep the
        rules between settings (:func:`w2v.settings.check_relations`)."""
        defaults = {field: spec.default for field, spec in SPECS.items()}
        check_relations({**defaults, **self.new_settings()}, FLAG_NAMES)

    def new_settings(self):
        """The settings of a new model: each option's value as its field's; fields not given keep their defaults.

        ``--round-words`` and ``--lanes`` count only with ``--deterministic``.
        """
        out = {field: SPECS[field].flag.to_field(v) for field, v in self.values.items() if v is not None}
        if not out.get("deterministic"):
            for field in _DETERMINISTIC_ONLY:
                out.pop(field, None)
        return out

    def explicit_settings(self):
        """The settings given explicitly on the command line, as field values (for ``--resume``)."""
        return {field: SPECS[field].flag.to_field(v) for field, v in self.values.items() if field in self.explicit}
