"""The one check every rule test makes of a refusal: the rule raises the ``RuleError`` code
expected, and the encounter is left exactly as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.outcome import RuleError


def refused(enc: Encounter, code: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> RuleError:
    """``fn(enc, *args, **kw)`` raises RuleError ``code`` and changes nothing."""
    before = enc.model_dump_json()
    with pytest.raises(RuleError) as err:
        fn(enc, *args, **kw)
    assert err.value.code == code, err.value
    assert enc.model_dump_json() == before, "a refused request must change nothing"
    return err.value
