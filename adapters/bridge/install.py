"""One-URL install of the companions: the bridge serves each one's current build, so a GM with
only Python needs no Node, npm or clone.

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
  (Tampermonkey, Violentmonkey) offers to install a URL ending in ``.user.js``.

The built bundles are committed and ship as package data (``pyproject.toml``);
``tests/bridge/test_install.py`` checks that a fresh build reproduces each of them.
"""

from __future__ import annotations

import asyncio
import io
import json
import zipfile
from importlib import metadata, resources
from typing import Any

from aiohttp import web

FOUNDRY_MANIFEST = "/foundry/module.json"
ROLL20_MOD = "/roll20/VTTBridge.js"
ROLL20_RELAY = "/roll20/vttbridge-relay.user.js"

ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Every zip entry's timestamp (the earliest a zip can hold): the zip depends on its files
only."""


def _foundry(path: str) -> bytes:
    return resources.files("vttbridge.adapters.foundry").joinpath("module", path).read_bytes()


def _roll20(path: str) -> bytes:
    return resources.files("vttbridge.adapters.roll20").joinpath(path).read_bytes()


def mod_script() -> bytes:
    return _roll20("mod/VTTBridge.js")


def relay_userscript() -> bytes:
    return _roll20("relay/dist/vttbridge-relay.user.js")


def version() -> str:
    """The installed vttbridge's version (the module's own in a tree that is not installed)."""
    try:
        return metadata.version("vttbridge")
    except metadata.PackageNotFoundError:
        return str(json.loads(_foundry("module.json"))["version"])


def zip_path() -> str:
    return f"/foundry/vttbridge-{version()}.zip"


def foundry_manifest(base: str) -> dict[str, Any]:
    """``module.json`` as served from ``base`` (``http://host:port``, no trailing slash)."""
    manifest = json.loads(_foundry("module.json"))
    manifest.update(
        version=version(),
        url=f"{base}/",
        manifest=f"{base}{FOUNDRY_MANIFEST}",
        download=f"{base}{zip_path()}",
    )
    return manifest


def _manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()


def foundry_zip(base: str) -> bytes:
    """The module's zip: its manifest (as served from ``base``), the bundle, the styles and the
    languages, at the zip's root, in the manifest's order."""
    manifest = foundry_manifest(base)
    files = [("module.json", _manifest_bytes(manifest))]
    langs = [lang["path"] for lang in manifest.get("languages", [])]
    files += [(f, _foundry(f)) for f in [*manifest["esmodules"], *manifest["styles"], *langs]]
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


def urls(base: str) -> list[str]:
    """What ``vttbridge serve`` prints at start, for the GM to paste."""
    return [
        f"Foundry: paste {base}{FOUNDRY_MANIFEST} into Install Module (Manifest URL).",
        f"Roll20: Mod script {base}{ROLL20_MOD}; relay userscript {base}{ROLL20_RELAY}.",
    ]


# -- routes ------------------------------------------------------------------------------------

_JS = "text/javascript"
_NO_CACHE = {"Cache-Control": "no-cache"}


async def _manifest(request: web.Request) -> web.Response:
    body = _manifest_bytes(foundry_manifest(base_url(request)))
    return web.Response(body=body, content_type="application/json", headers=_NO_CACHE)


async def _zip(request: web.Request) -> web.Response:
    if request.path != zip_path():
        raise web.HTTPNotFound(text=f"This server has {zip_path()}.\n")
    body = await asyncio.to_thread(foundry_zip, base_url(request))
    name = zip_path().rsplit("/", 1)[1]
    headers = {**_NO_CACHE, "Content-Disposition": f'attachment; filename="{name}"'}
    return web.Response(body=body, content_type="application/zip", headers=headers)


async def _mod(request: web.Request) -> web.Response:
    return web.Response(body=mod_script(), content_type=_JS, charset="utf-8", headers=_NO_CACHE)


async def _relay(request: web.Request) -> web.Response:
    body = relay_userscript()
    return web.Response(body=body, content_type=_JS, charset="utf-8", headers=_NO_CACHE)


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get(FOUNDRY_MANIFEST, _manifest)
    router.add_get("/foundry/{name:vttbridge-[^/]+\\.zip}", _zip)
    router.add_get(ROLL20_MOD, _mod)
    router.add_get(ROLL20_RELAY, _relay)
