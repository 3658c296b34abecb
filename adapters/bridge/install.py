"""The companions as a GM installs them: served by the bridge (one URL each, so a GM with only
Python needs no Node, npm or clone), and built the same way into a public release
(``tools/release.py``), whose URLs a hosted Foundry can reach.

- ``/foundry/module.json``: the Foundry module's manifest, to paste into Foundry's *Install
  Module* dialog. Its ``manifest`` and ``download`` URLs are built from the request (its host,
  and the ``X-Forwarded-Proto``/``-Host``/``-Prefix`` a reverse proxy sets), its version is
  the installed vttbridge package's.
- ``/foundry/vttbridge-<version>.zip``: the module as Foundry installs it, made on request
  from the files that ship with the package (that manifest, the built bundle, the styles,
  the languages).
  The same request gives the same bytes: fixed timestamps and order.
- ``/roll20/VTTBridge.js``: the Mod script, to paste into a game's *Mod (API) Scripts* page.
- ``/roll20/vttbridge-relay.user.js``: the relay userscript; a userscript manager
  (Tampermonkey, Violentmonkey) offers to install a URL ending in ``.user.js``. Its
  ``@updateURL``/``@downloadURL`` point at this same address, so the relay follows the bridge
  it came from; the committed build points them at the project's latest public release.

The built bundles are committed and ship as package data (``pyproject.toml``);
``tests/bridge/test_install.py`` checks that a fresh build reproduces each of them.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import zipfile
from collections.abc import Iterable
from importlib import metadata, resources
from typing import Any

from aiohttp import web

HOME = "https://github.com/vttbridge/vttbridge"
"""The project's home. Its releases hold the companions for a Foundry or a GM that cannot reach
a bridge's own address (``tools/release.py`` makes them)."""
LATEST_RELEASE = f"{HOME}/releases/latest/download"
"""Where the newest public release's files are (GitHub's convention): the default of the
release's URL setting, and what the relay's committed build checks for updates."""

FOUNDRY_MANIFEST = "/foundry/module.json"
ROLL20_MOD = "/roll20/VTTBridge.js"
RELAY = "vttbridge-relay.user.js"
ROLL20_RELAY = f"/roll20/{RELAY}"

ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Every zip entry's timestamp (the earliest a zip can hold): the zip depends on its files
only."""


def _foundry(path: str) -> bytes:
    return resources.files("vttbridge.adapters.foundry").joinpath("module", path).read_bytes()


def _roll20(path: str) -> bytes:
    return resources.files("vttbridge.adapters.roll20").joinpath(path).read_bytes()


def mod_script() -> bytes:
    return _roll20("mod/VTTBridge.js")


_UPDATE_LINE = re.compile(rb"^(// @(?:updateURL|downloadURL)[ \t]+)\S+$", re.MULTILINE)


def relay_userscript(url: str | None = None) -> bytes:
    """The relay's build; with ``url``, its ``@updateURL`` and ``@downloadURL`` (where a
    userscript manager looks for a newer relay) are ``url`` instead of the latest release."""
    body = _roll20(f"relay/dist/{RELAY}")
    if url is None:
        return body
    head, sep, rest = body.partition(b"// ==/UserScript==")
    return _UPDATE_LINE.sub(lambda m: m.group(1) + url.encode(), head) + sep + rest


def version() -> str:
    """The installed vttbridge's version (the module's own in a tree that is not installed)."""
    try:
        return metadata.version("vttbridge")
    except metadata.PackageNotFoundError:
        return str(json.loads(_foundry("module.json"))["version"])


def zip_path() -> str:
    return f"/foundry/vttbridge-{version()}.zip"


def foundry_manifest(*, manifest: str, download: str, url: str | None = None) -> dict[str, Any]:
    """The module's ``module.json`` with this version, installed from ``manifest`` (the URL
    Foundry checks for updates) and ``download`` (the zip of this version); ``url``, the
    module's page, stays the project's home unless given."""
    data = json.loads(_foundry("module.json"))
    data.update(version=version(), manifest=manifest, download=download)
    if url is not None:
        data["url"] = url
    return data


def served_manifest(base: str) -> dict[str, Any]:
    """``module.json`` as served from ``base`` (``http://host:port``, no trailing slash)."""
    return foundry_manifest(
        manifest=f"{base}{FOUNDRY_MANIFEST}", download=f"{base}{zip_path()}", url=f"{base}/"
    )


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """A manifest as a file: indented JSON with a final newline."""
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()


def foundry_zip(manifest: dict[str, Any]) -> bytes:
    """The module's zip with ``manifest`` as its ``module.json`` (Foundry checks that it is the
    manifest it installed from), the bundle, the styles and the languages, at the zip's root,
    in the manifest's order."""
    files = [("module.json", manifest_bytes(manifest))]
    langs = [lang["path"] for lang in manifest.get("languages", [])]
    files += [(f, _foundry(f)) for f in [*manifest["esmodules"], *manifest["styles"], *langs]]
    return zip_files(files)


def zip_files(files: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip of ``files`` (name, content), in that order, that depends on them only: fixed
    timestamps and modes, wherever and whenever it is made."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix, wherever it was made
            info.external_attr = 0o644 << 16
            zf.writestr(info, data, compresslevel=9)
    return buf.getvalue()


def base_url(request: web.Request) -> str:
    """The URL this server is reached at, as the requester sees it (behind a reverse proxy,
    from the headers it sets)."""
    h = request.headers
    proto = h.get("X-Forwarded-Proto", "").split(",")[0].strip() or request.scheme
    host = h.get("X-Forwarded-Host", "").split(",")[0].strip() or request.host
    prefix = "/" + h.get("X-Forwarded-Prefix", "").strip().strip("/")
    return f"{proto}://{host}{prefix.rstrip('/')}"


# -- routes ------------------------------------------------------------------------------------

_JS = "text/javascript"
_NO_CACHE = {"Cache-Control": "no-cache"}


async def _manifest(request: web.Request) -> web.Response:
    body = manifest_bytes(served_manifest(base_url(request)))
    return web.Response(body=body, content_type="application/json", headers=_NO_CACHE)


async def _zip(request: web.Request) -> web.Response:
    if request.path != zip_path():
        raise web.HTTPNotFound(text=f"This server has {zip_path()}.\n")
    body = await asyncio.to_thread(foundry_zip, served_manifest(base_url(request)))
    name = zip_path().rsplit("/", 1)[1]
    headers = {**_NO_CACHE, "Content-Disposition": f'attachment; filename="{name}"'}
    return web.Response(body=body, content_type="application/zip", headers=headers)


async def _mod(request: web.Request) -> web.Response:
    return web.Response(body=mod_script(), content_type=_JS, charset="utf-8", headers=_NO_CACHE)


async def _relay(request: web.Request) -> web.Response:
    body = relay_userscript(f"{base_url(request)}{ROLL20_RELAY}")
    return web.Response(body=body, content_type=_JS, charset="utf-8", headers=_NO_CACHE)


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get(FOUNDRY_MANIFEST, _manifest)
    router.add_get("/foundry/{name:vttbridge-[^/]+\\.zip}", _zip)
    router.add_get(ROLL20_MOD, _mod)
    router.add_get(ROLL20_RELAY, _relay)
