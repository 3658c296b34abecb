"""World keys: generated once, stored only as salted scrypt hashes, compared in constant time.

A key is a 32-byte random secret (``secrets.token_urlsafe``), so even a fast hash would resist
guessing; scrypt is used anyway so a leaked database file is no shortcut to a key. Verifying
costs a few tens of milliseconds, which the bridge pays once per connection (in a thread, off the
event loop), never per event. Keys are never logged: only :func:`fingerprint` may appear in logs.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

_SCHEME = "scrypt"
# n=2**14, r=8 is scrypt's interactive-login setting: ~16 MiB and ~30 ms per check.
_N, _R, _P = 2**14, 8, 1
_PREFIXES = {"gm": "vtt_gm_", "observer": "vtt_obs_"}


def new_key(role: str = "gm") -> str:
    """A fresh key; the prefix tells a GM which of the two keys they are looking at."""
    return _PREFIXES[role] + secrets.token_urlsafe(32)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hash_key(key: str, *, n: int = _N, r: int = _R, p: int = _P) -> str:
    """``scrypt$n$r$p$salt$digest``: everything needed to verify, nothing that reveals the key."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(key.encode(), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"{_SCHEME}${n}${r}${p}${_b64(salt)}${_b64(digest)}"


def verify_key(key: str, stored: str | None) -> bool:
    """True when ``key`` matches the stored hash. Malformed input is simply a mismatch."""
    if not stored or not isinstance(key, str) or not key or len(key) > 512:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != _SCHEME:
            return False
        got = hashlib.scrypt(
            key.encode(), salt=_unb64(salt), n=int(n), r=int(r), p=int(p), dklen=32
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, _unb64(digest))


def fingerprint(key: str) -> str:
    """A short, non-reversible tag for logs and support ("key …a1b2c3"), never the key itself."""
    return hashlib.sha256(key.encode()).hexdigest()[:8]
