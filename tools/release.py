"""Make a release: everything a GM or a host installs, built into one folder.

    python tools/release.py                                  # into ./release/
    python tools/release.py --out DIR --tag v0.1.0 --roll20-userid 123456

What the folder holds (``VERSION`` is the project's version, ``pyproject.toml``):

- ``python/``: the wheel and the sdist (``python -m build``), for PyPI;
- ``module.json`` and ``vttbridge-foundry-VERSION.zip``: the Foundry module. The manifest's
  ``manifest`` is the latest release's ``module.json`` (``--release-url``), so Foundry finds
  every later version there; its ``download`` is this version's zip (``--download-url``). The
  zip holds the same manifest, as Foundry requires;
- ``VTTBridge.js`` and ``roll20/VTTBridge/``: the Roll20 Mod script, and the folder the Roll20
  one-click script repository takes (``script.json``, the current script, and the script again
  under its version's folder), also zipped as ``vttbridge-roll20-VERSION.zip``;
- ``vttbridge-relay.user.js``: the relay userscript, whose ``@updateURL``/``@downloadURL`` are
  the latest release's copy;
- ``SHA256SUMS``: a checksum line for every file above.

The URLs default to GitHub's conventions for the project's home: the latest release's files at
``.../releases/latest/download/NAME``, this version's at ``.../releases/download/vVERSION/NAME``.
A release published elsewhere sets both. The companions are the committed builds (the test suite
checks that they are current), so making a release needs no Node. ``.github/workflows/
release.yml`` runs this on a tag and publishes the folder; the test suite runs it too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from vttbridge.adapters.bridge import install

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = "VTTBridge"
"""The Mod script's name in Roll20's one-click repository (its folder and file)."""
PLACEHOLDER_USERID = "0"


@dataclass(frozen=True)
class Settings:
    out: Path
    release_url: str = install.LATEST_RELEASE
    """Where the latest release's files are: Foundry's manifest, the relay's updates."""
    download_url: str = f"{install.HOME}/releases/download/v{{version}}"
    """Where this version's files stay (``{version}`` is replaced): the module's zip."""
    roll20_userid: str | None = None
    """The Roll20 user id(s) of the authors, which the one-click repository requires."""
    python: bool = True
    """Build the wheel and the sdist (the slow part)."""


def project_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def check_versions(version: str) -> None:
    """The companions and the installed vttbridge (this checkout, which the artifacts are made
    from) carry the project's version: a release of mixed parts is refused."""
    found = {
        "installed vttbridge": install.version(),
        "adapters/foundry/module/module.json": _json("adapters/foundry/module/module.json")[
            "version"
        ],
        "adapters/roll20/mod/script.json": _json("adapters/roll20/mod/script.json")["version"],
    }
    wrong = [f"{what} is {v}" for what, v in found.items() if v != version]
    if wrong:
        raise SystemExit(f"release: the project is {version}, but " + "; ".join(wrong))
    if not Path(install.__file__).resolve().is_relative_to(ROOT):
        raise SystemExit(
            f"release: the vttbridge imported is {install.__file__}, not this checkout's: "
            "pip install -e '.[test]' here first"
        )


def _json(path: str) -> dict:
    return json.loads((ROOT / path).read_text())


def build_python(out: Path) -> list[Path]:
    """The sdist, and the wheel built from it, into ``out``. The wheel's files are dated by the
    last commit (``SOURCE_DATE_EPOCH``), so the same commit gives the same wheel."""
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True
    )
    if commit.returncode == 0 and commit.stdout.strip():
        env.setdefault("SOURCE_DATE_EPOCH", commit.stdout.strip())
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    return sorted(out.iterdir())


def foundry(settings: Settings, version: str) -> list[Path]:
    name = f"vttbridge-foundry-{version}.zip"
    manifest = install.foundry_manifest(
        manifest=f"{settings.release_url}/module.json",
        download=f"{settings.download_url.format(version=version)}/{name}",
    )
    out = settings.out
    (out / "module.json").write_bytes(install.manifest_bytes(manifest))
    (out / name).write_bytes(install.foundry_zip(manifest))
    return [out / "module.json", out / name]


def roll20_script_json(version: str, userid: str | None) -> dict:
    """The Mod's ``script.json`` for the one-click repository: the committed one, with the
    authors' Roll20 user id when given."""
    data = _json("adapters/roll20/mod/script.json")
    data["version"] = version
    if userid:
        data["roll20userid"] = userid
    return data


def roll20(settings: Settings, version: str) -> list[Path]:
    out = settings.out
    script = install.mod_script()
    meta = roll20_script_json(version, settings.roll20_userid)
    folder = out / "roll20" / SCRIPT
    files = {
        "script.json": (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode(),
        f"{SCRIPT}.js": script,
        f"{version}/{SCRIPT}.js": script,
        "README.md": (ROOT / "adapters/roll20/README.md").read_bytes(),
    }
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    bundle = out / f"vttbridge-roll20-{version}.zip"
    bundle.write_bytes(install.zip_files((f"{SCRIPT}/{n}", d) for n, d in sorted(files.items())))
    (out / f"{SCRIPT}.js").write_bytes(script)
    if meta["roll20userid"] == PLACEHOLDER_USERID:
        print(
            f"release: note: roll20/{SCRIPT}/script.json has the placeholder roll20userid "
            f"{PLACEHOLDER_USERID!r}; give --roll20-userid before submitting the folder to "
            "Roll20's one-click repository.",
            file=sys.stderr,
        )
    return [out / f"{SCRIPT}.js", bundle, folder]


def relay(settings: Settings) -> list[Path]:
    path = settings.out / install.RELAY
    path.write_bytes(install.relay_userscript(f"{settings.release_url}/{install.RELAY}"))
    return [path]


def checksums(out: Path) -> Path:
    files = sorted(p for p in out.rglob("*") if p.is_file() and p.name != "SHA256SUMS")
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(out)}" for p in files]
    path = out / "SHA256SUMS"
    path.write_text("\n".join(lines) + "\n")
    return path


def release(settings: Settings, tag: str | None = None) -> list[Path]:
    """Build every artifact into ``settings.out`` (which must be empty or missing); returns
    what was made, files and the one-click folder."""
    version = project_version()
    if tag is not None and tag != f"v{version}":
        raise SystemExit(f"release: the tag {tag!r} is not v{version}, the project's version")
    check_versions(version)
    out = settings.out
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"release: {out} is not empty; remove it or give another --out")
    out.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    if settings.python:
        made += build_python(out / "python")
    made += foundry(settings, version)
    made += roll20(settings, version)
    made += relay(settings)
    made.append(checksums(out))
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tools/release.py",
        description=__doc__.split("\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    defaults = Settings(out=Path("release"))
    parser.add_argument("--out", type=Path, default=defaults.out, help="folder to build into")
    parser.add_argument(
        "--release-url",
        default=defaults.release_url,
        help="where the latest release's files are downloaded from (Foundry's manifest URL and "
        "the relay's update URL are built on it)",
    )
    parser.add_argument(
        "--download-url",
        default=defaults.download_url,
        help="where this version's files stay ({version} is replaced): the module's zip",
    )
    parser.add_argument(
        "--roll20-userid",
        default=None,
        metavar="ID",
        help="the authors' Roll20 user id(s) for the one-click script.json (e.g. 1234567)",
    )
    parser.add_argument("--tag", default=None, help="refuse unless this git tag is vVERSION")
    parser.add_argument(
        "--no-python", action="store_true", help="skip the wheel and the sdist: the companions only"
    )
    args = parser.parse_args(argv)
    settings = Settings(
        out=args.out,
        release_url=args.release_url.rstrip("/"),
        download_url=args.download_url.rstrip("/"),
        roll20_userid=args.roll20_userid or None,
        python=not args.no_python,
    )
    made = release(settings, tag=args.tag)
    print(f"Release {project_version()} in {settings.out}/:")
    for path in made:
        print(f"  {path.relative_to(settings.out)}{'/' if path.is_dir() else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
