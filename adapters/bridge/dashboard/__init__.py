"""The GM's dashboard: a web page the bridge serves at ``/`` that shows a world's rules state
live (the map with regions and watched cells, initiative, Readies, stand offs, FoE movement,
questions waiting, the rules' chat with the rules it cites), lets the GM answer a question, and
shows the session's timeline.

- ``view.py``: the view model, one pydantic model of everything the page shows;
- ``timeline.py``: the session's timeline, read from the world's log, for the page that asks;
- ``feed.py``: the ``/dashboard`` socket.io namespace that pushes the view, takes answers and
  answers the timeline;
- the page: ``index.html`` and the ES modules in ``src/`` (Preact + htm, socket.io-client),
  bundled by esbuild (``npm run build``) into ``dist/``, which is committed and ships with the
  Python package, so serving the page needs no Node.

This module serves the page's files.
"""

from __future__ import annotations

from importlib import resources

from aiohttp import web

ASSETS = {"dashboard.js": "text/javascript", "dashboard.css": "text/css"}

# The page loads only its own files and talks only to this server; the key typed into it
# must not leave for anywhere else.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def _file(*path: str) -> bytes:
    return resources.files(__name__).joinpath(*path).read_bytes()


async def _index(request: web.Request) -> web.Response:
    headers = {
        "Content-Security-Policy": CSP,
        "Cache-Control": "no-cache",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }
    return web.Response(
        body=_file("index.html"), content_type="text/html", charset="utf-8", headers=headers
    )


async def _asset(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    kind = ASSETS.get(name)
    if kind is None:
        raise web.HTTPNotFound()
    return web.Response(
        body=_file("dist", name),
        content_type=kind,
        charset="utf-8",
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/", _index)
    router.add_get("/dashboard/{name}", _asset)
