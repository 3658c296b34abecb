"""Every ⚙ option of the rules: one per-world settings model with the documented defaults.

The options every system shares are fields here; each game system declares its own in its
``System.options`` model (:mod:`vttbridge.rules.systems`), and they are set the same way, flat,
beside these: ``Options(system="foe", surprise_after="insert")``, ``!set surprise_after insert``.
Each is checked by the model of the system that declares it (an option no installed system
declares is refused with the closest names); a system's rules read theirs typed, with
:meth:`Options.of`. ``docs/rules.md`` describes each with the rule it changes; a GM changes them
per world (``!set`` or a script), and rule functions read them from ``Encounter.options``.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from vttbridge.rules import systems
from vttbridge.rules.geometry import DiagonalMetric

M = TypeVar("M", bound=BaseModel)

DEFAULT_SYSTEM = "spycraft"
"""The system a world plays unless told otherwise."""


class Options(BaseModel):
    model_config = ConfigDict(extra="allow", validate_assignment=True, allow_inf_nan=False)

    system: str = DEFAULT_SYSTEM
    """Which game system the world plays: one installed (:func:`vttbridge.rules.systems.names`;
    ``spycraft`` and ``foe`` come with vttbridge)."""

    @field_validator("system")
    @classmethod
    def _known_system(cls, name: str) -> str:
        try:
            systems.get(name)
        except KeyError as e:
            raise ValueError(str(e.args[0])) from None
        return name

    # -- every system ---------------------------------------------------------------------
    diagonal_metric: DiagonalMetric = DiagonalMetric.ALTERNATING
    tie_break: Literal["random", "gm"] = "random"
    """Initiative ties after the higher Initiative bonus: a random roll-off, or GM order
    (the order combatants were added, which the GM can rearrange)."""
    free_actions_per_turn: int | None = Field(default=None, ge=0, le=1000)
    """None = unlimited free actions per turn."""

    # -- each system's own ----------------------------------------------------------------
    @model_validator(mode="after")
    def _system_options(self) -> Options:
        given = self.__pydantic_extra__
        if given:
            for name, value in list(given.items()):
                given[name] = check_option(name, value)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        # a system's option is checked before it is stored: a refused value leaves the
        # options as they were
        if name not in type(self).model_fields and not name.startswith("_"):
            value = check_option(name, value)
        super().__setattr__(name, value)

    def of(self, model: type[M]) -> M:
        """The options of one system, typed: those set here, the model's defaults for the
        rest (``enc.options.of(FoEOptions).surprise_after``)."""
        given = self.__pydantic_extra__ or {}
        return model.model_validate({k: v for k, v in given.items() if k in model.model_fields})

    def system_options(self) -> BaseModel:
        """The options of the world's system, typed (its defaults for those not set)."""
        return self.of(systems.get(self.system).options)

    def shown(self) -> dict[str, Any]:
        """Every option of the world, as JSON: the shared ones and its system's own (set or
        default), for ``!set`` and the state view."""
        core = self.model_dump(mode="json", include=set(type(self).model_fields))
        return {**core, **self.system_options().model_dump(mode="json")}


def option_names(system: str) -> list[str]:
    """Every option a world of ``system`` has: the shared ones, then the system's."""
    return [*Options.model_fields, *systems.get(system).options.model_fields]


def check_option(name: str, value: Any) -> Any:
    """``value`` checked by the system declaring option ``name``. Raises ``ValueError`` for an
    option no installed system declares (with the closest names) or a bad value."""
    owner = systems.option_owner(name)
    if owner is None:
        every = [*Options.model_fields]
        every += [n for s in systems.all_systems() for n in s.options.model_fields]
        close = difflib.get_close_matches(name, every, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"no option {name!r}{hint}")
    try:
        return getattr(owner.options.model_validate({name: value}), name)
    except ValidationError as e:
        raise ValueError(e.errors()[0]["msg"]) from None


__all__ = ["DEFAULT_SYSTEM", "Options", "check_option", "option_names"]
