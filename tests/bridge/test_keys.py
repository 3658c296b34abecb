"""World keys: hashed with a salt, checked in constant time."""

from __future__ import annotations

from adapters.bridge import keys


def test_hash_and_verify():
    key = keys.new_key("gm")
    assert key.startswith("vtt_gm_") and len(key) > 40
    stored = keys.hash_key(key)
    assert key not in stored
    assert keys.verify_key(key, stored)
    assert not keys.verify_key(key + "x", stored)
    assert not keys.verify_key("", stored)
    assert keys.hash_key(key) != stored  # salted


def test_malformed_hashes_never_match():
    key = keys.new_key("observer")
    assert key.startswith("vtt_obs_")
    for stored in (None, "", "scrypt$1$2", "bcrypt$16384$8$1$AA$AA", "scrypt$x$8$1$AA$AA"):
        assert not keys.verify_key(key, stored)


def test_fingerprint_does_not_reveal_the_key():
    key = keys.new_key()
    fp = keys.fingerprint(key)
    assert len(fp) == 8 and fp not in key
