"""The release tests use the test PostgreSQL where a part needs one."""

from tests.services import postgres, postgres_url  # noqa: F401
