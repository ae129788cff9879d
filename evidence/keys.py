"""This realm's Ed25519 keys (Parley v1 §18): created, rotated and retired by the operator, listed as a
JWKS, and the one that signs. `cryptography` makes and holds the keys; nothing here is cryptography of our
own."""
import base64
import functools
import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from evidence.models import RealmKey
from parley_site.errors import Unavailable
from parley_site.sealing import InvalidToken, seal, unseal

CREATE_COMMAND = "manage.py parley_keys create"
ROTATE_COMMAND = "manage.py parley_keys rotate"


def key_id(raw_public):
    """§18: the first 16 hex digits of SHA-256 of the raw public key."""
    return hashlib.sha256(raw_public).hexdigest()[:16]


def base64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unbase64url(text):
    """The bytes of unpadded base64url `text`; ValueError when it is not that."""
    if not isinstance(text, str) or "=" in text:
        raise ValueError("not unpadded base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwk(realm, raw_public):
    return {"kty": "OKP", "crv": "Ed25519", "x": base64url(raw_public), "kid": key_id(raw_public), "use": "sig",
            "realm": realm}


def listed_keys():
    """The keys this realm lists, newest first: every one not retired."""
    return RealmKey.objects.filter(retired_at__isnull=True).order_by("-created_at", "-id")


def jwks():
    """§18: this realm's JWKS."""
    return {"keys": [jwk(settings.PARLEY_REALM, bytes(key.public_key)) for key in listed_keys()]}


def key_create():
    """A new key, which signs from now on; the ones before stay listed until retired. The operator's write
    (parley_keys create and rotate)."""
    private = Ed25519PrivateKey.generate()
    raw_public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    raw_private = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return RealmKey.objects.create(kid=key_id(raw_public), public_key=raw_public,
                                   sealed_private_key=seal(raw_private), created_at=timezone.now())


@transaction.atomic
def key_retire(kid):
    """Takes the key out of the JWKS for good: it signs no more, and realms that refresh their copy of the
    JWKS trust it no more. Returns the key; LookupError when no listed key has that kid."""
    key = listed_keys().select_for_update().filter(kid=kid).first()
    if key is None:
        raise LookupError(f"no listed key {kid!r}")
    key.retired_at = timezone.now()
    key.save(update_fields=["retired_at"])
    return key


def signing_key():
    """(kid, the Ed25519 private key) of the key that signs now, or `unavailable` naming the command that
    creates one (§18)."""
    key = listed_keys().only("kid", "sealed_private_key").first()
    if key is None:
        raise Unavailable(f"this realm has no signing key; its operator creates one with `{CREATE_COMMAND}`",
                          fix=CREATE_COMMAND)
    try:
        return key.kid, _private_key(key.kid, key.sealed_private_key)
    except InvalidToken:  # sealed under a key the settings no longer hold (PARLEY_SEALING_KEYS, SECRET_KEY)
        raise Unavailable(f"this realm's signing key {key.kid} cannot be opened with the configured sealing "
                          f"keys; restore the old one to PARLEY_SEALING_KEYS, or make a new key with "
                          f"`{ROTATE_COMMAND}`", fix=ROTATE_COMMAND) from None


@functools.lru_cache(maxsize=8)
def _private_key(kid, sealed):
    # Keyed by kid and sealed text, so a cached key is always the one the row holds now.
    return Ed25519PrivateKey.from_private_bytes(unseal(sealed))
