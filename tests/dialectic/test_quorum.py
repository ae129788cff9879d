"""§18 quorum verification: the instance's quorum and an assert's own, fixed on the claim; a claim stays
supported until that many distinct lines have verified it, a human's verification sealing at once; every
verification is an event; one line verifies once; a refutation beats a partial quorum; the same answers over
MCP. tests/dialectic/test_concurrency.py has the quorum's concurrent verifications."""
import jsonschema
import pytest

from forum.envelope import envelope_shape
from forum.dispatch import OPERATIONS
from tests.console.console import grant, logged_in
from tests.conftest import Agent
from tests.dialectic.conftest import URL_PROOF, act, assert_claim, claim_events, read, supported_claim, verify
from tests.forum.expect import nothing_stored, refused
from tests.mcp_bridge.conftest import McpAgent, refusal


@pytest.fixture
def quorum_of(settings):
    """quorum_of(n): the instance asks n verifications of every claim asserted from now on."""
    def set_quorum(need):
        settings.PARLEY_VERIFY_QUORUM = need
    return set_quorum


def test_the_manifest_publishes_the_instance_quorum(db, agent, quorum_of):
    assert agent(None).get("/api/v1/manifest").json()["profiles"]["dialectic"]["quorum"] == 1
    quorum_of(3)
    manifest = agent(None).get("/api/v1/manifest").json()
    assert manifest["profiles"]["dialectic"]["quorum"] == 3
    jsonschema.validate(manifest, OPERATIONS["get_manifest"].output_schema)


def test_the_envelope_schema_offers_quorum_from_the_instance_value_to_eight(quorum_of):
    quorum_of(2)
    schema = envelope_shape().json_schema()["properties"]["quorum"]
    assert (schema["type"], schema["minimum"], schema["maximum"]) == ("integer", 2, 8)


def test_every_claim_reads_its_quorum_and_verifications(as_bob, claim):
    body = read(as_bob, claim)
    assert body["quorum"] == {"have": 0, "need": 1}
    assert body["verifications"] == [] and body["verified_by"] is None


def test_a_claim_asserted_without_quorum_takes_the_instance_value(as_alice, as_bob, thread, quorum_of):
    quorum_of(2)
    claim = assert_claim(as_alice, thread)
    assert read(as_bob, claim)["quorum"] == {"have": 0, "need": 2}


def test_an_assert_may_ask_more_and_the_need_is_fixed_on_the_claim(as_alice, as_bob, thread, quorum_of):
    response = as_alice.say("assert", "The sky is blue.", thread=thread, quorum=3)
    assert response.status_code == 201, response.json()
    claim = response.json()["claim"]
    assert claim["quorum"] == {"have": 0, "need": 3}
    quorum_of(5)
    assert read(as_bob, claim["id"])["quorum"]["need"] == 3


@pytest.mark.parametrize("instance, asked", [(1, 0), (1, 9), (1, -1), (1, "many"), (1, True), (3, 2)])
def test_it_refuses_a_quorum_outside_the_instance_value_to_eight(as_alice, thread, quorum_of, instance, asked):
    quorum_of(instance)
    with nothing_stored():
        refused(as_alice.say("assert", "The sky is blue.", thread=thread, quorum=asked), 400, "invalid_body",
                field="quorum")


@pytest.mark.parametrize("kind", ["attest", "refute", "verify"])
def test_quorum_is_accepted_with_assert_only(as_vera, thread, claim, kind):
    with nothing_stored():
        refused(act(as_vera, kind, claim, thread, quorum=2), 400, "invalid_body", field="quorum")


def test_a_verification_short_of_the_quorum_leaves_the_claim_supported_and_is_an_event(
        as_alice, as_bob, as_vera, thread):
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    before = as_bob.get(f"/api/v1/threads/{thread}").json()["thread"]
    response = verify(as_vera, claim, thread, **{"from": {"extension": "checker"}})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["claim"]["state"], body["claim"]["certainty"]) == ("supported", "supported")
    assert body["claim"]["quorum"] == {"have": 1, "need": 2}
    assert [(v["by"], v["proof"]) for v in body["claim"]["verifications"]] == [
        ({"identity": as_vera.identity, "extension": "checker"}, [])]
    assert body["claim"]["verified_by"] is None
    assert claim_events(claim)[-1] == ("verify", "supported", "supported", as_vera.identity)
    # A claim act leaves the thread's state and its turn alone, sealing or not (§10).
    assert (body["thread"]["state"], body["thread"]["awaiting"]) == (before["state"], before["awaiting"])


def test_the_verification_that_completes_the_quorum_seals_the_claim(as_alice, as_bob, as_vera, as_victor,
                                                                     thread):
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    assert verify(as_vera, claim, thread).status_code == 201
    response = act(as_victor, "verify", claim, thread, proof=[URL_PROOF])
    assert response.status_code == 201, response.json()
    body = response.json()["claim"]
    assert body["state"] == body["certainty"] == "verified"
    assert body["quorum"] == {"have": 2, "need": 2}
    assert [v["by"]["identity"] for v in body["verifications"]] == [as_vera.identity, as_victor.identity]
    assert body["verifications"][1]["proof"] == [URL_PROOF]
    assert body["verified_by"] == {"identity": as_victor.identity, "extension": None}
    assert claim_events(claim)[-2:] == [("verify", "supported", "supported", as_vera.identity),
                                        ("verify", "supported", "verified", as_victor.identity)]


def test_a_humans_verification_seals_at_once(as_alice, as_bob, as_vera, as_human, thread):
    claim = supported_claim(as_alice, as_bob, thread, quorum=3)
    assert verify(as_vera, claim, thread).status_code == 201
    response = verify(as_human, claim, thread)
    assert response.status_code == 201, response.json()
    body = response.json()["claim"]
    assert body["state"] == "verified" and body["quorum"] == {"have": 2, "need": 3}
    assert body["verified_by"] == {"identity": "human:hannah", "extension": None}
    assert claim_events(claim)[-1] == ("verify", "supported", "verified", "human:hannah")


def test_with_the_default_quorum_the_first_verification_seals(as_bob, as_vera, thread, claim):
    assert act(as_bob, "attest", claim, thread).status_code == 201
    body = verify(as_vera, claim, thread).json()["claim"]
    assert body["state"] == "verified" and body["quorum"] == {"have": 1, "need": 1}
    assert claim_events(claim)[-1] == ("verify", "supported", "verified", as_vera.identity)


@pytest.mark.parametrize("extension", [None, "second-look"])
def test_a_line_verifying_twice_is_refused_whatever_the_extension(as_alice, as_bob, as_vera, thread, extension):
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    assert verify(as_vera, claim, thread).status_code == 201
    with nothing_stored():
        extra = {"from": {"extension": extension}} if extension else {}
        refused(verify(as_vera, claim, thread, **extra), 409, "invalid_transition", claim=claim,
                state="supported", kind="verify")


def test_a_refutation_beats_a_partly_verified_claim(as_alice, as_bob, as_carol, as_vera, thread):
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    assert verify(as_vera, claim, thread).status_code == 201
    response = act(as_carol, "refute", claim, thread)
    assert response.status_code == 201, response.json()
    body = response.json()["claim"]
    assert body["state"] == "refuted" and body["verified_by"] is None
    assert body["quorum"] == {"have": 1, "need": 2}
    assert claim_events(claim)[-1] == ("refute", "supported", "refuted", as_carol.identity)


def test_a_refuted_claim_takes_no_further_verification(as_alice, as_bob, as_carol, as_vera, as_victor, thread):
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    assert verify(as_vera, claim, thread).status_code == 201
    assert act(as_carol, "refute", claim, thread).status_code == 201
    with nothing_stored():
        refused(verify(as_victor, claim, thread), 409, "invalid_transition", state="refuted")


def test_every_quorum_member_needs_the_verify_right(as_alice, as_bob, as_vera, thread):
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    assert verify(as_vera, claim, thread).status_code == 201
    with nothing_stored():
        refused(verify(as_bob, claim, thread), 403, "token_right_missing", right="verify")


def test_the_asserting_line_is_no_quorum_member(as_bob, as_vera, as_victor, thread):
    claim = assert_claim(as_vera, thread, "Vera's own statement.", quorum=2)
    assert act(as_bob, "attest", claim, thread).status_code == 201
    assert verify(as_victor, claim, thread).status_code == 201
    with nothing_stored():
        refused(verify(as_vera, claim, thread), 409, "self_attest", claim=claim)


def test_only_a_supported_claim_takes_a_verification_towards_its_quorum(as_alice, as_vera, thread):
    claim = assert_claim(as_alice, thread, quorum=2)
    with nothing_stored():
        refused(verify(as_vera, claim, thread), 409, "invalid_transition", state="unverified")


def test_a_partial_quorum_reads_alike_through_rest_and_mcp(as_alice, as_bob, vera, victor, thread):
    assert_result = McpAgent(as_alice.token).call("post", {"kind": "assert", "body": "Over MCP.", "thread": thread,
                                                           "quorum": 2})
    assert assert_result["isError"] is False, assert_result
    claim = assert_result["structuredContent"]["claim"]["id"]
    assert act(as_bob, "attest", claim, thread).status_code == 201
    result = McpAgent(vera).call("post", {"kind": "verify", "body": "checked", "thread": thread, "claim": claim})
    written = result["structuredContent"]["claim"]
    assert written["quorum"] == {"have": 1, "need": 2} and written["state"] == "supported"
    assert written == read(Agent(vera), claim)
    assert McpAgent(victor).call("read_claim", {"claim": claim})["structuredContent"]["claim"] == written
    sealed = McpAgent(victor).call("post", {"kind": "verify", "body": "me too", "thread": thread, "claim": claim})
    assert sealed["structuredContent"]["claim"]["verified_by"]["identity"] == victor.identity


def test_a_second_verification_by_one_line_is_refused_alike_over_mcp(as_alice, as_bob, as_vera, vera, thread):
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    assert verify(as_vera, claim, thread).status_code == 201
    with nothing_stored():
        rest = verify(as_vera, claim, thread).json()["error"]
        mcp = McpAgent(vera).call("post", {"kind": "verify", "body": "see the proof", "thread": thread,
                                           "claim": claim})
        assert refusal(mcp) == {**rest, "status": 409}


def test_the_console_claim_page_shows_the_quorum_and_the_verifications(staff_reader, as_alice, as_bob, as_vera,
                                                                        thread):
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    assert verify(as_vera, claim, thread, **{"from": {"extension": "checker"}}).status_code == 201
    page = logged_in(staff_reader).get(f"/admin/dialectic/claim/{claim.removeprefix('cl_')}/change/")
    assert page.status_code == 200
    content = page.content.decode()
    assert "1 of 2 lines" in content
    assert f"{as_vera.identity}/checker at " in content



def test_a_moderators_verification_from_the_console_seals_at_once(django_user_model, as_alice, as_bob, as_vera,
                                                                   thread):
    mia = grant(django_user_model.objects.create_user("mia", password="pw-mia-12345", is_staff=True),
                "moderate_thread")
    claim = supported_claim(as_alice, as_bob, thread, quorum=3)
    assert verify(as_vera, claim, thread).status_code == 201
    response = logged_in(mia).post("/admin/dialectic/claim/", {
        "action": "verify", "_selected_action": [claim.removeprefix("cl_")], "apply": "1", "body": "Checked.",
        "proof_kind": "", "proof_ref": "", "proof_note": ""}, follow=True)
    assert response.status_code == 200
    body = read(as_bob, claim)
    assert body["state"] == "verified" and body["quorum"] == {"have": 2, "need": 3}
    assert body["verified_by"] == {"identity": "human:mia", "extension": None}
