"""Two Parley servers, two realms, two databases, two keys (§18): realm `acme` exports the attestation of
a claim it verified; this realm (`ainotes`), trusting acme with the JWKS fetched from acme's server,
accepts it as an artifact and a local `verify` cites it; a tampered payload, a key acme does not list and
an untrusted realm are each refused; acme's retirement of a key reaches here when its JWKS is added again.
And the envelope is checked the way another organisation would: with acme's JWKS and `cryptography` alone.

PostgreSQL only: real servers must see the test's committed data."""
import base64
import json
import os
import subprocess
import sys

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command
from django.db import connection

from bench.server import PROJECT_ROOT, GunicornServer, HttpAgent, database_url
from evidence.attestations import signed_envelope
from evidence.keys import key_id
from tests.evidence.test_export import check_with_jwks

ACME = "acme"
PROOF = [{"kind": "url", "ref": "https://example.org/sky"}]


@pytest.fixture
def acme_database(transactional_db):
    """A database of acme's own beside the test database (this realm's), migrated, dropped afterwards."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: a real server cannot see SQLite's in-transaction test data")
    direct = database_url(connection.settings_dict)
    name = f"{connection.settings_dict['NAME']}_acme"
    with psycopg.connect(direct.rsplit("/", 1)[0] + "/postgres", autocommit=True) as maintenance:
        maintenance.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        maintenance.execute(f'CREATE DATABASE "{name}"')
        url = direct.rsplit("/", 1)[0] + f"/{name}"
        try:
            acme_manage(url, "migrate", "--verbosity", "0")
            yield url
        finally:
            maintenance.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def acme_manage(database, *arguments):
    """`manage.py` as acme's operator runs it, on acme's database; its output."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "parley_site.settings_test", "DATABASE_URL": database,
           "PARLEY_REALM": ACME}
    done = subprocess.run([sys.executable, "manage.py", *arguments], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def acme_token(database, handle, rights):
    return acme_manage(database, "parley_token", "create", handle, "--rights", rights).splitlines()[-1]


def ok(answer, status=201):
    assert answer[0] == status, answer[1]
    return answer[1]


def refused_signatures(answer):
    status, body, _ = answer
    assert status == 400, body
    assert (body["error"]["reason"], body["error"]["detail"].get("field")) == ("invalid_body", "signatures"), body
    return body["error"]["message"]


def verified_claim_of(server, database):
    """A claim acme's agents assert, attest and verify on acme's server: its id."""
    alice, bob, vera = (HttpAgent(server, acme_token(database, handle, rights)) for handle, rights in [
        ("alice", "read,write"), ("bob", "read,write"), ("vera", "read,write,verify")])
    thread = ok(alice.post({"kind": "ask", "body": "Is the sky blue?"}))["thread"]["id"]
    claim = ok(alice.post({"kind": "assert", "body": "The sky is blue.", "thread": thread}))["claim"]["id"]
    ok(bob.post({"kind": "attest", "body": "Looked.", "thread": thread, "claim": claim, "proof": PROOF}))
    assert ok(vera.post({"kind": "verify", "body": "Checked.", "thread": thread, "claim": claim}))["claim"][
        "state"] == "verified"
    return bob, claim


def upload(agent, data):
    return agent.request("POST", "/api/v1/artifacts", data, {"Content-Type": "application/json"})


def trust_acme(acme_server, tmp_path):
    """This realm's operator saves acme's JWKS, fetched over HTTP, and trusts acme with it."""
    jwks = ok(HttpAgent(acme_server, None).get("/.well-known/parley-keys.json"), 200)
    path = tmp_path / "acme-keys.json"
    path.write_text(json.dumps(jwks))
    call_command("parley_trust", "add", ACME, str(path))
    return jwks


def tampered(envelope):
    statement = json.loads(base64.standard_b64decode(envelope["payload"]))
    statement["predicate"]["claim"]["state"] = "refuted"
    return {**envelope, "payload": base64.standard_b64encode(json.dumps(statement).encode()).decode()}


def signed_by_a_stranger(envelope):
    """The same Statement, signed by a key acme does not list."""
    stranger = Ed25519PrivateKey.generate()
    kid = key_id(stranger.public_key().public_bytes_raw())
    return signed_envelope(base64.standard_b64decode(envelope["payload"]), kid, stranger)


def test_an_attestation_travels_from_one_realm_to_another(acme_database, make_token, tmp_path):
    acme_manage(acme_database, "parley_keys", "create")
    here_url = database_url(connection.settings_dict)
    with GunicornServer(acme_database, workers=1, PARLEY_REALM=ACME) as acme, \
            GunicornServer(here_url, workers=1) as here:
        exporter, claim = verified_claim_of(acme, acme_database)
        exported = ok(exporter.get(f"/api/v1/claims/{claim}/attestation"), 200)
        jwks = trust_acme(acme, tmp_path)
        assert check_with_jwks(exported, jwks)["realm"] == ACME  # the independent check

        uploader = HttpAgent(here, make_token("uma"))
        stored = ok(upload(uploader, json.dumps(exported).encode()))["artifact"]
        assert stored["attests"] == {"realm": ACME, "claim": claim, "state": "verified", "certainty": "verified",
                                     "signed_at": stored["attests"]["signed_at"],
                                     "kid": exported["signatures"][0]["keyid"], "trusted": True}

        asker = HttpAgent(here, make_token("ada"))
        verifier = HttpAgent(here, make_token("val", ("read", "write", "verify")))
        thread = ok(asker.post({"kind": "ask", "body": "Is the sky blue, as acme found?"}))["thread"]["id"]
        local = ok(asker.post({"kind": "assert", "body": "The sky is blue.", "thread": thread}))["claim"]["id"]
        cited = [{"kind": "artifact", "ref": stored["id"], "note": "acme verified it"}]
        ok(uploader.post({"kind": "attest", "body": "acme says so.", "thread": thread, "claim": local, "proof": cited}))
        sealed = ok(verifier.post({"kind": "verify", "body": "Checked acme's signature.", "thread": thread,
                                   "claim": local, "proof": cited}))["claim"]
        assert (sealed["state"], sealed["attestations"][0]["proof"]) == ("verified", cited)

        assert "does not verify" in refused_signatures(upload(uploader, json.dumps(tampered(exported)).encode()))
        assert "signed by no key" in refused_signatures(
            upload(uploader, json.dumps(signed_by_a_stranger(exported)).encode()))
        status, body, _ = uploader.mcp("put_artifact", {"text": json.dumps(tampered(exported))})
        assert (status, body["error"]["reason"], body["error"]["detail"]) == (400, "invalid_body",
                                                                              {"field": "signatures"})

        # acme rotates and retires the key that signed; its new JWKS, added again here, withdraws the old kid.
        acme_manage(acme_database, "parley_keys", "rotate")
        acme_manage(acme_database, "parley_keys", "retire", exported["signatures"][0]["keyid"])
        trust_acme(acme, tmp_path)
        assert ok(uploader.get(f"/api/v1/artifacts/{stored['id']}/meta"), 200)["artifact"]["attests"][
            "trusted"] is False
        fresh = ok(exporter.get(f"/api/v1/claims/{claim}/attestation"), 200)
        assert ok(upload(uploader, json.dumps(fresh).encode()))["artifact"]["attests"]["trusted"] is True

        call_command("parley_trust", "remove", ACME)
        again = ok(exporter.get(f"/api/v1/claims/{claim}/attestation"), 200)
        assert "is not trusted here" in refused_signatures(upload(uploader, json.dumps(again).encode()))
