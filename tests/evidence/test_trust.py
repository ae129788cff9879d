"""Trusted realms (§18): the operator trusts another realm with its JWKS (`parley_trust`), moderators do
it in the admin; a realm named like this one, or a JWKS that is not that realm's Ed25519 keys, is refused;
the manifest lists the JWKS address and the trusted realms' names."""
import json

import pytest
from django.contrib.admin.utils import quote
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import CommandError, call_command

from evidence.keys import jwk
from evidence.models import TrustedRealm
from tests.conftest import Agent
from tests.console.console import logged_in
from tests.dialectic.conftest import act, assert_claim
from tests.evidence.conftest import Realm, upload

CHANGELIST = "/admin/evidence/trustedrealm/"


@pytest.fixture
def jwks_file(tmp_path, acme):
    path = tmp_path / "acme-keys.json"
    path.write_text(json.dumps(acme.jwks))
    return path


def trust(capsys, *arguments):
    call_command("parley_trust", *arguments)
    return capsys.readouterr().out


def spoiled(jwks, **changes):
    return {"keys": [{**jwks["keys"][0], **changes}]}


def test_the_operator_trusts_a_realm_with_its_jwks_file(db, acme, jwks_file, capsys):
    assert trust(capsys, "add", "acme", str(jwks_file)) == f"trusted acme with keys {acme.kid}\n"
    stored = TrustedRealm.objects.get()
    assert (stored.realm, stored.jwks, stored.added_by) == ("acme", acme.jwks, "operator:parley_trust")
    assert trust(capsys, "list").startswith(f"acme\t{acme.kid}\t")


def test_adding_a_trusted_realm_again_replaces_its_keys(trusted_acme, tmp_path, capsys):
    rotated = Realm("acme", Ed25519PrivateKey.generate())
    path = tmp_path / "rotated.json"
    path.write_text(json.dumps(rotated.jwks))
    assert trust(capsys, "add", "acme", str(path)).startswith("updated acme")
    assert TrustedRealm.objects.get().jwks == rotated.jwks


def test_a_realm_named_like_this_one_is_refused(db, acme, tmp_path, settings):
    path = tmp_path / "own.json"
    path.write_text(json.dumps({"keys": [jwk(settings.PARLEY_REALM, acme.raw_public)]}))
    with pytest.raises(CommandError, match="this realm's own name"):
        call_command("parley_trust", "add", settings.PARLEY_REALM, str(path))
    assert not TrustedRealm.objects.exists()


@pytest.mark.parametrize("changes, says", [
    ({"realm": "globex"}, "the key's realm is 'globex', not 'acme'"),
    ({"kty": "EC"}, "only Ed25519 signing keys"),
    ({"crv": "X25519"}, "only Ed25519 signing keys"),
    ({"use": "enc"}, "only Ed25519 signing keys"),
    ({"x": "AAAA"}, "x must be the 32-byte public key"),
    ({"kid": "0123456789abcdef"}, "kid must be the first 16 hex digits"),
])
def test_a_jwks_that_is_not_the_realms_ed25519_keys_is_refused(db, acme, tmp_path, changes, says):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(spoiled(acme.jwks, **changes)))
    with pytest.raises(CommandError, match=says):
        call_command("parley_trust", "add", "acme", str(path))
    assert not TrustedRealm.objects.exists()


@pytest.mark.parametrize("content", ["not json", "{}", '{"keys": []}', '{"keys": [1]}'])
def test_a_file_that_is_no_jwks_is_refused(db, tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError):
        call_command("parley_trust", "add", "acme", str(path))
    assert not TrustedRealm.objects.exists()


def test_the_operator_removes_a_trusted_realm(trusted_acme, capsys):
    assert trust(capsys, "remove", "acme") == "no longer trusting acme\n"
    assert not TrustedRealm.objects.exists()
    with pytest.raises(CommandError, match="not trusted"):
        call_command("parley_trust", "remove", "acme")


def test_the_manifest_lists_the_jwks_address_and_the_trusted_realms(trusted_acme):
    manifest = Agent(None).get("/api/v1/manifest").json()
    section = manifest["profiles"]["evidence"]
    assert (section["keys"], section["trusted_realms"]) == ("/.well-known/parley-keys.json", ["acme"])


def test_a_moderator_trusts_a_realm_in_the_admin(console, acme):
    response = console.post(f"{CHANGELIST}add/", {"realm": "acme", "jwks": json.dumps(acme.jwks)}, follow=True)
    assert response.status_code == 200
    stored = TrustedRealm.objects.get()
    assert (stored.realm, stored.jwks, stored.added_by) == ("acme", acme.jwks, "human:mia")
    assert acme.kid in console.get(CHANGELIST).content.decode()


def test_the_admin_refuses_this_realms_own_name_on_the_realm_field(console, acme, settings):
    jwks = {"keys": [jwk(settings.PARLEY_REALM, acme.raw_public)]}
    response = console.post(f"{CHANGELIST}add/", {"realm": settings.PARLEY_REALM, "jwks": json.dumps(jwks)})
    assert response.status_code == 200 and "this realm&#x27;s own name" in response.content.decode()
    assert response.context["adminform"].form.errors.keys() == {"realm"}
    assert not TrustedRealm.objects.exists()


def test_the_admin_refuses_a_jwks_of_another_realm(console, acme):
    response = console.post(f"{CHANGELIST}add/", {"realm": "acme", "jwks": json.dumps(spoiled(acme.jwks, realm="x"))})
    assert response.context["adminform"].form.errors.keys() == {"jwks"}
    assert not TrustedRealm.objects.exists()


def test_a_moderator_removes_a_trusted_realm_in_the_admin(console, trusted_acme):
    pk = TrustedRealm.objects.get().pk
    response = console.post(f"{CHANGELIST}{pk}/delete/", {"post": "yes"}, follow=True)
    assert response.status_code == 200 and not TrustedRealm.objects.exists()


def test_staff_without_moderation_only_read_the_trusted_realms(staff_reader, trusted_acme):
    reader = logged_in(staff_reader)
    assert reader.get(CHANGELIST).status_code == 200
    assert reader.get(f"{CHANGELIST}add/").status_code == 403
    pk = TrustedRealm.objects.get().pk
    assert reader.post(f"{CHANGELIST}{pk}/delete/", {"post": "yes"}).status_code == 403
    assert TrustedRealm.objects.exists()


def test_a_claims_page_shows_the_attestations_its_proofs_cite_and_whether_they_are_trusted_now(
        console, as_alice, as_bob, trusted_acme):
    attestation = upload(as_bob, trusted_acme.sign(), content_type="application/json").json()["artifact"]["id"]
    thread = as_alice.ask("Is the sky blue, as acme says?")
    claim = assert_claim(as_alice, thread)
    assert act(as_bob, "attest", claim, thread, proof=[{"kind": "artifact", "ref": attestation}]).status_code == 201
    page = f"/admin/dialectic/claim/{claim.removeprefix('cl_')}/change/"
    shown = console.get(page).content.decode()
    assert attestation in shown and "realm <strong>acme</strong> found cl_7 verified" in shown
    assert trusted_acme.kid in shown and "signature checked at upload; trusted now" in shown
    artifact_page = console.get(f"/admin/evidence/artifact/{quote(attestation)}/change/").content.decode()
    assert "realm <strong>acme</strong> found cl_7 verified" in artifact_page
    call_command("parley_trust", "remove", "acme")
    assert "NOT trusted now" in console.get(page).content.decode()
