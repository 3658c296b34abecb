"""The ``vttbridge`` command: serve worlds, manage them, publish schemas, play the rules demo.

vttbridge serve                      # 127.0.0.1:8787, ./vttbridge.sqlite3, world "default"
vttbridge serve --db postgresql://vttbridge@db.example/vttbridge
vttbridge world create NAME          # prints the new world's GM key and observer key, once
vttbridge world list
vttbridge replay NAME                # its log through today's rules: what differs?
vttbridge export-test NAME --out tests/test_friday.py
vttbridge schema --out schemas/
vttbridge demo --world default       # a scripted fight into a running server's world
vttbridge rules demo
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import logging
import os
import sys
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from vttbridge.adapters.base import AdapterRegistry, registry
from vttbridge.adapters.bridge.storage import Storage, StoreError, describe, run_blocking
from vttbridge.rules import systems
from vttbridge.rules.options import DEFAULT_SYSTEM

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.config import ServeSettings

DEFAULT_DB = "vttbridge.sqlite3"
DEFAULT_WORLD = "default"

log = logging.getLogger("vttbridge")


def _db_default() -> str:
    return os.environ.get("VTTBRIDGE_DB", DEFAULT_DB)


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Shows defaults, except empty ones ("(default: [])" says nothing)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, [], False):
            return action.help
        return super()._get_help_string(action)


def _add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="PATH|URL",
        default=_db_default(),
        help="where the worlds, their keys, logs and snapshots are kept: a SQLite file "
        "(created if missing; also sqlite:///PATH) or a PostgreSQL database, "
        "postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE (its tables are created or "
        "upgraded at the first use). Default: $VTTBRIDGE_DB or ./%(default)s",
    )


_METAVARS = {
    "db": "PATH|URL",
    "script": "FILE",
    "adapter": "MODULE:CLASS",
    "allow_origin": "ORIGIN",
    "node_id": "NAME",
    "redis": "URL",
    "max_payload": "BYTES",
    "snapshot_every": "EVENTS",
}


class _ServeHelp(_Help):
    """Shows each setting's default (the settings model's) and its environment variable."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        from vttbridge.adapters.bridge.config import ENV_PREFIX, ServeSettings

        text = action.help or ""
        field = ServeSettings.model_fields.get(action.dest)
        if field is None:
            return text
        default = field.get_default(call_default_factory=True)
        if default not in (None, [], False):
            shown = "on" if default is True else default
            text += f" (default: {shown})"
        return f"{text} [${ENV_PREFIX}{action.dest.upper()}]".replace("%", "%%")


def _add_serve_options(serve: argparse.ArgumentParser) -> None:
    """One option per setting of :class:`ServeSettings` (each also an environment variable
    and a key of the config file); an option not given leaves the setting to those."""
    import typing

    from vttbridge.adapters.bridge.config import CONFIG_ENV, ServeSettings, option

    serve.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="a TOML file of settings, named as the options below with _ for - "
        '(lease_ttl = 3, script = ["a.py"]); '
        f"an option or an environment variable overrides it [${CONFIG_ENV}]",
    )
    for name, field in ServeSettings.model_fields.items():
        kw: dict[str, typing.Any] = {"dest": name, "help": field.description}
        kw["default"] = argparse.SUPPRESS
        ann = field.annotation
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        base = args[0] if typing.get_origin(ann) in (typing.Union, types.UnionType) else ann
        if base is bool:  # --no-default-world: off unless given; --metrics / --no-metrics
            default = field.get_default()
            kw["action"] = "store_true" if default is False else argparse.BooleanOptionalAction
        elif typing.get_origin(base) is list or base is list:
            kw["action"] = "append"
        elif typing.get_origin(base) is typing.Literal:
            kw["choices"] = list(typing.get_args(base))
        else:
            kw["type"] = base if base in (int, float) else str
        if name in _METAVARS:
            kw["metavar"] = _METAVARS[name]
        elif kw.get("type") is float and "seconds" in (field.description or ""):
            kw["metavar"] = "SECONDS"
        serve.add_argument(option(name), **kw)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vttbridge",
        description="Rules backend and scripting SDK for virtual tabletops. Link a Foundry VTT "
        "world or a Roll20 campaign: its events arrive over a socket bridge, the rules run, "
        "and the results go back as native VTT commands.",
        formatter_class=_Help,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    # -- serve -------------------------------------------------------------------------------
    serve = sub.add_parser(
        "serve",
        help="run the bridge (the main job)",
        description="Run the bridge: the VTT companion clients connect to it over socket.io, "
        "GMs watch a world on its dashboard (/) and install the companions from it "
        "(/foundry/module.json, /roll20/VTTBridge.js, /roll20/vttbridge-relay.user.js), tools "
        "read world state over HTTP. On first start a world named 'default' is created and its "
        "keys printed. Stop with Ctrl-C: every world is saved. The worlds live in a SQLite file "
        "(the default) or in PostgreSQL (--db postgresql://...); see docs/deployment.md. "
        "Every option is also an environment variable (shown in [brackets]) and a key of "
        "the --config file: an option wins over the environment, which wins over the file.",
        formatter_class=_ServeHelp,
    )
    _add_serve_options(serve)

    # -- world -------------------------------------------------------------------------------
    world = sub.add_parser(
        "world",
        help="create and list worlds, and keep their logs",
        description="Manage the worlds a server hosts, in its database (--db: a SQLite file "
        "or a postgresql:// URL). Works while the server runs: a world created now can be "
        "linked at once; a key reset closes the old key's connections within 2 s.",
    )
    wsub = world.add_subparsers(dest="world_command", metavar="ACTION", required=True)
    create = wsub.add_parser(
        "create",
        help="create a world and print its keys (shown once)",
        description="Create a world. Its GM key (to paste into the companion module) and its "
        "observer key (read-only: watch, never send) are printed once and stored only as "
        "hashes.",
        formatter_class=_Help,
    )
    create.add_argument("name", help="the world's name: letters, digits, '.', '_', '-'")
    installed = systems.all_systems()
    create.add_argument(
        "--system",
        choices=[s.name for s in installed],
        default=DEFAULT_SYSTEM,
        help="the game system the world plays, one of those installed: "
        + ", ".join(f"{s.name} ({s.title})" for s in installed),
    )
    create.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rules option (see rules/options.py), e.g. tie_break=gm (repeatable)",
    )
    _add_db(create)
    lst = wsub.add_parser(
        "list",
        help="list the worlds",
        formatter_class=_Help,
    )
    _add_db(lst)
    reset = wsub.add_parser(
        "reset-key",
        help="replace a world's keys and print the new ones: the old ones stop working at once, "
        "and a running server closes the connections that used them within 2 s",
        formatter_class=_Help,
    )
    reset.add_argument("name")
    _add_db(reset)
    logsize = wsub.add_parser(
        "log",
        help="show each world's log: its rows and size in the database and in archive files, "
        "and what the world keeps",
        formatter_class=_Help,
    )
    _add_db(logsize)
    keep = wsub.add_parser(
        "retention",
        help="choose what of a world's log the database keeps; `archive` applies it",
        description="What of a world's log stays in the database. keep: everything (the "
        "default; replay reads the log from its first event). days:N: rows older than N "
        "days go to archive files. snapshots:K: rows up to the K-th latest snapshot (1 or 2) "
        "go. Archived rows are still read by replay; rows after the latest snapshot always "
        "stay.",
        formatter_class=_Help,
    )
    keep.add_argument("name")
    keep.add_argument("retention", metavar="keep|days:N|snapshots:K")
    _add_db(keep)
    arch = wsub.add_parser(
        "archive",
        help="archive now: move the rows each world's retention lets go into compressed "
        "files, and give the space back (works while the server runs)",
        formatter_class=_Help,
    )
    arch.add_argument("names", nargs="*", metavar="NAME", help="the worlds (default: every one)")
    arch.add_argument(
        "--retention",
        metavar="days:N|snapshots:K",
        help="archive by this instead of each world's own retention",
    )
    arch.add_argument(
        "--archive-dir",
        metavar="DIR",
        help="where the files go (default: beside a SQLite file, FILE.archive/; needed for "
        "PostgreSQL: a folder every node can read)",
    )
    _add_db(arch)
    vac = wsub.add_parser(
        "vacuum",
        help="rewrite a SQLite file compact, and let it shrink after each archive from then "
        "on (for a file an older vttbridge made); stop the server first",
        formatter_class=_Help,
    )
    _add_db(vac)

    # -- replay, export-test -------------------------------------------------------------------
    _add_replay_parsers(sub)

    # -- schema ------------------------------------------------------------------------------
    schema = sub.add_parser(
        "schema",
        help="write the JSON Schemas of every wire payload",
        description="Write JSON Schemas of the protocol envelope, every installed adapter's "
        "inbound events and commands, and the domain events and effects.",
        formatter_class=_Help,
    )
    schema.add_argument("--out", default="schemas", metavar="DIR", help="directory to write to")
    schema.add_argument(
        "--adapter", action="append", default=[], metavar="MODULE:CLASS", help="also this adapter"
    )

    # -- demo --------------------------------------------------------------------------------
    demo = sub.add_parser(
        "demo",
        help="play a scripted fight into a running server's world, to watch on its dashboard",
        description="Play Kevin's corner Ready and a Stand Off (Spycraft 2.0) into a world of a "
        "running server, as a simulated Foundry client with the world's GM key, so the "
        "dashboard shows the rules at work before a VTT is linked. It refuses a world a VTT is "
        "linked to right now or that holds a scene of its own, and ends its fight when done.",
        formatter_class=_Help,
    )
    demo.add_argument("--url", default="http://127.0.0.1:8787", help="the server's URL")
    demo.add_argument("--world", default=DEFAULT_WORLD, help="the world to play into")
    demo.add_argument(
        "--key",
        default=None,
        help="the world's GM key (asked for when not given, so it stays off the command line)",
    )
    demo.add_argument(
        "--pace", type=float, default=1.5, metavar="SECONDS", help="pause between the steps"
    )
    demo.add_argument(
        "--private",
        action="store_true",
        help="play on a bridge of the demo's own instead, in this process: no server needed",
    )

    # -- rules -------------------------------------------------------------------------------
    rules = sub.add_parser("rules", help="walk through the rules without a VTT")
    rsub = rules.add_subparsers(dest="rules_command", metavar="ACTION", required=True)
    rsub.add_parser(
        "demo",
        help="play Kevin's corner Ready (Spycraft 2.0) with scripted dice",
        description="Play the rulebook's Ready example through the world runtime, with "
        "scripted dice, and print what the table would see.",
    )
    return parser


def _add_replay_parsers(sub: argparse._SubParsersAction) -> None:
    """``replay`` and ``export-test``: the same world, database, scripts and selection."""

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("world", metavar="WORLD", help="the world's name")
        p.add_argument(
            "--db",
            metavar="PATH|URL",
            default=_db_default(),
            help="the server's database, as for serve: a SQLite file (also sqlite:///PATH) or "
            "postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE; opened read-only, never "
            "created or upgraded. Default: $VTTBRIDGE_DB or ./%(default)s",
        )
        p.add_argument(
            "--script",
            action="append",
            default=[],
            metavar="FILE",
            help="a script file the world runs (repeatable; as for serve: give the ones the "
            "server runs, or an edited one to see what it changes)",
        )
        p.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="OPTION=VALUE",
            help="change a rules option or a world setting first, as !set would "
            "(repeatable), e.g. --set surprise_after=insert",
        )
        p.add_argument(
            "--from",
            dest="first",
            type=int,
            default=None,
            metavar="SEQ",
            help="compare (export-test: write) from this log seq on; the events before it "
            "are replayed to set the scene",
        )
        p.add_argument(
            "--to", dest="last", type=int, default=None, metavar="SEQ", help="stop after this seq"
        )
        p.add_argument(
            "--adapter",
            action="append",
            default=[],
            metavar="MODULE:CLASS",
            help="also this VTT adapter (as for serve), to compare the commands of a world "
            "linked to it",
        )
        p.add_argument(
            "--no-entry-point-scripts",
            dest="no_entry_points",
            action="store_true",
            help="leave out the installed plug-in scripts (as serve's option of that name)",
        )

    replay = sub.add_parser(
        "replay",
        help="replay a world's log through today's rules and scripts, and say what differs",
        description="Replay a world's recorded events, in order, with the recorded dice, "
        "through the rules and scripts installed now (and the --script and --set given), and "
        "compare what they produce with what the table saw: each chat line, sheet change, "
        "question and VTT command, and the world's state at the server's snapshots. Prints the "
        "first divergence with the events around it and the differences by kind; exits 1 "
        "when anything differs. Reads the database read-only: safe while a server serves "
        "the world. See docs/replay.md.",
        formatter_class=_Help,
    )
    common(replay)
    replay.add_argument("--json", action="store_true", help="print the report as JSON")

    export = sub.add_parser(
        "export-test",
        help="write a pytest file that plays a slice of a world's log and checks what the "
        "table saw",
        description="Write a pytest file that plays the chosen events of a world through the "
        "offline harness (vttbridge.sdk.testing.WorldHarness) with the dice they rolled, and "
        "asserts what the table saw: the chat lines, the sheet changes, the questions, the "
        "final initiative and conditions. Needs vttbridge[testing] to run. See docs/replay.md.",
        formatter_class=_Help,
    )
    common(export)
    export.add_argument("--out", required=True, metavar="FILE", help="the test file to write")
    export.add_argument(
        "--name", default=None, help="the test function's name (default: from the world and seqs)"
    )


# -- commands -----------------------------------------------------------------------------------


def _adapters(extra: Sequence[str]) -> AdapterRegistry:
    if extra and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # an adapter module beside the GM's files, like -m does
    for ref in extra:
        module, _, attr = ref.partition(":")
        if not attr:
            raise SystemExit(f"--adapter {ref!r}: write it as module:Class")
        try:
            obj = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as e:
            raise SystemExit(f"--adapter {ref!r}: {e}") from None
        registry.register(obj, replace=True)
    registry.discover()
    return registry


def _parse_options(pairs: Sequence[str]) -> dict:
    import json

    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--option {pair!r}: write it as NAME=VALUE")
        try:
            out[name.strip()] = json.loads(value)
        except ValueError:
            out[name.strip()] = value
    return out


def _print_keys(name: str, gm: str, observer: str) -> None:
    print(f"World {name!r} created. Its keys are shown only now; keep them safe.")
    print(f"  GM key (paste into the companion module): {gm}")
    print(f"  observer key (read-only):                 {observer}")


def cmd_world(args: argparse.Namespace) -> int:
    from vttbridge.adapters.bridge.admin import create_world, reset_keys

    try:
        if args.world_command == "create":
            options = {"system": args.system, **_parse_options(args.option)}
            try:
                gm, obs = create_world(args.db, args.name, options)
            except ValueError as e:  # bad rules options
                print(f"vttbridge: {e}", file=sys.stderr)
                return 2
            _print_keys(args.name, gm, obs)
        elif args.world_command == "list":

            async def read(store: Storage) -> tuple[list, list]:
                return await store.summaries(), await store.worlds()

            rows, listed = run_blocking(args.db, read)
            records = {r.name: r for r in listed}
            if not rows:
                print(
                    f"No worlds in {describe(args.db)}. Create one with: vttbridge world "
                    "create NAME"
                )
                return 0
            print(f"{'WORLD':<24} {'SYSTEM':<9} {'VTT':<10} {'EVENTS':>7} {'COMMANDS':>8}  LAST")
            for s in rows:
                rec = records[s.name]
                when = (
                    time.strftime("%Y-%m-%d %H:%M", time.localtime(s.last_activity))
                    if s.last_activity
                    else "never"
                )
                system = rec.options.get("system", DEFAULT_SYSTEM)
                print(
                    f"{s.name:<24} {system:<9} {rec.adapter or '-':<10} {s.events:>7} "
                    f"{s.commands:>8}  {when}"
                )
        elif args.world_command in ("log", "retention", "archive", "vacuum"):
            return _keep_logs(args)
        elif args.world_command == "reset-key":
            gm, obs = reset_keys(args.db, args.name)
            print(
                f"World {args.name!r} has new keys; the old ones no longer connect, and a "
                "running server closes their connections within 2 s."
            )
            print(f"  GM key:       {gm}")
            print(f"  observer key: {obs}")
    except StoreError as e:
        print(f"vttbridge: {e}", file=sys.stderr)
        return 1
    return 0


def _replay_kw(args: argparse.Namespace) -> dict:
    from vttbridge.adapters.bridge.replay import option_changes

    return {
        "scripts": [str(Path(p).resolve()) for p in args.script],
        "changes": option_changes(args.set),
        "first": args.first,
        "last": args.last,
        "adapters": {a.name: a for a in _adapters(args.adapter)},
        "entry_points": not args.no_entry_points,
    }


def cmd_replay(args: argparse.Namespace) -> int:
    import json

    from vttbridge.adapters.bridge.replay import ReplayError, replay_report

    logging.basicConfig(level=logging.WARNING)
    try:
        report = asyncio.run(replay_report(args.db, args.world, **_replay_kw(args)))
    except (ReplayError, StoreError) as e:
        print(f"vttbridge replay: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.as_json(), indent=2, ensure_ascii=False, default=str))
    else:
        print(report.text())
    return 1 if report.total else 0


def cmd_export_test(args: argparse.Namespace) -> int:
    from vttbridge.adapters.bridge.exporttest import export_test
    from vttbridge.adapters.bridge.replay import ReplayError

    logging.basicConfig(level=logging.WARNING)
    try:
        written = asyncio.run(
            export_test(args.db, args.world, Path(args.out), name=args.name, **_replay_kw(args))
        )
    except (ReplayError, StoreError) as e:
        print(f"vttbridge export-test: {e}", file=sys.stderr)
        return 2
    print(written.summary())
    return 0


def _keep_logs(args: argparse.Namespace) -> int:
    """``vttbridge world log / retention / archive / vacuum`` (StoreError to the caller)."""
    from vttbridge.adapters.bridge import logkeeping
    from vttbridge.adapters.bridge.storage.archive import Retention

    if args.world_command == "log":
        rows, file_size = logkeeping.sizes(args.db)
        print(f"{'WORLD':<24} {'ROWS':>9} {'SIZE':>9} {'ARCHIVED':>9} {'FILES':>9}  KEEPS")
        for r in rows:
            print(
                f"{r.world:<24} {r.rows:>9} {_mb(r.bytes):>9} {r.archived_rows:>9} "
                f"{_mb(r.archived_bytes):>9}  {Retention.parse(r.retention).describe()}"
            )
        if file_size is not None:
            print(f"The database file: {_mb(file_size)} ({describe(args.db)}).")
    elif args.world_command == "retention":
        retention = Retention.parse(args.retention)
        logkeeping.set_retention(args.db, args.name, retention)
        print(
            f"World {args.name!r}: {retention.describe()}. `vttbridge world archive` "
            "applies it (run it from a daily timer; it works while the server runs)."
        )
    elif args.world_command == "archive":
        given = Retention.parse(args.retention) if args.retention else None
        done = logkeeping.archive_now(args.db, args.names or None, args.archive_dir, given)
        for world, files in done.files.items():
            if files:
                n, size = sum(f.rows for f in files), sum(f.bytes for f in files)
                print(f"{world}: {n} rows archived to {len(files)} file(s), {_mb(size)}, in "
                      f"{Path(files[0].path).parent}")  # fmt: skip
        if not any(done.files.values()):
            print("Nothing to archive (each world's retention keeps what it has).")
        if done.space:
            print(done.space)
    else:
        print(logkeeping.vacuum(args.db))
    return 0


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.0f} kB"


def configure_logging(level: str, fmt: str) -> None:
    """Log lines of every logger (vttbridge's are all under ``vttbridge``) to stderr, as text
    for people or as one JSON object a line (``fmt="json"``) for a log collector."""
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(message)s", datefmt="%H:%M:%S")
        )
    # as logging.basicConfig: a process that set up its logging already (an embedding
    # program, a test runner) keeps it
    logging.basicConfig(level=getattr(logging, level.upper()), handlers=[handler])
    for noisy in ("aiohttp.access", "socketio", "engineio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``,
    and ``exception`` (its traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        import datetime
        import json

        line = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def serve_settings(args: argparse.Namespace) -> ServeSettings:
    """The settings of ``serve``: the options given, else the environment, else the config
    file, else the defaults. Raises ``SettingsError``."""
    from vttbridge.adapters.bridge.config import ServeSettings

    given = {k: v for k, v in vars(args).items() if k in ServeSettings.model_fields}
    return ServeSettings.load(given, args.config)


def _freeze_after_full_collection(phase: str, info: dict[str, int]) -> None:
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


def _loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop for ``--event-loop uvloop`` (or ``auto``, where it is installed); None:
    asyncio's own."""
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise SystemExit(
                "vttbridge serve: --event-loop uvloop needs uvloop: "
                "pip install 'vttbridge[uvloop]' (not on Windows)"
            ) from None
        return None
    log.info("Event loop: uvloop %s.", uvloop.__version__)
    return uvloop.new_event_loop


def cmd_serve(args: argparse.Namespace) -> int:
    from vttbridge.adapters.bridge.config import SettingsError
    from vttbridge.adapters.bridge.server import Bridge, create_world

    try:
        settings = serve_settings(args)
    except SettingsError as e:
        print(f"vttbridge serve: {e}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, settings.log_format)
    from vttbridge.sdk.checks import check_loading, registered
    from vttbridge.sdk.errors import ScriptError
    from vttbridge.sdk.loader import load_source
    from vttbridge.sdk.runtime.scripts import builtin_scripts

    loaded = builtin_scripts()
    for script in settings.script:
        try:  # fail now, with the script's own error, rather than once per world
            scripts = load_source(Path(script))[0]
            check_loading(scripts, *registered(loaded))  # a clash with a built-in, say
            loaded += scripts
        except ScriptError as e:
            print(f"vttbridge: cannot load --script {script}: {e}", file=sys.stderr)
            return 2
    db = settings.db
    from vttbridge.adapters.bridge import welcome
    from vttbridge.adapters.bridge.process import settle_woken

    new_world: welcome.NewWorld | None = None
    try:

        async def names(store: Storage) -> list[str]:
            return [w.name for w in await store.worlds()]

        worlds = run_blocking(db, names)
        if not worlds and not settings.no_default_world:
            gm, obs = create_world(db, DEFAULT_WORLD)
            new_world = welcome.NewWorld(DEFAULT_WORLD, gm, obs)
    except StoreError as e:
        print(f"vttbridge: {e}", file=sys.stderr)
        return 1

    shown: list[int] = []

    def listening(port: int) -> None:  # the GM's block: stdout, apart from the log
        shown.append(port)
        block = welcome.banner(
            settings.host, port, new_world=new_world, worlds=worlds, database=describe(db)
        )
        print(block, flush=True)

    def keys_not_lost() -> None:  # the new world exists, but the server never started
        if new_world is not None and not shown:
            print(welcome.keys_block(new_world), flush=True)

    adapters = _adapters(settings.adapter)
    if not len(adapters):
        log.warning(
            "No VTT adapters are installed (entry point group 'vttbridge.adapters'); "
            "only the HTTP endpoints are served."
        )
    config = settings.bridge_config()
    bridge = Bridge(config, adapters=adapters)
    # What is loaded so far (modules, classes, pydantic's schemas) lives as long as the process:
    # keep it out of the collector's full passes, which otherwise stop the server for tens of
    # milliseconds now and then (p99 round trip at 100 clients: about 70 -> 40 ms). Worlds
    # load after this, and are frozen as they wake (below): one that falls asleep is freed all
    # the same, holding no reference cycle.
    gc.collect()
    gc.freeze()
    # And run those passes less often. Python's default (700, 10, 10) makes one per ~70,000
    # objects allocated, several a second under load, each 10-20 ms with the worlds loaded;
    # events make few reference cycles, and a world put to sleep holds none (it is freed as
    # it is unloaded). At 100 clients in bench_bridge: p99 34 -> 15 ms, -8 % CPU. The middle
    # generation is collected every 4 young passes, not 20: while tables arrive and their
    # worlds wake, most of what is made survives, and 20 passes' worth (up to 200,000
    # objects) took a pass of 90-120 ms; 4 keep it under 40,000, 20-40 ms
    # (bench_isolation.py --part tables, the players' slowest move while 300 tables arrive:
    # 120-133 -> 35-60 ms; the burst's CPU per event 1.01x). 2 gave the same there, for 2.5 %
    # more CPU per event in the burst.
    gc.set_threshold(10_000, 4, 20)
    # And keep each full pass short: what survived one is frozen after it, so the next one
    # walks only what has lived long since (with 100 worlds played flat out, passes of 15-80
    # ms became a few ms). A world put to sleep is freed all the same, frozen or not: it
    # holds no reference cycle, so it goes as it is unloaded.
    gc.callbacks.append(_freeze_after_full_collection)
    # And freeze each world as it wakes, so the middle generation's passes do not walk it again
    # (bench_isolation.py --part tables, the tables playing while 300 arrive: slowest move
    # 29-41 -> 16-23 ms, p99 13-15 -> 9-10 ms). The connections frozen with it are freed as they
    # close all the same: they hold no reference cycle (tests/bridge/test_connect.py).
    bridge.hosting.on_woken = settle_woken
    # The threads beside the loop (the WAL's copy, the scripts' callbacks, the readers) wait
    # for the GIL after each call into C, for up to the switch interval (5 ms by default)
    # while the loop is busy: a catch-up of the WAL held the acks for 7-35 ms under load,
    # mostly waiting so; at 1 ms, 0.3-19 ms.
    sys.setswitchinterval(0.001)
    try:
        with asyncio.Runner(loop_factory=_loop_factory(settings.event_loop)) as runner:
            runner.run(bridge.serve(listening))
    except StoreError as e:
        keys_not_lost()
        print(f"vttbridge: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the port is taken, the address is wrong
        keys_not_lost()
        print(f"vttbridge: cannot listen on {config.host}:{config.port}: {e}", file=sys.stderr)
        return 1
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from vttbridge.adapters.bridge import schema

    files = schema.write(args.out, _adapters(args.adapter))
    print(f"Wrote {len(files)} JSON Schemas to {args.out}/ (index.json lists them).")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    # The demo's client is a simulated Foundry: the one place the CLI names a VTT.
    from vttbridge.adapters.foundry.demo import DemoRefused, play

    logging.basicConfig(level=logging.WARNING)
    if args.private:
        asyncio.run(play(pace=args.pace))
        return 0
    key = args.key
    if not key:
        if not sys.stdin.isatty():
            print("vttbridge: give the world's GM key with --key", file=sys.stderr)
            return 2
        import getpass

        key = getpass.getpass(f"GM key of world {args.world!r}: ").strip()
    try:
        asyncio.run(play(url=args.url, world=args.world, key=key, pace=args.pace))
    except DemoRefused as e:
        print(f"vttbridge: {e}", file=sys.stderr)
        return 1
    print("\nDone. The demo's tokens stay on the dashboard until a VTT sends its own scene.")
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    from vttbridge.adapters.bridge import demo

    demo.main()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = {
        "serve": cmd_serve,
        "world": cmd_world,
        "schema": cmd_schema,
        "demo": cmd_demo,
        "rules": cmd_rules,
        "replay": cmd_replay,
        "export-test": cmd_export_test,
    }[args.command]
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
