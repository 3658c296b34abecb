"""Events and effects: validation, discriminated unions, JSON round trips, chat parsing."""

import json

import pytest
from pydantic import ValidationError
from vttbridge.rules.geometry import Cell
from vttbridge.sdk.effects import EFFECT_ADAPTER, AskPlayer, PostChat, SetInitiative, UpdateToken
from vttbridge.sdk.errors import EventRejected
from vttbridge.sdk.events import (
    EVENT_ADAPTER,
    EVENT_TYPES,
    ChatCommand,
    SceneSnapshot,
    TokenData,
    TokenMoved,
)
from vttbridge.sdk.world.validate import parse_event

C = Cell(x=1, y=2)
SAMPLES = {
    "token_moved": {"token": "t", "to_cell": {"x": 1, "y": 2}},
    "token_created": {"token": {"id": "t", "cell": {"x": 0, "y": 0}}},
    "token_removed": {"token": "t"},
    "token_updated": {"token": "t", "hidden": True},
    "actor_updated": {"actor": "a", "stats": {"reflex": 3}},
    "chat_message": {"text": "hello"},
    "chat_command": {"name": "ready", "args": "shoot --when corner"},
    "combat_started": {"tokens": ["t"]},
    "combat_ended": {},
    "round_started": {"round": 2},
    "turn_started": {"token": "t", "round": 1},
    "initiative_changed": {"token": "t", "ic": 12},
    "combatant_removed": {"token": "t"},
    "damage_dealt": {"token": "t", "amount": 3},
    "action_declared": {"token": "t", "action": "press"},
    "prompt_answered": {"prompt": "p1", "option": "fire"},
    "prompt_opened": {"prompt": "p1", "kind": "ask", "player": "gm"},
    "scene_snapshot": {"scene": {"id": "s"}},
    "timer_fired": {"timer": "w1"},
    "condition_signalled": {"condition": "alarm"},
}


def test_every_event_type_has_a_sample():
    assert set(SAMPLES) == set(EVENT_TYPES)


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_round_trip_through_json(kind):
    ev = EVENT_ADAPTER.validate_python({"type": kind, "id": "e1", **SAMPLES[kind]})
    assert type(ev) is EVENT_TYPES[kind]
    assert ev.id == "e1" and ev.source == "vtt"
    again = EVENT_ADAPTER.validate_json(json.dumps(EVENT_ADAPTER.dump_python(ev, mode="json")))
    assert again == ev


def test_events_are_frozen_and_strict():
    ev = TokenMoved(token="t", to_cell=C)
    with pytest.raises(ValidationError):
        ev.token = "u"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        EVENT_ADAPTER.validate_python({"type": "token_moved", "token": "t", "to": {}})
    with pytest.raises(ValidationError):
        EVENT_ADAPTER.validate_python({"type": "no_such_event"})


def test_parse_event_rejects_with_code_and_path():
    with pytest.raises(EventRejected) as e:
        parse_event({"type": "token_moved", "token": "t", "to_cell": {"x": "a", "y": 1}})
    assert e.value.code == "invalid_event" and e.value.path == "token_moved.to_cell.x"
    assert e.value.as_error()["path"] == "token_moved.to_cell.x"
    with pytest.raises(EventRejected):
        parse_event(["not", "an", "object"])


def test_waypoints_fill_in_the_ends():
    ev = TokenMoved(token="t", to_cell=Cell(x=3, y=0), path=[Cell(x=1, y=0)])
    assert ev.waypoints(Cell(x=0, y=0)) == [Cell(x=0, y=0), Cell(x=1, y=0), Cell(x=3, y=0)]
    straight = TokenMoved(token="t", from_cell=Cell(x=0, y=0), to_cell=Cell(x=2, y=2))
    assert straight.waypoints() == [Cell(x=0, y=0), Cell(x=2, y=2)]


@pytest.mark.parametrize(
    ("text", "name", "args"),
    [
        ("!ready shoot --when corner", "ready", "shoot --when corner"),
        ("  !NEXT  ", "next", ""),
        ("!answer p1 fire", "answer", "p1 fire"),
    ],
)
def test_chat_command_parse(text, name, args):
    cmd = ChatCommand.parse(text, token="t", player="p", role="player")
    assert cmd is not None and cmd.name == name and cmd.args == args and cmd.token == "t"


@pytest.mark.parametrize("text", ["hello", "! spaced", "!", ""])
def test_not_a_command(text):
    assert ChatCommand.parse(text) is None


def test_argv_groups_quotes_and_survives_bad_quotes():
    assert ChatCommand(name="x", args='a "b c" d').argv == ["a", "b c", "d"]
    assert ChatCommand(name="x", args='a "b c').argv == ["a", '"b', "c"]


def test_effects_round_trip():
    effects = [
        PostChat(text="hi", whisper_to="gm"),
        UpdateToken(token="t", cell=C, fields={"hidden": False}, animate=False),
        SetInitiative(token="t", ic=14),
        AskPlayer(prompt="p1", player="u", question="?", options=["a", "b"], default="a"),
    ]
    for eff in effects:
        data = EFFECT_ADAPTER.dump_python(eff, mode="json")
        assert EFFECT_ADAPTER.validate_python(data) == eff


def test_snapshot_event_carries_tokens_and_regions():
    snap = SceneSnapshot.model_validate(
        {
            "scene": {"id": "s", "grid": {"distance": 5}},
            "tokens": [TokenData(id="t", cell=C).model_dump()],
            "regions": {"vault": [{"x": 1, "y": 1}]},
        }
    )
    assert snap.tokens[0].cell == C and snap.regions["vault"] == [Cell(x=1, y=1)]
