"""Sealed secrets: what the server must be able to use but a database dump alone must not reveal.

Fernet (AES-128-CBC with HMAC-SHA256, from `cryptography`) under the keys of `PARLEY_SEALING_KEYS`: the first
seals, every one opens, so a new key goes first and the old one stays until everything was sealed again. With
none set, one key is derived from SECRET_KEY, which lives in the environment, never in the database.
"""
import base64
import functools

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

__all__ = ["seal", "unseal", "InvalidToken"]


def _derived_key(secret_key):
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"parley sealing v1").derive(
        secret_key.encode())
    return base64.urlsafe_b64encode(derived)


@functools.cache
def _box(keys, secret_key):
    try:
        return MultiFernet([Fernet(key) for key in keys] or [Fernet(_derived_key(secret_key))])
    except ValueError as exc:
        raise ImproperlyConfigured(f"PARLEY_SEALING_KEYS must be Fernet keys (Fernet.generate_key()): {exc}")


def _current_box():
    return _box(tuple(settings.PARLEY_SEALING_KEYS), settings.SECRET_KEY)


def seal(secret: bytes) -> str:
    return _current_box().encrypt(secret).decode("ascii")


def unseal(sealed: str) -> bytes:
    """The secret; InvalidToken when no configured key opens it (a key was dropped too early)."""
    return _current_box().decrypt(sealed.encode("ascii"))
