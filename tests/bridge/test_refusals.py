"""One refusal family: the rules', the runtime's, an adapter's and the bridge's refusals share
one base (``code``, ``message``, ``path``), and any of them becomes the same ack."""

from __future__ import annotations

import pytest
from vttbridge.adapters.base import TranslationError
from vttbridge.adapters.bridge import auth
from vttbridge.adapters.bridge.protocol import AckError, Refused, refusal_ack
from vttbridge.rules.outcome import RuleError
from vttbridge.rules.refusal import Refusal
from vttbridge.sdk.errors import EventRejected


@pytest.mark.parametrize("kind", [RuleError, EventRejected, TranslationError, Refused])
def test_each_layers_refusal_is_a_refusal_and_answers_the_same(kind: type[Refusal]):
    assert issubclass(kind, Refusal)
    refusal = kind("some_code", "Said for people.")
    assert (refusal.code, refusal.message, refusal.path) == ("some_code", "Said for people.", None)
    ack = refusal_ack(refusal)
    assert ack == {"ok": False, "error": {"code": "some_code", "message": "Said for people."}}
    AckError.model_validate(ack)  # the wire's model of a refused event


def test_a_path_and_extra_fields():
    assert refusal_ack(TranslationError("off_scene", "Off.", "token.x"))["error"]["path"] == (
        "token.x"
    )
    rule = RuleError("no_budget", "Mint can move 25 ft more.", left=25)
    assert rule.detail == {"left": 25} and rule.path is None
    assert "left" not in refusal_ack(rule)["error"]  # the figures stay off the wire


def test_the_bridges_refusal_of_a_connect_says_when_to_try_again():
    assert auth.Refused is Refused
    r = Refused("too_many_attempts", "Wait.", retry_after=2.2)
    assert r.refusal == {
        "message": "Wait.",
        "data": {"code": "too_many_attempts", "retry_after": 3},
    }
    assert refusal_ack(r) == {
        "ok": False,
        "error": {"code": "too_many_attempts", "message": "Wait."},
    }
    wire = {"code": "busy", "message": "Later.", "path": "id"}
    assert Refused.from_error(wire).as_error() == wire
