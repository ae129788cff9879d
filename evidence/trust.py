"""The other realms this one trusts (Parley v1 §18), each with its JWKS: added and removed by the operator
(parley_trust, the admin), read when an attestation is uploaded and whenever one is read."""
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from evidence.keys import key_id, unbase64url
from evidence.models import TrustedRealm

OWN_REALM = "own_realm"  # the code of the refusal a realm named like this one gets


def clean_jwks(realm, jwks):
    """{kid: raw public key} of a JWKS published by `realm`, or ValidationError saying what is wrong with
    it: only Ed25519 signing keys (OKP) of that realm, each kid the one §18 derives from its key."""
    if realm == settings.PARLEY_REALM:
        raise ValidationError(f"{realm!r} is this realm's own name: a realm never trusts itself by name",
                              code=OWN_REALM)
    return jwks_keys(realm, jwks)


def jwks_keys(realm, jwks):
    """{kid: raw public key} of `realm`'s JWKS, or ValidationError."""
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list) or not jwks["keys"]:
        raise ValidationError('a JWKS is {"keys": [...]} with at least one key')
    keys = {}
    for index, entry in enumerate(jwks["keys"]):
        keys.update([clean_jwk(realm, entry, f"keys[{index}]")])
    return keys


def clean_jwk(realm, entry, where):
    if not isinstance(entry, dict) or not {"kty", "crv", "x", "kid", "realm"} <= set(entry):
        raise ValidationError(f"{where}: a key needs kty, crv, x, kid and realm")
    if (entry["kty"], entry["crv"], entry.get("use", "sig")) != ("OKP", "Ed25519", "sig"):
        raise ValidationError(f"{where}: only Ed25519 signing keys (kty OKP, crv Ed25519, use sig)")
    if entry["realm"] != realm:
        raise ValidationError(f"{where}: the key's realm is {entry['realm']!r}, not {realm!r}")
    try:
        raw = unbase64url(entry["x"])
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise ValidationError(f"{where}: x must be the 32-byte public key, base64url without padding")
    if entry["kid"] != key_id(raw):
        raise ValidationError(f"{where}: kid must be the first 16 hex digits of SHA-256 of the key")
    return entry["kid"], raw


def realm_trust(actor, realm, jwks):
    """Trust `realm` with the keys of `jwks` (ValidationError when it is no JWKS of that realm); trusting
    it again replaces its JWKS, which is how a rotation or a retirement there reaches this realm. The
    operator's (parley_trust) or a moderator's (the admin) write. Returns (the TrustedRealm, created)."""
    clean_jwks(realm, jwks)
    return TrustedRealm.objects.update_or_create(
        realm=realm, defaults={"jwks": jwks, "added_at": timezone.now(), "added_by": actor.identity})


def realm_distrust(realm):
    """Stop trusting `realm`: its attestations read `trusted: false` at once. False when it was not
    trusted."""
    return TrustedRealm.objects.filter(realm=realm).delete()[0] > 0


def trusted_realm_names():
    return list(TrustedRealm.objects.order_by("realm").values_list("realm", flat=True))


def trusted_keys(realm):
    """{kid: raw public key} that `realm` lists, if this realm trusts it; else {}."""
    trusted = TrustedRealm.objects.filter(realm=realm).first()
    return jwks_keys(realm, trusted.jwks) if trusted else {}
