"""§21 with §20: a record per room, room moderators read their rooms' scopes, a room verifier's refutation
holds at once, a move carries a thread's outcomes to its new room's scope, and no record ever includes an
outcome of a thread its reader may not see."""
import pytest

from forum.actors import Actor
from reputation.selectors import counted, read_record
from tests.conftest import Agent
from tests.reputation.conftest import assert_claim, claim_act, sealed_claim


@pytest.fixture
def operator():
    return Actor.for_operator("tests")


@pytest.fixture
def room(db, operator):
    from rooms.services import room_create

    def make(slug, **fields):
        return f"rm_{room_create(operator, {'slug': slug, 'name': slug.title(), **fields}).pk}"

    return make


@pytest.fixture
def appoint(operator):
    from rooms.services import appointment_add

    def add(room, token, role="moderator"):
        appointment_add(operator, room, token.identity, role)

    return add


@pytest.fixture
def member(operator):
    from rooms.services import member_add

    def add(room, token):
        member_add(operator, room, token.identity)

    return add


def record_of(agent, identity="me"):
    return agent.get(f"/api/v1/reputation/{identity}")


def test_each_room_has_its_own_scope_and_global_counts_every_room(as_alice, as_bob, as_vera, room, run_refreshes):
    lab = room("lab")
    sealed_claim(as_alice, as_bob, as_vera, thread=as_alice.ask("In general?"))
    sealed_claim(as_alice, as_bob, as_vera, statement="Other.", thread=as_alice.ask("In the lab?", room=lab))
    run_refreshes()
    answer = record_of(as_alice).json()
    assert answer["global"]["outcomes"] == {"sealed": 2}
    assert set(answer["rooms"]) == {"rm_1", lab}
    assert answer["rooms"][lab]["outcomes"] == {"sealed": 1} and answer["rooms"][lab]["alpha"] == 2.0


def test_a_room_moderator_reads_only_the_scopes_of_its_rooms(as_alice, as_bob, as_vera, carol, room, appoint,
                                                            run_refreshes):
    lab = room("lab")
    appoint(lab, carol)
    sealed_claim(as_alice, as_bob, as_vera, thread=as_alice.ask("In general?"))
    sealed_claim(as_alice, as_bob, as_vera, statement="Other.", thread=as_alice.ask("In the lab?", room=lab))
    run_refreshes()
    answer = record_of(Agent(carol), as_alice.identity).json()
    assert answer["global"] is None and list(answer["rooms"]) == [lab]
    listed = Agent(carol).get(f"/api/v1/reputation/{as_alice.identity}/outcomes", room=lab)
    assert [item["room"] for item in listed.json()["items"]] == [lab]
    refused = Agent(carol).get(f"/api/v1/reputation/{as_alice.identity}/outcomes")
    assert refused.status_code == 403 and refused.json()["error"]["detail"]["right"] == "lock"


def test_a_record_never_includes_outcomes_of_threads_its_reader_may_not_see(as_alice, as_bob, as_vera, alice,
                                                                            bob, vera, room, member, run_refreshes):
    secret = room("secret", visibility="private")
    for token in (alice, bob, vera):
        member(secret, token)
    sealed_claim(as_alice, as_bob, as_vera, thread=as_alice.ask("Hidden?", room=secret))
    sealed_claim(as_alice, as_bob, as_vera, statement="Open.", thread=as_alice.ask("Open?"))
    run_refreshes()
    from rooms.services import member_remove

    member_remove(Actor.for_operator("tests"), secret, alice.identity)  # alice no longer sees the first
    own = record_of(as_alice).json()
    assert own["global"]["outcomes"] == {"sealed": 1} and set(own["rooms"]) == {"rm_1"}
    assert [outcome.room for outcome in counted(Actor.for_token(alice), alice.identity)] == ["rm_1"]
    everything = read_record(Actor.for_operator("tests"), alice.identity)
    assert everything["global"]["outcomes"] == {"sealed": 2}


def test_a_refutation_by_a_room_verifier_holds_at_once(as_alice, as_bob, carol, room, appoint, run_refreshes):
    lab = room("lab")
    appoint(lab, carol, "verifier")
    thread = as_alice.ask("In the lab?", room=lab)
    claim = assert_claim(as_alice, thread)
    claim_act(Agent(carol), "refute", claim, thread)
    run_refreshes()
    assert record_of(as_alice).json()["global"]["outcomes"] == {"refuted": 1}


def test_a_refutation_by_an_ordinary_line_waits_for_hold_days(as_alice, as_bob, run_refreshes):
    thread = as_alice.ask("Is it so?")
    claim = assert_claim(as_alice, thread)
    claim_act(as_bob, "refute", claim, thread)
    run_refreshes()
    answer = record_of(as_alice).json()["global"]
    assert answer["outcomes"] == {} and answer["pending"] == 1


def test_an_overturn_through_the_api_counts_against_the_refuter(as_alice, as_bob, as_carol, as_vera,
                                                                 run_refreshes):
    thread = as_alice.ask("Is it so?")
    claim = assert_claim(as_alice, thread, "Water boils at 100 C at sea level.")
    claim_act(as_bob, "refute", claim, thread)
    sealed_claim(as_carol, as_alice, as_vera, statement="Water boils at 100 C at sea level.", thread=thread)
    run_refreshes()
    refuter = record_of(Agent(as_bob.token)).json()["global"]
    assert refuter["outcomes"] == {"overturned": 1}
    assert record_of(as_alice).json()["global"]["outcomes"] == {"attest_held": 1}  # its refuted no longer counts


def test_a_move_carries_a_threads_outcomes_to_the_new_rooms_scope(as_alice, as_bob, as_vera, as_mod, room,
                                                                  run_refreshes):
    lab = room("lab")
    thread, _ = sealed_claim(as_alice, as_bob, as_vera)
    run_refreshes()
    assert as_mod.post(f"/api/v1/threads/{thread}/move", {"room": lab}).status_code == 200
    run_refreshes()
    assert set(record_of(as_mod, as_alice.identity).json()["rooms"]) == {lab}
