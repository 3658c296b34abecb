"""Roll20 object models: string bars, status markers, lastmove, pages, turn orders, chat."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError
from vttbridge.adapters.roll20.models import (
    ChatMsg,
    Graphic,
    GraphicPrev,
    Page,
    dump_statusmarkers,
    parse_controlledby,
    parse_lastmove,
    parse_statusmarkers,
)
from vttbridge.adapters.roll20.turnorder import (
    TurnOrderError,
    dump_turnorder,
    parse_turnorder,
    pr_value,
    round_counter,
)
from vttbridge.rules.geometry import DiagonalMetric

from .conftest import fixture


def test_graphic_fixture_keeps_roll20_strings_and_unknown_fields() -> None:
    g = Graphic.model_validate(fixture("change-graphic.json")["obj"])
    assert g.id == "-OTokGob1" and g.pageid == "-OPage01" and g.subtype == "token"
    assert g.bar("bar1") == ("4", "7") and g.bar("bar2") == ("15", "")
    assert g.model_extra == {"showname": True}
    assert g.is_token and not g.linked


def test_numbers_in_string_fields_are_kept_as_roll20_strings() -> None:
    g = Graphic.model_validate({"_id": "t", "bar1_value": 7, "bar2_value": 2.5, "name": None})
    assert (g.bar1_value, g.bar2_value, g.name) == ("7", "2.5", "")


def test_prev_accepts_a_trimmed_snapshot() -> None:
    prev = GraphicPrev.model_validate({"_id": "t", "left": 525, "top": 385})
    assert prev.left == 525 and prev.lastmove is None and prev.bar1_value is None


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("red,blue@3", {"red": None, "blue": 3}),
        ("red,blue@3,dead", {"red": None, "blue": 3, "dead": None}),
        ("", {}),
        ("Poisoned::1234567@2,,", {"Poisoned::1234567": 2}),
        ("blue@1,blue@4", {"blue": 4}),
    ],
)
def test_statusmarkers(text: str, parsed: dict) -> None:
    assert parse_statusmarkers(text) == parsed


def test_statusmarkers_round_trip() -> None:
    assert dump_statusmarkers(parse_statusmarkers("red,blue@3,dead")) == "red,blue@3,dead"


def test_controlledby() -> None:
    assert parse_controlledby("-OPlay1, -OPlay2") == ["-OPlay1", "-OPlay2"]
    assert parse_controlledby("all") == ["all"]
    assert parse_controlledby("") == []


def test_lastmove_points() -> None:
    assert parse_lastmove("525,385,595,315") == [(525, 385), (595, 315)]
    assert parse_lastmove("455,385") == [(455, 385)]
    assert parse_lastmove("") == [] and parse_lastmove(None) == []
    assert parse_lastmove("1,2,3") == [(1, 2)]  # a dangling coordinate is ignored
    with pytest.raises(ValueError):
        parse_lastmove("1,x")


def test_page_fixture() -> None:
    page = Page.model_validate(fixture("page.json"))
    assert page.cell_px == 70 and page.scale_number == 5 and page.scale_units == "ft"
    assert page.metric is DiagonalMetric.CHEBYSHEV


@pytest.mark.parametrize(
    ("diag", "metric"),
    [
        ("foure", DiagonalMetric.CHEBYSHEV),
        ("threefive", DiagonalMetric.ALTERNATING),
        ("pythagorean", DiagonalMetric.EUCLIDEAN),
        ("manhattan", DiagonalMetric.MANHATTAN),
    ],
)
def test_page_diagonals(diag: str, metric: DiagonalMetric) -> None:
    assert Page(diagonaltype=diag).metric is metric


def test_page_snapping_increment() -> None:
    assert Page(snapping_increment=0.5).cell_px == 35
    assert Page(snapping_increment=2).cell_px == 140
    assert Page(snapping_increment=0).cell_px == 70  # no snapping: the 70 px unit
    with pytest.raises(ValidationError):
        Page(scale_number=0)


def test_turnorder_fixture_parses_strings_numbers_and_custom_rows() -> None:
    data = fixture("change-turnorder.json")
    rows = parse_turnorder(data["obj"]["turnorder"])
    assert [r.id for r in rows] == ["-OTokGob1", "-1", "-OTokPC01"]
    assert [r.ic for r in rows] == [12, 2, 19]
    assert (
        rows[1].is_custom and rows[1].is_round_counter and rows[1].model_extra == {"formula": "+1"}
    )
    assert round_counter(rows) is rows[1]
    # dumped back as Roll20 stores it, unknown keys and the page id included
    again = json.loads(dump_turnorder(rows))
    assert again == json.loads(data["obj"]["turnorder"])


@pytest.mark.parametrize(
    ("pr", "ic"),
    [
        (12, 12),
        ("12", 12),
        ("12.7", 12),
        (12.5, 12),
        ("", None),
        ("x", None),
        (None, None),
        (True, None),
    ],
)
def test_pr_values(pr: object, ic: int | None) -> None:
    assert pr_value(pr) == ic


@pytest.mark.parametrize("raw", ["", None, "[]", []])
def test_empty_turnorders(raw: object) -> None:
    assert parse_turnorder(raw) == []


@pytest.mark.parametrize("raw", ["{oops", '{"id": "a"}', '[{"pr": 3}]', "[3]"])
def test_bad_turnorders(raw: str) -> None:
    with pytest.raises(TurnOrderError):
        parse_turnorder(raw)


def test_chat_fixtures() -> None:
    api = ChatMsg.model_validate(fixture("chat-api.json")["msg"])
    assert api.type == "api" and api.inlinerolls[0].results.total == 19
    assert api.selected[0].id == "-OTokPC01"
    roll = ChatMsg.model_validate(fixture("chat-rollresult.json")["msg"])
    assert roll.roll_result().total == 5 and roll.roll_result().rolls[0]["sides"] == 20


@pytest.mark.parametrize("kind", ["general", "emote", "whisper", "desc", "gmrollresult"])
def test_every_chat_type(kind: str) -> None:
    msg = ChatMsg.model_validate(
        {"who": "Bob", "playerid": "p", "type": kind, "content": "hi", "target": "gm"}
    )
    assert msg.type == kind


def test_unknown_chat_type_is_refused() -> None:
    with pytest.raises(ValidationError):
        ChatMsg.model_validate({"type": "shout", "content": "x"})
