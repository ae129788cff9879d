"""This realm's keys (§18): the JWKS lists every key not retired, the newest signs, the private half is
stored only sealed, and the operator's command creates, rotates, retires and lists them."""
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from evidence.keys import listed_keys, unbase64url
from evidence.models import RealmKey
from tests.console.console import logged_in
from parley_site.sealing import unseal


def jwks():
    response = APIClient().get("/.well-known/parley-keys.json")
    assert response.status_code == 200, response.content
    return response


def keys(capsys, *arguments):
    call_command("parley_keys", *arguments)
    return capsys.readouterr().out


def test_the_jwks_lists_each_key_as_an_ed25519_okp_key_of_this_realm_without_a_token(realm_key, settings):
    [key] = jwks().json()["keys"]
    raw = unbase64url(key["x"])
    assert key == {"kty": "OKP", "crv": "Ed25519", "x": key["x"], "kid": hashlib.sha256(raw).hexdigest()[:16],
                   "use": "sig", "realm": settings.PARLEY_REALM}
    assert raw == bytes(realm_key.public_key) and key["kid"] == realm_key.kid


def test_the_jwks_may_be_cached_for_a_few_minutes_only(realm_key):
    assert jwks()["Cache-Control"] == "public, max-age=300"


def test_the_jwks_of_a_realm_without_keys_is_empty(db):
    assert jwks().json() == {"keys": []}


def test_the_jwks_takes_only_reads(db):
    response = APIClient().post("/.well-known/parley-keys.json")
    assert response.status_code == 405 and response.json()["error"]["reason"] == "method_not_allowed"


def test_the_private_key_is_stored_only_sealed_and_opens_to_the_listed_public_key(realm_key):
    stored = RealmKey.objects.get().sealed_private_key
    private = Ed25519PrivateKey.from_private_bytes(unseal(stored))
    assert private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) == bytes(realm_key.public_key)
    assert unseal(stored).hex() not in stored and private.private_bytes_raw() not in stored.encode()


def test_create_makes_the_first_key_and_refuses_a_second(db, capsys):
    assert "created signing key" in keys(capsys, "create")
    with pytest.raises(CommandError, match="rotate"):
        call_command("parley_keys", "create")
    assert RealmKey.objects.count() == 1


def test_create_if_missing_leaves_an_existing_key_alone(realm_key, capsys):
    assert keys(capsys, "create", "--if-missing") == ""
    assert list(RealmKey.objects.all()) == [realm_key]


def test_rotation_adds_a_key_that_signs_and_keeps_the_old_one_listed(realm_key, capsys):
    keys(capsys, "rotate")
    newest = listed_keys().first()
    assert newest != realm_key
    assert [key["kid"] for key in jwks().json()["keys"]] == [newest.kid, realm_key.kid]
    assert keys(capsys, "list").splitlines() == [
        f"{realm_key.kid}\tlisted\t{realm_key.created_at.isoformat()}",
        f"{newest.kid}\tsigning\t{newest.created_at.isoformat()}"]


def test_rotation_needs_a_key_to_rotate(db):
    with pytest.raises(CommandError, match="parley_keys create"):
        call_command("parley_keys", "rotate")


def test_a_retired_key_is_no_longer_listed(realm_key, capsys):
    keys(capsys, "rotate")
    assert "signs now" in keys(capsys, "retire", realm_key.kid)
    assert realm_key.kid not in {key["kid"] for key in jwks().json()["keys"]}
    assert f"{realm_key.kid}\tretired" in keys(capsys, "list")


def test_retiring_the_last_key_says_export_is_unavailable_until_a_new_one(realm_key, capsys):
    assert "export answers 503" in keys(capsys, "retire", realm_key.kid)
    assert jwks().json() == {"keys": []}


def test_retiring_an_unknown_or_retired_key_is_refused(realm_key):
    call_command("parley_keys", "retire", realm_key.kid)
    for kid in (realm_key.kid, "0" * 16):
        with pytest.raises(CommandError, match="no listed key"):
            call_command("parley_keys", "retire", kid)


def test_the_console_lists_the_keys_without_their_private_halves(staff_reader, realm_key):
    page = logged_in(staff_reader).get("/admin/evidence/realmkey/").content.decode()
    assert realm_key.kid in page and "signing" in page
    assert realm_key.sealed_private_key not in page
    detail = logged_in(staff_reader).get(f"/admin/evidence/realmkey/{realm_key.pk}/change/").content.decode()
    assert realm_key.kid in detail and realm_key.sealed_private_key not in detail
