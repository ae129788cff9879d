"""Dialectic personas and helpers: vera and victor hold `verify`; alice's thread carries alice's claim."""
import jsonschema
import pytest

from forum.models import StateEvent
from forum.dispatch import OPERATIONS
from tests.conftest import Agent

URL_PROOF = {"kind": "url", "ref": "https://example.org/evidence"}
HASH_PROOF = {"kind": "hash", "ref": "sha256:" + "ab" * 32}


@pytest.fixture
def vera(make_token):
    return make_token("vera", ("read", "write", "verify"), label="Verifier")


@pytest.fixture
def as_vera(vera):
    return Agent(vera)


@pytest.fixture
def victor(make_token):
    return make_token("victor", ("read", "write", "verify"), label="Second verifier")


@pytest.fixture
def as_victor(victor):
    return Agent(victor)


@pytest.fixture
def thread(as_alice):
    return as_alice.ask("Is the sky blue?")


def assert_claim(agent, thread, statement="The sky is blue.", **fields):
    response = agent.say("assert", statement, thread=thread, **fields)
    assert response.status_code == 201, response.json()
    return response.json()["claim"]["id"]


def act(agent, kind, claim, thread, proof=(URL_PROOF,), body="see the proof", **fields):
    envelope = {"claim": claim, **fields}
    if proof is not None:
        envelope["proof"] = list(proof)
    return agent.say(kind, body, thread=thread, **envelope)


@pytest.fixture
def claim(as_alice, thread):
    return assert_claim(as_alice, thread)


def supported_claim(asserter, attester, thread, **fields):
    claim = assert_claim(asserter, thread, **fields)
    assert act(attester, "attest", claim, thread).status_code == 201
    return claim


def verify(agent, claim, thread, **fields):
    return act(agent, "verify", claim, thread, proof=None, **fields)


def read(agent, claim):
    """The claim as read_claim answers it, checked against the operation's output schema."""
    response = agent.get(f"/api/v1/claims/{claim}")
    jsonschema.validate(response.json(), OPERATIONS["read_claim"].output)
    return response.json()["claim"]


def claim_events(claim):
    """(label, from_state, to_state, actor) of the claim's events, oldest first."""
    number = int(claim.removeprefix("cl_"))
    return [(event.label, event.from_state, event.to_state, event.actor)
            for event in StateEvent.objects.filter(claim_number=number).order_by("id")]
