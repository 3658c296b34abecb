"""Versions meet: the ranges adapters declare, judged and said in plain words; a bad range is
refused when the adapter is registered, naming it."""

from __future__ import annotations

from typing import ClassVar

import pytest
from vttbridge.adapters.base import check_adapter
from vttbridge.adapters.companions import judge, notice, readable
from vttbridge.adapters.foundry import FoundryAdapter
from vttbridge.adapters.roll20 import Roll20Adapter


@pytest.mark.parametrize(
    ("version", "spec", "side"),
    [
        ("0.1.0", ">=0.1.0,<0.2.0", None),
        ("0.1.9", ">=0.1.0,<0.2.0", None),
        ("0.1", ">=0.1.0,<0.2.0", None),  # a missing part is 0
        ("0.0.9", ">=0.1.0,<0.2.0", "older"),
        ("0.2.0", ">=0.1.0,<0.2.0", "newer"),
        ("1.0.0-beta.3", ">=0.1.0,<0.2.0", "newer"),  # a pre-release is its numbers
        ("2.0", "==1.4", "newer"),
        ("1.3", "==1.4", "older"),
        ("dev", ">=0.1.0", None),  # no dotted number: not judged
    ],
)
def test_judge(version: str, spec: str, side: str | None) -> None:
    assert judge(version, spec) == side


def test_plain_words() -> None:
    assert readable(">=0.1.0,<0.2.0") == "0.1.0 or later, before 0.2.0"
    n = notice({"vttbridge-foundry": ">=0.1.0,<0.2.0"}, "vttbridge-foundry", "0.0.9")
    assert n is not None and n["older"] is True and n["code"] == "companion_version"
    assert "vttbridge-foundry 0.0.9 is older than this vttbridge server" in n["message"]
    assert n["message"].endswith("update vttbridge-foundry.")
    newer = notice({"x": "<0.2.0"}, "x", "0.3.0")
    assert newer is not None and newer["message"].endswith("update vttbridge on the server.")
    assert notice({"x": "<0.2.0"}, "someone-else", "0.0.1") is None  # a companion it does not know


def test_the_shipped_adapters_support_their_companions_of_today() -> None:
    assert notice(FoundryAdapter.companions, "vttbridge-foundry", "0.1.0") is None
    for name in ("vttbridge-roll20-relay", "VTTBridge"):
        assert notice(Roll20Adapter.companions, name, "0.1.0") is None


def test_a_bad_range_is_refused_at_registration() -> None:
    class Typo(FoundryAdapter):
        companions: ClassVar[dict[str, str]] = {"vttbridge-foundry": "=>0.1.0"}

    with pytest.raises(ValueError, match=r"companions\['vttbridge-foundry'\].*'=>0.1.0'"):
        check_adapter(Typo())
