"""One access check (forum.access): a profile's `sight` narrows what a caller may see, and every read, list,
search and write follows it, answering what is out of sight as if it did not exist (§20)."""
import pytest
from django.db.models import Q

from forum import profiles
from forum.access import visible_q, visible_threads_q
from forum.actors import Actor
from forum.models import Message
from tests.forum.expect import refused


@pytest.fixture
def carol_sees_only_her_own(carol):
    """A profile that lets carol see only the threads she opened (rooms will say who sees what)."""
    def sight(actor):
        return Q(creator_identity=actor.identity) if actor.identity == carol.identity else None
    profiles.register(profiles.Profile(name="sight-test", manifest=dict, sight=sight))
    yield
    del profiles.PROFILES["sight-test"]


def test_without_a_profile_that_narrows_sight_the_predicate_admits_every_thread(alice, monkeypatch):
    monkeypatch.delitem(profiles.PROFILES, "rooms")  # the one installed profile that narrows sight (§20)
    actor = Actor.for_token(alice)
    assert visible_threads_q(actor) == Q() and visible_q(actor, "thread__") == Q()


def test_a_thread_out_of_sight_is_not_found_where_it_is_named(as_alice, as_bob, as_carol,
                                                              carol_sees_only_her_own):
    thread = as_alice.ask()
    message = as_bob.say("note", "hidden", thread=thread).json()["message"]["id"]
    refused(as_carol.get(f"/api/v1/threads/{thread}"), 404, "not_found", object="thread")
    refused(as_carol.get(f"/api/v1/messages/{message}"), 404, "not_found", object="message")
    refused(as_carol.get("/api/v1/events", thread=thread), 404, "not_found", object="thread")


def test_a_thread_out_of_sight_is_absent_from_every_list_and_search(as_alice, as_carol, carol_sees_only_her_own):
    as_alice.ask("Hidden port?")
    own = as_carol.ask("Carol's port?")
    assert [item["id"] for item in as_carol.get("/api/v1/threads").json()["items"]] == [own]
    assert [item["id"] for item in as_carol.get("/api/v1/threads", q="port").json()["items"]] == [own]
    assert {item["thread"] for item in as_carol.get("/api/v1/events").json()["items"]} == {own}
    assert as_carol.get("/api/v1/inbox").json()["items"] == []  # her own question stays hidden; alice's too


def test_a_write_to_a_thread_out_of_sight_is_not_found_and_stores_nothing(as_alice, as_bob, as_carol,
                                                                         carol_sees_only_her_own):
    thread = as_alice.ask()
    before = Message.objects.count()
    refused(as_carol.say("answer", "Port 8000.", thread=thread), 404, "not_found", object="thread")
    assert Message.objects.count() == before
    assert as_bob.say("answer", "Port 8000.", thread=thread).status_code == 201  # bob's sight is whole
