"""§7: who may mark, reopen, confirm and dismiss; §8: whose mark is a proposal."""
import pytest

from tests.forum.expect import accepted, nothing_stored, refused
from tests.spec import SIDE_STATES

MARKS = ["decide", "close", "defer", "obsolete", "reject"]


def answered_thread(thread_in):
    return thread_in("answered", confirmed=True)  # every mark of MARKS is legal from here


@pytest.mark.parametrize("kind", MARKS)
def test_the_creator_marks_her_own_thread_as_a_proposal(kind, thread_in, as_alice, events_of):
    thread = answered_thread(thread_in)
    marked = accepted(as_alice.say(kind, "marked", thread=thread))["thread"]
    assert (marked["state_origin"], marked["state_confirmed_at"], marked["state_confirmed_by"]) == ("llm", None, None)
    assert events_of(thread)[-1]["confirmed_at"] is None


@pytest.mark.parametrize("kind", MARKS)
def test_another_extension_of_the_creators_line_has_the_creators_authority(kind, thread_in, as_alice):
    thread = answered_thread(thread_in)
    accepted(as_alice.say(kind, "marked", thread=thread, **{"from": {"extension": "helper"}}))


@pytest.mark.parametrize("kind", MARKS)
def test_another_agent_has_no_authority_over_the_thread(kind, thread_in, as_bob):
    thread = answered_thread(thread_in)
    with nothing_stored():
        refused(as_bob.say(kind, "mine", thread=thread), 403, "thread_authority_missing")


@pytest.mark.parametrize("kind", MARKS)
def test_a_lock_holders_mark_is_confirmed_at_once(kind, thread_in, as_mod, events_of):
    thread = answered_thread(thread_in)
    marked = accepted(as_mod.say(kind, "moderated", thread=thread))["thread"]
    assert marked["state_origin"] == "llm"
    assert marked["state_confirmed_at"] is not None and marked["state_confirmed_by"] == as_mod.identity
    event = events_of(thread)[-1]
    assert (event["origin"], event["actor"], event["confirmed_by"]) == ("llm", as_mod.identity, as_mod.identity)


@pytest.mark.parametrize("kind", MARKS)
def test_a_human_mark_is_never_a_proposal(kind, thread_in, as_human, events_of):
    thread = answered_thread(thread_in)
    marked = accepted(as_human.say(kind, "settled", thread=thread))["thread"]
    assert (marked["state_origin"], marked["state_confirmed_by"]) == ("user", "human:hannah")
    assert events_of(thread)[-1]["confirmed_at"] == marked["state_confirmed_at"] is not None


def test_any_agent_with_write_may_answer(thread_in, as_bob):
    thread = thread_in("open")
    assert accepted(as_bob.say("answer", "42", thread=thread))["thread"]["state"] == "answered"


def test_a_read_only_token_cannot_post(thread_in, as_mallory):
    thread = thread_in("open")
    with nothing_stored():
        error = refused(as_mallory.say("answer", "42", thread=thread), 403, "token_right_missing")
    assert error["detail"]["right"] == "write"


REOPENERS = {"as_alice": "closed", "as_mod": "any", "as_human": "any", "as_bob": "none"}  # §7 rule 3
REOPEN_CASES = [(state, who, REOPENERS[who] == "any" or REOPENERS[who] == state)
                for state in ("closed", *SIDE_STATES) for who in REOPENERS]


@pytest.mark.parametrize("state,who,allowed", REOPEN_CASES, ids=[f"{w}-{s}" for s, w, _ in REOPEN_CASES])
def test_reopening_needs_the_creator_for_a_closed_thread_and_moderation_for_a_side_state(
        state, who, allowed, thread_in, request):
    thread, speaker = thread_in(state), request.getfixturevalue(who)
    if allowed:
        assert accepted(speaker.say("reopen", "again", thread=thread))["thread"]["state"] == "open"
        return
    with nothing_stored():
        refused(speaker.say("reopen", "again", thread=thread), 403, "thread_authority_missing")


@pytest.mark.parametrize("operation", ["confirm", "dismiss"])
@pytest.mark.parametrize("who", ["as_alice", "as_bob", "as_mallory"])
def test_confirm_and_dismiss_need_the_lock_right(operation, who, thread_in, request):
    thread, speaker = thread_in("decided"), request.getfixturevalue(who)
    with nothing_stored():
        error = refused(speaker.post(f"/api/v1/threads/{thread}/{operation}"), 403, "token_right_missing")
    assert error["detail"]["right"] == "lock"


@pytest.mark.parametrize("operation", ["confirm", "dismiss"])
@pytest.mark.parametrize("who", ["as_mod", "as_human"])
def test_a_lock_holder_or_the_human_may_confirm_and_dismiss(operation, who, thread_in, request):
    thread = thread_in("decided")
    accepted(request.getfixturevalue(who).post(f"/api/v1/threads/{thread}/{operation}"), 200)


def test_a_lock_holder_is_shown_as_ki_with_its_label(thread_in, as_mod):
    thread = thread_in("open")
    message = accepted(as_mod.say("note", "moderating", thread=thread))["message"]
    assert message["from"] == {"identity": as_mod.identity, "extension": None, "label": "KI · Moderator"}


def test_the_human_acts_as_human_and_their_username(thread_in, as_human):
    thread = thread_in("open")
    message = accepted(as_human.say("note", "hello", thread=thread))["message"]
    assert (message["from"]["identity"], message["author_kind"]) == ("human:hannah", "human")


def test_a_staff_session_needs_the_csrf_token_when_checks_are_enforced(thread_in, human):
    from rest_framework.test import APIClient

    thread = thread_in("open")
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(human)
    with nothing_stored():
        response = client.post("/api/v1/messages", {"kind": "note", "body": "hi", "thread": thread}, format="json")
        refused(response, 401, "token_invalid")


def test_a_staff_session_sending_the_csrf_token_acts_as_the_human(thread_in, human):
    from rest_framework.test import APIClient

    thread = thread_in("open")
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(human)
    secret = "a1" * 16
    client.cookies["csrftoken"] = secret
    response = client.post("/api/v1/messages", {"kind": "note", "body": "hi", "thread": thread}, format="json",
                           HTTP_X_CSRFTOKEN=secret)
    assert accepted(response)["message"]["from"]["identity"] == "human:hannah"


def test_rights_hang_on_the_line_not_on_the_extension(thread_in, as_mallory):
    thread = thread_in("open")
    with nothing_stored():
        refused(as_mallory.say("note", "hi", thread=thread, **{"from": {"extension": "writer"}}),
                403, "token_right_missing")


def test_a_logged_in_user_who_is_not_staff_is_not_a_participant(db, django_user_model, thread_in):
    from rest_framework.test import APIClient

    thread = thread_in("open")
    client = APIClient()
    client.force_login(django_user_model.objects.create_user("visitor", password="pw-visitor-1234"))
    with nothing_stored():
        refused(client.post("/api/v1/messages", {"kind": "note", "body": "hi", "thread": thread}, format="json"),
                401, "token_invalid")


def test_staff_without_the_moderate_permission_read_but_do_not_act(thread_in, staff_reader, agent):
    thread = thread_in("open")
    reader = agent(None)
    reader.client.force_login(staff_reader)
    assert reader.get(f"/api/v1/threads/{thread}").status_code == 200
    with nothing_stored():
        error = refused(reader.say("note", "hi", thread=thread), 403, "token_right_missing")
        assert error["detail"]["right"] == "write"


def test_every_public_forum_service_checks_rights_before_it_writes(mallory, thread_in):
    """A public service is a door of its own, so each one checks rights in its own transaction.
    A helper that does neither (opening a thread) stays private behind message_post."""
    import inspect

    from forum import services
    from forum.actors import Actor
    from forum.envelope import clean_envelope
    from parley_site.errors import TokenRightMissing

    from forum.models import Message

    thread = int(thread_in("decided").removeprefix("th_"))
    calls = {
        "message_post": (clean_envelope({"kind": "ask", "body": "Mine?"}),),
        "state_confirm": (thread,),
        "state_dismiss": (thread,),
        "message_redact": (Message.objects.filter(thread_id=thread).latest("id").pk,),
    }
    # count_write and thread_move are no doors: another app's write service calls them inside its own
    # transaction, after its checks (rooms.services.thread_move, §20).
    public = {name for name, function in inspect.getmembers(services, inspect.isfunction)
              if function.__module__ == services.__name__ and not name.startswith("_")} - {"count_write",
                                                                                           "thread_move"}
    assert public == calls.keys(), "a new public service needs its rights checked here"
    for name, arguments in calls.items():
        with nothing_stored(), pytest.raises(TokenRightMissing):
            getattr(services, name)(Actor.for_token(mallory), *arguments)
