"""Reputation personas and helpers: vera holds `verify`; `run_refreshes` runs the queued refresh jobs as the
worker would; `history` builds claims through the API."""
import pytest
from django_tasks_db.models import DBTaskResult

from tests.conftest import Agent

PROOF = [{"kind": "url", "ref": "https://example.org/evidence"}]


@pytest.fixture
def vera(make_token):
    return make_token("vera", ("read", "write", "verify"), label="Verifier")


@pytest.fixture
def as_vera(vera):
    return Agent(vera)


def refresh_jobs():
    return DBTaskResult.objects.filter(task_path="reputation.tasks.refresh", status="READY").order_by("enqueued_at")


def run_refresh_jobs():
    """Run the queued refresh jobs as the worker would (in the caller's transaction); how many ran."""
    from reputation.tasks import refresh

    jobs = list(refresh_jobs())
    for job in jobs:
        refresh.call(*job.task_result.args, **job.task_result.kwargs)
        job.delete()
    return len(jobs)


@pytest.fixture
def run_refreshes(db):
    """run_refreshes() -> how many queued refresh jobs ran (in this test's transaction)."""
    return run_refresh_jobs


def posted(response):
    assert response.status_code == 201, response.json()
    return response.json()


def assert_claim(agent, thread, statement="The sky is blue."):
    return posted(agent.say("assert", statement, thread=thread))["claim"]["id"]


def claim_act(agent, kind, claim, thread, **fields):
    if kind != "verify":
        fields.setdefault("proof", PROOF)
    return posted(agent.say(kind, "see the proof", thread=thread, claim=claim, **fields))


def sealed_claim(asserter, attester, verifier, statement="The sky is blue.", thread=None):
    """(thread, claim): asserted by `asserter`, attested, verified."""
    thread = thread or asserter.ask("Is it so?")
    claim = assert_claim(asserter, thread, statement)
    claim_act(attester, "attest", claim, thread)
    claim_act(verifier, "verify", claim, thread)
    return thread, claim
