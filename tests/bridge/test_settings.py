"""``vttbridge serve``'s settings: each from its option, its environment variable or the config
file, in that order, validated with a message naming the setting; JSON logs; ``/metrics``."""

from __future__ import annotations

import io
import json
import logging
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from vttbridge.adapters.bridge.cli import JsonFormatter, build_parser, main, serve_settings
from vttbridge.adapters.bridge.config import ServeSettings

from tests.bridge.conftest import TableClient, scene, start_serve


def settings(argv: list[str]) -> ServeSettings:
    return serve_settings(build_parser().parse_args(["serve", *argv]))


def test_every_setting_is_an_option_an_environment_variable_and_a_config_key():
    parser = build_parser()
    serve = parser._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    dests = {a.dest for a in serve._actions}
    assert set(ServeSettings.model_fields) <= dests
    help_text = serve.format_help()
    for name in ServeSettings.model_fields:
        assert f"$VTTBRIDGE_{name.upper()}" in help_text.replace("\n", "").replace(" ", ""), name


# one setting of each kind: a number, a text, a choice, a switch, a list, an optional number
KINDS = {
    "lease_ttl": ("--lease-ttl", "7.5", "7.5", 7.5),
    "node_id": ("--node-id", "n-1", '"n-1"', "n-1"),
    "durability": ("--durability", "full", '"full"', "full"),
    "reload_scripts": ("--no-reload-scripts", None, "false", False),
    "allow_origin": ("--allow-origin", "http://a.example", '["http://a.example"]',
                     ["http://a.example"]),
    "world_burst": ("--world-burst", "9", "9", 9),
}  # fmt: skip


@pytest.mark.parametrize("name", list(KINDS))
def test_each_kind_of_setting_from_each_source_in_order(name, tmp_path, monkeypatch):
    opt, cli_value, toml_value, expected = KINDS[name]
    default = ServeSettings.model_fields[name].get_default(call_default_factory=True)
    env_text = {7.5: "7.5", "n-1": "n-1", "full": "full", False: "false", 9: "9"}
    env_text_of = (
        ",".join(expected) if isinstance(expected, list) else env_text[expected]  # type: ignore[index]
    )
    cli = [opt] if cli_value is None else [opt, cli_value]
    conf = tmp_path / "vttbridge.toml"
    conf.write_text(f"{name} = {toml_value}\n")
    var = f"VTTBRIDGE_{name.upper()}"
    monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("VTTBRIDGE_CONFIG", raising=False)

    assert getattr(settings([]), name) == default
    # the config file
    assert getattr(settings(["--config", str(conf)]), name) == expected
    monkeypatch.setenv("VTTBRIDGE_CONFIG", str(conf))
    assert getattr(settings([]), name) == expected
    # the environment over the file: set the default back through it
    back = {list: "", bool: "true"}.get(type(default))
    if back is None:
        back = str(default) if default is not None else None
    if back is not None:
        monkeypatch.setenv(var, back)
        assert getattr(settings([]), name) == default
    # the environment alone
    monkeypatch.delenv("VTTBRIDGE_CONFIG")
    monkeypatch.setenv(var, env_text_of)
    assert getattr(settings([]), name) == expected
    # the option over both
    monkeypatch.setenv("VTTBRIDGE_CONFIG", str(conf))
    if name == "reload_scripts":
        monkeypatch.setenv(var, "true")
    else:
        monkeypatch.setenv(var, back if back is not None else "0")
    if name == "world_burst":
        monkeypatch.delenv(var)
    assert getattr(settings(cli), name) == expected


@pytest.mark.parametrize(
    ("where", "value", "says"),
    [
        ("option", ["--port", "99999"], "--port: Input should be less than or equal to 65535"),
        ("env", {"VTTBRIDGE_LEASE_TTL": "soon"}, "$VTTBRIDGE_LEASE_TTL: Input should be a valid"),
        ("file", "lease_tll = 3\n", "unknown setting 'lease_tll' (did you mean 'lease_ttl'?)"),
        ("file", 'durability = "always"\n', "durability in"),
        ("file", "port = [\n", "config file"),
        ("option", ["--db", "mysql://x/y"], "unknown database URL scheme 'mysql'"),
        ("option", ["--redis", "redis://r/0"], "needs db postgresql://"),
    ],
)
def test_a_bad_setting_is_named_with_where_it_came_from(
    where, value, says, tmp_path, monkeypatch, capsys
):
    argv = ["serve"]
    if where == "option":
        argv += value
    elif where == "env":
        for k, v in value.items():
            monkeypatch.setenv(k, v)
    else:
        conf = tmp_path / "bad.toml"
        conf.write_text(value)
        argv += ["--config", str(conf)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err, err


def test_json_logs_are_one_object_a_line():
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("vttbridge.adapters.bridge.hosting")
    logger.addHandler(handler)
    try:
        logger.warning("hello %s", "there")
        try:
            raise ValueError("boom")
        except ValueError:
            logger.exception("it broke")
    finally:
        logger.removeHandler(handler)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["message"] == "hello there" and lines[0]["level"] == "warning"
    assert lines[0]["logger"] == "vttbridge.adapters.bridge.hosting"
    assert lines[0]["time"].endswith("+00:00")
    assert "ValueError: boom" in lines[1]["exception"]


def test_every_module_logs_under_vttbridge():
    import importlib
    import pkgutil

    import vttbridge.adapters
    import vttbridge.rules
    import vttbridge.sdk

    names = []
    found = [
        mod
        for pkg in (vttbridge.adapters, vttbridge.rules, vttbridge.sdk)
        for mod in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
    ]
    for mod in found:
        if ".dashboard.test" in mod.name or mod.name.endswith("__main__"):
            continue
        module = importlib.import_module(mod.name)
        logger = getattr(module, "log", None)
        if isinstance(logger, logging.Logger):
            names.append(logger.name)
    assert names and all(n == "vttbridge" or n.startswith("vttbridge.") for n in names), names


def scrape(url: str) -> str:
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/plain")
        return r.read().decode()


def sample(text: str, name: str, **labels: str) -> float:
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = rf"^{name}(?:\{{{re.escape(want)}\}})? (\S+)$" if labels else rf"^{name} (\S+)$"
    m = re.search(pattern, text, re.M)
    assert m, f"{name}{{{want}}} not in\n{text}"
    return float(m.group(1))


@pytest.mark.slow  # vttbridge serve in a process of its own
async def test_metrics_are_scraped_from_a_json_logging_server(tmp_path: Path):
    from vttbridge.adapters.bridge.server import create_world

    db = tmp_path / "m.sqlite3"
    key, _ = create_world(db, "table1")
    output: list[str] = []
    env_conf = tmp_path / "vttbridge.toml"
    env_conf.write_text('log_format = "json"\n')
    proc, url = await start_serve(db, "--config", str(env_conf), output=output)
    try:
        c = await TableClient().connect(url, "table1", key)
        assert (await c.send("snapshot", scene()))["ok"]
        bad = await c.send("tokenMoved", {"id": "m1", "token": "nobody", "x": 0, "y": 0})
        assert bad["ok"] is False
        import asyncio

        text = await asyncio.to_thread(scrape, url)
        assert sample(text, "vttbridge_events_total", adapter="minitable", outcome="ok") == 1
        code = bad["error"]["code"]
        assert sample(text, "vttbridge_refusals_total", code=code) == 1
        assert sample(text, "vttbridge_ack_seconds_count", adapter="minitable") == 2
        assert sample(text, "vttbridge_worlds_loaded") == 1
        assert sample(text, "vttbridge_connections", kind="vtt") == 1
        assert sample(text, "vttbridge_commit_seconds_count") >= 1
        assert sample(text, "vttbridge_lease_changes_total", change="acquired") == 1
        await c.close()
    finally:
        proc.terminate()
        proc.wait(15)
    logged = [json.loads(line) for line in output if line.startswith("{")]
    assert any("Listening on" in entry["message"] for entry in logged), output


async def test_metrics_off_say_how_to_turn_them_on(tmp_path: Path):
    from tests.bridge.conftest import start_server

    server = await start_server(tmp_path / "x.sqlite3", metrics=False)
    try:
        import asyncio

        def get() -> tuple[int, str]:
            try:
                urllib.request.urlopen(f"{server.url}/metrics", timeout=10)
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()
            return 200, ""

        status, body = await asyncio.to_thread(get)
        assert status == 404 and "vttbridge[metrics]" in body
    finally:
        await server.stop()
