"""Property tests for the movement budget: whatever legal actions a character takes, in any
order, under any grid metric, he never covers more than 3x his speed in a round (1x once he
does anything but move, or in the surprise round); and every refused request changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vttbridge.rules.dice import Roller, ScriptedRoller
from vttbridge.rules.encounter import next_turn, take_action
from vttbridge.rules.geometry import Cell, DiagonalMetric
from vttbridge.rules.outcome import RuleError
from vttbridge.systems.foe.rules.charge import charge
from vttbridge.systems.foe.rules.jumping import jump
from vttbridge.systems.foe.rules.movement import dodge, move, movement_allowed
from vttbridge.systems.foe.rules.sneaking import hold_defense, sneak, stop_sneaking
from vttbridge.systems.foe.rules.state import foe
from vttbridge.systems.foe.rules.surprise import start_surprise_round

from tests.systems.foe.helpers import fight, pony, world

step = st.integers(min_value=-14, max_value=14)
waypoints = st.lists(st.tuples(step, step), min_size=1, max_size=3)
direction = st.sampled_from([(1, 0), (0, 1), (1, 1), (-1, 0), (0, -1), (-1, 1)])
op = st.one_of(
    st.tuples(st.just("move"), waypoints),
    st.tuples(st.just("charge"), st.tuples(direction, st.integers(0, 24))),
    st.tuples(st.sampled_from(["act", "dodge", "sneak", "stop", "hold", "jump", "next"])),
)


def _apply(enc, kind: str, arg) -> float:
    """Apply one request for pip; return the ground it covered."""
    here = enc.positions["pip"]
    if kind == "move":
        path = [here] + [Cell(x=here.x + dx, y=here.y + dy) for dx, dy in arg]
        return move(enc, "pip", path).happened[0].data["distance"]
    if kind == "charge":
        (dx, dy), n = arg
        end = Cell(x=here.x + dx * n, y=here.y + dy * n)
        return charge(enc, "pip", [here, end], enemies=["ox"]).happened[0].data["distance"]
    if kind == "act":
        take_action(enc, "pip", "half", "attack")
    elif kind == "dodge":
        dodge(enc, "pip", to=Cell(x=here.x + 1, y=here.y))
    elif kind == "sneak":
        sneak(enc, "pip", ScriptedRoller())
    elif kind == "stop":
        stop_sneaking(enc, "pip")
    elif kind == "hold":
        hold_defense(enc, "pip", "dodge")
    elif kind == "jump":
        jump(enc, "pip", gap=5, running_start=True)
    elif kind == "next":
        next_turn(enc, Roller(seed=7))
    return 0.0


def _play(enc, speed: float, ops, single_action_round: int | None = None) -> None:
    covered = 0.0
    turn = (enc.round, enc.active)
    for kind, *rest in ops:
        arg = rest[0] if rest else None
        before = enc.model_dump()
        try:
            covered += _apply(enc, kind, arg)
        except RuleError:
            assert enc.model_dump() == before, f"refused {kind} changed the encounter"
            continue
        if (enc.round, enc.active) != turn:
            turn, covered = (enc.round, enc.active), 0.0
            continue
        if enc.active != "pip":
            continue
        cb = enc.combatants["pip"]
        assert covered <= 3 * speed + 1e-9
        assert cb.moved_ft == covered
        assert cb.half_actions >= 0
        sneaking = foe(enc).sneak.get("pip")
        on_foot = covered - (sneaking.moved if sneaking else 0.0)
        capped = any(a != "move" for a in cb.actions_taken) or enc.round == single_action_round
        if capped and "charge" not in cb.actions_taken:
            # any other action (or a single action) caps at 1x; a charge is its own run
            assert on_foot <= speed + 1e-9
        assert covered + movement_allowed(enc, "pip") <= 3 * speed + 1e-9


@pytest.mark.slow  # property-based: many generated turns
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    speed=st.sampled_from([4, 5, 9, 10, 12.5, 25, 30, 35]),
    metric=st.sampled_from(list(DiagonalMetric)),
    ops=st.lists(op, max_size=30),
)
def test_no_legal_sequence_covers_more_than_a_run(speed, metric, ops):
    enc = world(pony("pip", move=speed), pony("ox"), at={"pip": (0, 0), "ox": (3, 3)})
    enc.grid.metric = metric
    fight(enc, ["pip", "ox"])
    _play(enc, speed, ops)


@pytest.mark.slow  # property-based: many generated turns
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    speed=st.sampled_from([5, 9, 25, 30]),
    metric=st.sampled_from(list(DiagonalMetric)),
    ops=st.lists(op, max_size=20),
)
def test_the_surprise_round_gives_one_speed(speed, metric, ops):
    enc = world(pony("pip", move=speed), pony("ox"), at={"pip": (0, 0), "ox": (3, 3)})
    enc.grid.metric = metric
    start_surprise_round(enc, ["pip"], ["ox"], ScriptedRoller([50]))
    assert enc.active == "pip" and enc.actions_per_turn == 1
    _play(enc, speed, ops, single_action_round=1)
