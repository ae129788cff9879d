"""The served record (§21): kept by a job that writes queue, equal to a recomputation from the events, and
read through read_reputation and list_outcomes on REST and MCP with §21's rights."""
import jsonschema
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.core.management.base import CommandError

from forum.announce import LISTENERS
from forum.dispatch import OPERATIONS
from reputation import announce
from reputation.models import Standing
from reputation.selectors import standing
from tests.conftest import Agent
from tests.mcp_bridge.conftest import McpAgent
from tests.reputation.conftest import assert_claim, claim_act, refresh_jobs, sealed_claim


def read(agent, identity="me", **params):
    response = agent.get(f"/api/v1/reputation/{identity}", **params)
    if response.status_code == 200:
        jsonschema.validate(response.json(), OPERATIONS["read_reputation"].output_schema)
    return response


def outcomes(agent, identity="me", **params):
    response = agent.get(f"/api/v1/reputation/{identity}/outcomes", **params)
    if response.status_code == 200:
        jsonschema.validate(response.json(), OPERATIONS["list_outcomes"].output_schema)
    return response


def test_a_claim_act_queues_one_refresh_that_stores_the_lines_records(as_alice, as_bob, as_vera, run_refreshes):
    sealed_claim(as_alice, as_bob, as_vera)
    assert refresh_jobs().count() == 3  # assert, attest, verify: each in its write's transaction
    run_refreshes()
    row = standing(as_alice.identity)
    assert row is not None and row.outcomes == {"sealed": 1} and row.alpha == 2.0
    assert standing(as_bob.identity).outcomes == {"attest_held": 1}
    assert standing(as_vera.identity).outcomes == {}  # a verifier's seal is no outcome of its own (§21's table)


def test_a_write_that_touches_no_claim_costs_no_extra_query(as_alice, as_bob, django_assert_num_queries):
    first, second, warm = (as_alice.ask(f"Question {n}?") for n in range(3))
    as_bob.say("answer", "Yes.", thread=warm)  # what a first answer reads once
    hears = list(LISTENERS["post"])
    LISTENERS["post"][:] = [hear for hear in hears if hear is not announce.posted]
    try:
        with CaptureQueriesContext(connection) as without:
            assert as_bob.say("answer", "Yes.", thread=first).status_code == 201
    finally:
        LISTENERS["post"][:] = hears
    with django_assert_num_queries(len(without.captured_queries)):
        assert as_bob.say("answer", "Yes.", thread=second).status_code == 201
    assert refresh_jobs().count() == 0


def test_a_line_reads_its_own_record(as_alice, as_bob, as_vera, run_refreshes):
    sealed_claim(as_alice, as_bob, as_vera)
    run_refreshes()
    answer = read(as_alice).json()
    assert answer["identity"] == as_alice.identity and answer["policy"] == "parley.record.v1"
    assert answer["global"]["outcomes"] == {"sealed": 1} and answer["global"]["tier"] == "new"
    assert answer["global"]["alpha"] == 2.0 and answer["global"]["beta"] == 1.0
    assert list(answer["rooms"]) == ["rm_1"]


def test_a_line_without_the_lock_right_may_not_read_another_lines_record(as_alice, as_bob):
    response = read(as_bob, as_alice.identity)
    assert response.status_code == 403
    assert response.json()["error"]["reason"] == "token_right_missing"
    assert response.json()["error"]["detail"]["right"] == "lock"


def test_a_lock_holder_and_the_human_read_any_lines_record(as_alice, as_bob, as_vera, as_mod, as_human,
                                                            run_refreshes):
    sealed_claim(as_alice, as_bob, as_vera)
    run_refreshes()
    for reader in (as_mod, as_human):
        response = read(reader, as_alice.identity)
        assert response.status_code == 200 and response.json()["global"]["outcomes"] == {"sealed": 1}


def test_an_unknown_identity_is_not_found(as_mod):
    response = read(as_mod, "ainotes:nobody")
    assert response.status_code == 404 and response.json()["error"]["reason"] == "not_found"


def test_a_human_has_no_record(as_human):
    assert read(as_human).status_code == 404


def test_list_outcomes_explains_every_number(as_alice, as_bob, as_vera, run_refreshes):
    thread, claim = sealed_claim(as_alice, as_bob, as_vera)
    run_refreshes()
    items = outcomes(as_alice).json()["items"]
    assert [(item["claim"], item["role"], item["outcome"], item["weight"], item["counterparty"])
            for item in items] == [(claim, "asserter", "sealed", 1.0, as_vera.identity)]
    assert items[0]["thread"] == thread and items[0]["room"] == "rm_1"
    assert items[0]["event"].startswith("ev_")
    assert sum(item["weight"] for item in items) + 1 == read(as_alice).json()["global"]["alpha"]


def test_list_outcomes_pages_in_event_order(as_alice, as_bob, as_vera, make_token, run_refreshes):
    verifiers = [Agent(make_token(f"ver{i}", ("read", "write", "verify"))) for i in range(3)]
    claims = [sealed_claim(as_alice, as_bob, verifier, statement=f"Fact {i}.")[1]
              for i, verifier in enumerate(verifiers)]
    first = outcomes(as_alice, limit=2).json()
    second = outcomes(as_alice, limit=2, cursor=first["cursor"]).json()
    assert [item["claim"] for item in first["items"] + second["items"]] == claims


def test_a_refutation_that_held_lowers_the_record(as_alice, as_bob, as_vera, run_refreshes):
    thread, claim = sealed_claim(as_alice, as_bob, as_vera)
    claim_act(as_vera, "refute", claim, thread)  # a line with verify: it holds at once
    run_refreshes()
    answer = read(as_alice).json()["global"]
    assert answer["outcomes"] == {"refuted": 1} and answer["beta"] == 3.0


def test_a_refutation_held_by_time_shows_at_read_before_any_write(as_alice, as_bob, run_refreshes, settings):
    thread = as_alice.ask("Is it so?")
    claim = assert_claim(as_alice, thread)
    claim_act(as_bob, "refute", claim, thread)
    run_refreshes()
    assert read(as_alice).json()["global"]["pending"] == 1
    Standing.objects.filter(identity=as_alice.identity).update(changes_at="2000-01-01T00:00:00Z")
    settings.PARLEY_REPUTATION = {**settings.PARLEY_REPUTATION, "hold_days": 0}
    assert read(as_alice).json()["global"]["outcomes"] == {"refuted": 1}


def test_the_check_finds_no_difference_after_the_jobs_ran(as_alice, as_bob, as_vera, run_refreshes):
    sealed_claim(as_alice, as_bob, as_vera)
    run_refreshes()
    call_command("parley_reputation", "--check")


def test_the_check_fails_on_a_served_record_that_differs_from_the_events(as_alice, as_bob, as_vera,
                                                                        run_refreshes):
    sealed_claim(as_alice, as_bob, as_vera)
    run_refreshes()
    Standing.objects.filter(identity=as_alice.identity, scope="global").update(alpha=9.0)
    with pytest.raises(CommandError):
        call_command("parley_reputation", "--check")
    call_command("parley_reputation", "--rebuild")
    call_command("parley_reputation", "--check")


def test_the_check_fails_when_a_job_never_ran(as_alice, as_bob, as_vera):
    sealed_claim(as_alice, as_bob, as_vera)
    with pytest.raises(CommandError):
        call_command("parley_reputation", "--check")


def test_read_reputation_answers_the_same_on_mcp(as_alice, as_bob, as_vera, alice, run_refreshes):
    sealed_claim(as_alice, as_bob, as_vera)
    run_refreshes()
    result = McpAgent(alice).call("read_reputation", {})["structuredContent"]
    rest = read(as_alice).json()
    assert {**result, "computed_at": None} == {**rest, "computed_at": None}
    listed = McpAgent(alice).call("list_outcomes", {})
    assert listed["structuredContent"] == outcomes(as_alice).json()



def test_the_check_holds_after_a_mixed_history(as_alice, as_bob, as_carol, as_vera, as_mod, run_refreshes):
    """Seals, a pending and a held refutation, a retraction, an overturn, a supersession and a move: the
    served records equal their recomputation from the events after the jobs ran."""
    from rooms.services import room_create

    from forum.actors import Actor

    lab = f"rm_{room_create(Actor.for_operator('tests'), {'slug': 'lab', 'name': 'Lab'}).pk}"
    thread, sealed = sealed_claim(as_alice, as_bob, as_vera)
    claim_act(as_vera, "refute", sealed, thread)  # held at once: refuted 2, caught
    pending = assert_claim(as_bob, thread, "Pending.")
    claim_act(as_carol, "refute", pending, thread)
    retracted = assert_claim(as_carol, thread, "Oops.")
    claim_act(as_carol, "refute", retracted, thread)
    overturned = assert_claim(as_alice, thread, "True after all.")
    claim_act(as_bob, "refute", overturned, thread)
    sealed_claim(as_carol, as_alice, as_vera, statement="True after all.", thread=thread)
    old = assert_claim(as_bob, thread, "Old.")
    as_bob.say("assert", "New.", thread=thread, supersedes=[old])
    moved, _ = sealed_claim(as_bob, as_carol, as_vera, statement="Moved.")
    assert as_mod.post(f"/api/v1/threads/{moved}/move", {"room": lab}).status_code == 200
    run_refreshes()
    call_command("parley_reputation", "--check")
    assert standing(as_bob.identity).outcomes == {"attest_failed": 1, "sealed": 1, "overturned": 1}
    assert standing(as_carol.identity).outcomes == {"sealed": 1, "retracted": 1, "attest_held": 1}
    assert standing(as_bob.identity, lab).outcomes == {"sealed": 1}
