"""The bridge's HTTP side: ``GET /status`` (text), ``/healthz`` (JSON), ``/api/worlds/{world}
/state`` (a world's state, with its key), and the pages that need no world (the dashboard's
page, the companions' downloads)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from aiohttp import web
from vttbridge.adapters.bridge import dashboard, install
from vttbridge.adapters.bridge.auth import Refused
from vttbridge.adapters.bridge.hosting import WorldUnavailable
from vttbridge.adapters.bridge.metrics import CONTENT_TYPE
from vttbridge.adapters.bridge.protocol import PROTOCOL_VERSION, ErrorCode

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.server import Bridge

KEY_HEADER = "X-World-Key"

_HTTP_STATUS = {
    ErrorCode.TOO_MANY_ATTEMPTS: 429,
    ErrorCode.UNKNOWN_WORLD: 404,
    ErrorCode.WRONG_KEY: 403,
}


class HttpApi:
    """The answers of one bridge's HTTP endpoints."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def add_routes(self, app: web.Application) -> None:
        add_pages(app.router)
        app.router.add_get("/status", self._index)
        app.router.add_get("/healthz", self._health)
        app.router.add_get("/api/worlds/{world}/state", self._state)
        app.router.add_get("/metrics", self._metrics)

    def index_text(self) -> str:
        b = self.bridge
        lines = [
            "vttbridge is running.",
            f"Worlds: {len(b.worlds)}; connected clients: {len(b.sessions)}.",
            "Adapters: " + ", ".join(f"{a.name} at {a.ns}" for a in b.registry) + ".",
        ]
        return "\n".join(lines) + "\n"

    async def health(self) -> tuple[int, dict[str, Any]]:
        b = self.bridge
        failed = b.store.failed if b.store is not None else None
        body: dict[str, Any] = {
            "ok": failed is None and not b.closing,
            "protocol": PROTOCOL_VERSION,
            "node": b.hosting.node,
            "worlds": len(b.worlds),
            "serving": sorted(b.worlds),
            "clients": len(b.sessions),
            "uptime": round(time.time() - b.started_at, 1),
        }
        try:  # which node runs which world, across the cluster (the leases)
            body["owners"] = await b.hosting.owners()
        except Exception as e:  # the database is away: the rest still says so
            body["owners"] = None
            failed = failed or e
        if failed is not None:
            body["error"] = f"the database cannot be written: {failed}"
        return (200 if body["ok"] else 503), body

    async def state(self, name: str, key: str, address: str = "") -> tuple[int, dict[str, Any]]:
        """A world's state as ``GET /api/worlds/{world}/state`` answers it."""
        if not key:
            return _error(
                401,
                "missing_key",
                f"Send the world key in the Authorization: Bearer header (or {KEY_HEADER}).",
            )
        try:
            await self.bridge.auth.check_key(name, key, address)
        except Refused as r:
            status, body = _error(_HTTP_STATUS.get(r.code, 403), r.code, r.message)
            if r.retry_after is not None:
                body["error"]["retry_after"] = r.retry_after
            return status, body
        try:
            host = await self.bridge.hosting.get(name)
        except WorldUnavailable as e:
            return _error(503, ErrorCode.WORLD_UNAVAILABLE, str(e))
        if host is None:
            return _error(404, ErrorCode.UNKNOWN_WORLD, f"There is no world {name!r}.")
        local = host.here
        if local is None:
            by = await self.bridge.hosting.served_by(name)
            return _error(
                503,
                ErrorCode.WORLD_UNAVAILABLE,
                f"World {name!r} is served by another node{by}; read its state there.",
            )
        callbacks = local.runtime.callbacks
        while callbacks is not None and callbacks.busy:  # a script changes the world now
            await callbacks.until_idle()
        return 200, local.state()

    async def _index(self, request: web.Request) -> web.Response:
        return web.Response(text=self.index_text())

    async def _health(self, request: web.Request) -> web.Response:
        status, body = await self.health()
        return web.json_response(body, status=status)

    async def _metrics(self, request: web.Request) -> web.Response:
        metrics = self.bridge.metrics
        return web.Response(
            body=metrics.exposition(),
            status=200 if metrics.on else 404,
            headers={"Content-Type": CONTENT_TYPE},
        )

    async def _state(self, request: web.Request) -> web.Response:
        status, body = await self.state(
            request.match_info["world"], request_key(request), request.remote or ""
        )
        return state_response(status, body)


def add_pages(router: web.UrlDispatcher) -> None:
    """The routes that need no world: the dashboard's page and the companions' downloads."""
    dashboard.add_routes(router)
    install.add_routes(router)


def state_response(status: int, body: dict[str, Any]) -> web.Response:
    """The HTTP response of :meth:`HttpApi.state`'s answer."""
    retry = body.get("error", {}).get("retry_after") if status == 429 else None
    headers = {"Retry-After": str(retry)} if retry is not None else None
    return web.json_response(body, status=status, headers=headers)


def request_key(request: web.Request) -> str:
    """The world key an HTTP request carries (``Authorization: Bearer`` or the header)."""
    key = request.headers.get(KEY_HEADER, "")
    auth = request.headers.get("Authorization", "")
    if not key and auth.lower().startswith("bearer "):
        key = auth[7:].strip()
    return key


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"ok": False, "error": {"code": code, "message": message}}
