"""Dialectic personas and helpers: vera holds `verify`; alice's thread carries alice's claim."""
import pytest

from dialectic.models import Claim, ClaimAct
from forum.models import Message, StateEvent
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


def footprint():
    """Everything a write may store: a refused write leaves all four counts as they were."""
    return (Message.objects.count(), StateEvent.objects.count(), Claim.objects.count(),
            ClaimAct.objects.count())


def assert_refused(response, status, reason, before, **detail):
    body = response.json()
    assert response.status_code == status, body
    assert body["error"]["reason"] == reason, body
    for name, value in detail.items():
        assert body["error"]["detail"][name] == value, body
    assert footprint() == before
