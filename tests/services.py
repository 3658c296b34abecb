"""The database servers some tests need: a real PostgreSQL and redis-server.

``.ci/services start DIR`` starts both on free loopback ports and prints the variables these
fixtures read: ``VTTBRIDGE_TEST_POSTGRES`` (a URL whose role may create schemas) and
``VTTBRIDGE_TEST_REDIS``. Without them a test that needs one is skipped, saying so; in CI
(``VTTBRIDGE_CI`` set, by ``.ci/run``) it fails instead, so CI never passes by skipping.

Each test gets a schema of its own (``postgres_url``): the URL names it as the search path,
so every connection the test makes, ``vttbridge serve`` subprocesses included, sees only its
tables. The schema is dropped after the test.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest

T = TypeVar("T")
POSTGRES_VAR = "VTTBRIDGE_TEST_POSTGRES"
REDIS_VAR = "VTTBRIDGE_TEST_REDIS"
BACKENDS = ["sqlite", "postgresql"]


def _missing(what: str) -> None:
    text = f'{what} (`eval "$(.ci/services start /tmp/vttbridge-services)"` starts one)'
    if os.environ.get("VTTBRIDGE_CI"):
        pytest.fail(f"CI needs this server: {text}", pytrace=False)
    pytest.skip(text)


def run_async(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to its end from synchronous code, in a loop of its own (a thread's,
    so that it works while a test's loop runs)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()  # type: ignore[arg-type]


def with_search_path(url: str, schema: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


async def _sql(url: str, *statements: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url, timeout=10)
    try:
        for sql in statements:
            await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def postgres() -> str:
    """The URL of the test PostgreSQL (see the module docstring)."""
    url = os.environ.get(POSTGRES_VAR)
    if not url:
        _missing(f"no PostgreSQL for this test: set {POSTGRES_VAR}")
    assert url is not None
    try:
        run_async(lambda: _sql(url, "SELECT 1"))
    except Exception as e:
        _missing(f"the PostgreSQL at {POSTGRES_VAR} does not answer ({e})")
    return url


@pytest.fixture
def postgres_url(postgres: str) -> Iterator[str]:
    """A URL to a new, empty schema of the test PostgreSQL, dropped after the test."""
    schema = f"test_{secrets.token_hex(6)}"
    run_async(lambda: _sql(postgres, f"CREATE SCHEMA {schema}"))
    yield with_search_path(postgres, schema)
    run_async(lambda: _sql(postgres, f"DROP SCHEMA {schema} CASCADE"))


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The URL of the test redis-server (see the module docstring)."""
    url = os.environ.get(REDIS_VAR)
    if not url:
        _missing(f"no redis-server for this test: set {REDIS_VAR}")
    assert url is not None
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port or 6379), timeout=5) as s:
            s.sendall(b"PING\r\n")
            answer = s.recv(64)
    except OSError as e:
        _missing(f"the redis-server at {REDIS_VAR} does not answer ({e})")
    if not answer.startswith(b"+PONG"):
        _missing(f"the server at {REDIS_VAR} is no redis ({answer!r})")
    return url


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Where a test keeps its worlds, once per backend: a new SQLite file, or a new schema
    of the test PostgreSQL (``--db`` accepts either)."""
    if request.param == "sqlite":
        return tmp_path / "bridge.sqlite3"
    return request.getfixturevalue("postgres_url")
