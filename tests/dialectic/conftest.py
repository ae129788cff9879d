"""Dialectic personas and helpers: vera holds `verify`; alice's thread carries alice's claim."""
import pytest

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
