"""World keys: generated once, stored only as salted keyed hashes, compared in constant time.

A key is a 32-byte random secret (``secrets.token_urlsafe``): 256 bits nobody can guess or
search, so a slow password hash buys nothing (it exists for passwords people choose). Each key
is stored as ``hmac-sha256$salt$digest``, HMAC-SHA-256 keyed with a random per-key salt:
checking one costs about a microsecond, and a leaked database file still shows nothing a key
could be found from. Databases written before stored salted scrypt hashes (``scrypt$...``,
~30-70 ms a check); :func:`verify_key` still reads them, and the bridge replaces each with the
fast form the first time its key is used (:func:`needs_rehash`). Keys are never logged.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

_FAST = "hmac-sha256"
_SCRYPT = "scrypt"
# n=2**14, r=8 was scrypt's interactive-login setting: ~16 MiB and ~30 ms per check.
_N, _R, _P = 2**14, 8, 1
_PREFIXES = {"gm": "vtt_gm_", "observer": "vtt_obs_"}
MAX_KEY = 512


def new_key(role: str = "gm") -> str:
    """A fresh key; the prefix tells a GM which of the two keys they are looking at."""
    return _PREFIXES[role] + secrets.token_urlsafe(32)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hash_key(key: str) -> str:
    """``hmac-sha256$salt$digest``: everything needed to verify, nothing that reveals the key."""
    salt = secrets.token_bytes(16)
    digest = hmac.digest(salt, key.encode(), "sha256")
    return f"{_FAST}${_b64(salt)}${_b64(digest)}"


def scrypt_hash(key: str, *, n: int = _N, r: int = _R, p: int = _P) -> str:
    """The slow form earlier versions stored (``scrypt$n$r$p$salt$digest``); made only to test
    that such databases still work and are upgraded."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(key.encode(), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"{_SCRYPT}${n}${r}${p}${_b64(salt)}${_b64(digest)}"


def needs_rehash(stored: str | None) -> bool:
    """Whether ``stored`` is the slow scrypt form (tens of milliseconds a check: run it off
    the event loop), to be replaced once its key is verified."""
    return stored is not None and stored.startswith(_SCRYPT + "$")


def verify_key(key: str, stored: str | None) -> bool:
    """True when ``key`` matches the stored hash. Malformed input is simply a mismatch."""
    if not stored or not isinstance(key, str) or not key or len(key) > MAX_KEY:
        return False
    try:
        scheme, *fields = stored.split("$")
        if scheme == _FAST and len(fields) == 2:
            salt, digest = fields
            got = hmac.digest(_unb64(salt), key.encode(), "sha256")
        elif scheme == _SCRYPT and len(fields) == 5:
            n, r, p, salt, digest = fields
            got = hashlib.scrypt(
                key.encode(), salt=_unb64(salt), n=int(n), r=int(r), p=int(p), dklen=32
            )
        else:
            return False
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, _unb64(digest))
