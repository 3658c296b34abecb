"""Every refusal the rules can produce names its rule: each ``RuleError(code, ...)`` raised in
``rules/`` and ``systems/`` finds a citation whose section exists in ``docs/rules.md``, whose
quoted sentence is the one that page quotes, and whose options are world options."""

from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest
from vttbridge.rules import citations, systems
from vttbridge.rules.citations import SHARED, Citations
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.options import option_names
from vttbridge.rules.outcome import Happened
from vttbridge.systems.foe import SYSTEM as FOE
from vttbridge.systems.foe.rules import citations as foe_cites
from vttbridge.systems.foe.rules.charge import charge
from vttbridge.systems.foe.rules.movement import move
from vttbridge.systems.foe.rules.sneaking import sneak
from vttbridge.systems.spycraft import SYSTEM as SPYCRAFT
from vttbridge.systems.spycraft.rules import citations as spy_cites

from tests.rules.refusals import refused
from tests.systems.foe.helpers import c, east, fight, pony, world

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = ROOT / "docs" / "rules.md"


@dataclass(frozen=True)
class RaiseSite:
    path: str
    line: int
    module: str
    function: str | None
    code: str
    key: str | None


def raise_sites() -> list[RaiseSite]:
    """Every ``RuleError(...)`` the rules construct, with the module and function it is in."""
    found: list[RaiseSite] = []
    for folder in ("rules", "systems"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found.extend(_sites(tree, path))
    return found


def _sites(tree: ast.AST, path: Path) -> list[RaiseSite]:
    out: list[RaiseSite] = []

    def walk(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            if isinstance(child, ast.Call) and getattr(child.func, "id", None) == "RuleError":
                first = child.args[0] if child.args else None
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                    f"{path}:{child.lineno}: a RuleError's code must be a string literal, so "
                    "that this test can find its citation"
                )
                key = next((k.value for k in child.keywords if k.arg == citations.CITE_KEY), None)
                out.append(
                    RaiseSite(
                        path=str(path.relative_to(ROOT)),
                        line=child.lineno,
                        module=path.stem,
                        function=inner,
                        code=first.value,
                        key=key.value if isinstance(key, ast.Constant) else None,
                    )
                )
            walk(child, inner)

    walk(tree, None)
    return out


def _system_of(site: RaiseSite) -> systems.System | None:
    parts = Path(site.path).parts
    return systems.get(parts[1]) if parts[0] == "systems" else None


def _find(site: RaiseSite, system: systems.System | None) -> citations.Citation | None:
    tables: list[Citations] = ([system.citations] if system else []) + [SHARED]
    for table in tables:
        found = table.refusal(site.code, site.module, site.function, site.key)
        if found is not None:
            return found
    return None


def anchors() -> set[str]:
    """The anchors of ``docs/rules.md``'s headings, as GitHub makes them."""
    out = set()
    for line in RULES_MD.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^#+\s+(.*)$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u201c", '"')
    text = text.replace("\u201d", '"').replace("\n>", " ").replace("\u2014", "-")
    return " ".join(text.replace("> ", " ").split())


SITES = raise_sites()
EVERY_TABLE = [SHARED, SPYCRAFT.citations, FOE.citations]


def test_the_walk_finds_the_refusals_of_both_systems_and_the_core():
    codes = {s.code for s in SITES}
    assert {"over_budget", "charge_not_straight", "surprised", "no_budget", "out_of_range"} <= codes
    assert {"standoff_over", "ready_pending", "delay_floor", "run_up_too_short"} <= codes
    assert len(SITES) > 100


@pytest.mark.parametrize("site", SITES, ids=lambda s: f"{s.path}:{s.line}:{s.code}")
def test_every_refusal_code_has_a_citation(site: RaiseSite):
    cited = _find(site, _system_of(site))
    assert cited is not None, f"{site.path}:{site.line} raises {site.code!r} with no citation"
    assert cited.anchor in anchors(), f"{cited.rule}: no #{cited.anchor} in docs/rules.md"


def test_every_citation_points_at_a_section_quotes_its_page_and_names_real_options():
    heads, page = anchors(), _plain(RULES_MD.read_text(encoding="utf-8"))
    every_option = {*option_names("spycraft"), *option_names("foe")}
    for table in EVERY_TABLE:
        for cite in table.all():
            assert cite.anchor in heads, cite.rule
            assert set(cite.options) <= every_option, cite.rule
            for part in _plain(cite.quote).split("[...]"):
                part = part.strip(" .")
                assert part in page, f"{cite.rule}: {part!r} is not what docs/rules.md quotes"


def test_a_raised_refusal_finds_its_rule_from_where_it_was_raised():
    """One code, several rules: the rule module and function that raised it decide."""
    enc = world(pony("pip", move=25, agility=8), pony("gob"), at={"pip": (0, 0), "gob": (9, 9)})
    fight(enc, ["pip", "gob"])
    err = refused(enc, "over_budget", move, "pip", east(80))
    assert citations.for_refusal(err, FOE) is foe_cites.MOVEMENT
    err = refused(enc, "charge_not_straight", charge, "pip", [c(0), c(3, 3), c(6)], enemies=[])
    assert citations.for_refusal(err, FOE) is foe_cites.CHARGE
    sneak(enc, "pip", ScriptedRoller())
    err = refused(enc, "over_budget", move, "pip", east(25))
    assert citations.for_refusal(err, FOE) is foe_cites.SNEAK_SPEED
    cited = foe_cites.MOVEMENT.cited("FoE", enc.options.shown(), err.code)
    assert cited.short() == (
        "(FoE, Movement, rules.md#movement; option: diagonal_metric = alternating)"
    )
    assert cited.url.endswith("/docs/rules.md#movement")


def test_decisions_cite_their_rule_and_a_shared_kind_its_reason():
    assert citations.for_decision(Happened(kind="surprise_round"), FOE) is foe_cites.SURPRISE
    slid = Happened(kind="ic_changed", data={"reason": "Ready triggered"})
    assert citations.for_decision(slid, SPYCRAFT) is spy_cites.READY_2
    paid = Happened(kind="ic_changed", data={"reason": "stand off"})
    assert citations.for_decision(paid, SPYCRAFT) is spy_cites.STAND_OFF_2
    assert citations.for_decision(Happened(kind="moved"), FOE) is None
