"""Evidence fixtures: artifacts uploaded over REST (raw bytes) and their readers; a claim verified here,
this realm's key, and another realm (`acme`) that signs with a key of its own, its JWKS trusted here or not."""
import base64
import hashlib
import json
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from evidence.attestations import in_toto_statement, signed_envelope
from evidence.keys import jwk, key_create, key_id
from evidence.models import Artifact
from evidence.trust import realm_trust
from forum.actors import Actor
from tests.conftest import Agent
from tests.dialectic.conftest import act, assert_claim
from tests.forum.expect import world

TEXT = b"The build log says: 3 tests failed.\n"


def artifact_id(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def upload(agent, data=TEXT, content_type="text/plain", **headers):
    return agent.client.post("/api/v1/artifacts", data, content_type=content_type, **headers)


def stored_world():
    """Everything an upload or a redaction could change: the forum's world and the artifacts."""
    return world(), list(Artifact.objects.order_by("id").values())


def counted_writes(stored):
    """How many writes the tokens' rate limits counted, in a stored_world()."""
    return sum(count for _, count in stored[0].token_writes)


def assert_nothing_stored_but_counts(before, after, counted):
    """Nothing changed but `counted` more writes counted against the rate limit: every upload counts, a
    refused one too (issue 22), and nothing else of it is stored."""
    assert (before[0]._replace(token_writes=None), before[1]) == (after[0]._replace(token_writes=None), after[1]), \
        "a refused request changed stored state"
    assert counted_writes(after) - counted_writes(before) == counted


@contextmanager
def nothing_stored(uploads_counted=0):
    """A refused request changed nothing: neither the forum nor the artifacts; `uploads_counted`: the
    refused uploads in the block, each counted against its token's rate limit."""
    before = stored_world()
    yield
    assert_nothing_stored_but_counts(before, stored_world(), uploads_counted)


@pytest.fixture
def stored(as_alice):
    """An artifact alice uploaded: its id."""
    response = upload(as_alice)
    assert response.status_code == 201, response.content
    return response.json()["artifact"]["id"]


OTHER_REALM = "acme"
OPERATOR = Actor.for_operator("tests")


@pytest.fixture
def realm_key(db):
    return key_create()


@pytest.fixture
def verified_claim(as_alice, as_bob, make_token):
    """cl_<n> that alice asserted, bob attested and vera verified."""
    as_vera = Agent(make_token("vera", ("read", "write", "verify")))
    thread = as_alice.ask("Is the sky blue?")
    claim = assert_claim(as_alice, thread)
    assert act(as_bob, "attest", claim, thread).status_code == 201
    assert act(as_vera, "verify", claim, thread).status_code == 201
    return claim


def envelope_json(response):
    assert response.status_code == 200, response.content
    return response.json()


def statement_of(envelope):
    return json.loads(base64.standard_b64decode(envelope["payload"]))


@dataclass
class Realm:
    """Another realm's signing key: it exports attestations as a Parley server of that realm would."""
    name: str
    private_key: Ed25519PrivateKey

    @property
    def raw_public(self):
        return self.private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def kid(self):
        return key_id(self.raw_public)

    @property
    def jwks(self):
        return {"keys": [jwk(self.name, self.raw_public)]}

    def statement(self, claim_number=7, statement="The sky is blue.", state="verified"):
        claim = {"id": f"cl_{claim_number}", "statement": statement, "state": state, "certainty": state}
        return in_toto_statement(self.name, claim, "2026-12-01T10:00:00Z")

    def sign(self, statement=None, kid=None):
        """The envelope's bytes, signed by this realm's key under `kid` (default its own)."""
        payload = json.dumps(statement or self.statement()).encode()
        return json.dumps(signed_envelope(payload, kid or self.kid, self.private_key)).encode()


@pytest.fixture
def acme():
    return Realm(OTHER_REALM, Ed25519PrivateKey.generate())


@pytest.fixture
def trusted_acme(db, acme):
    realm_trust(OPERATOR, acme.name, acme.jwks)
    return acme
