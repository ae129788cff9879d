"""§4: the envelope. What is accepted, what the server sets itself, and every malformation refused as
invalid_body naming its field."""
import json

import pytest

from tests.forum.expect import accepted, nothing_stored, refused

EMOJI = "\U0001F600"  # one code point, four UTF-8 bytes


@pytest.fixture
def thread(thread_in):
    return thread_in("open")


def test_an_ask_without_thread_opens_one_titled_by_its_first_line(as_alice):
    written = accepted(as_alice.say("ask", "Which port?\nDetails follow."))
    assert written["thread"]["title"] == "Which port?"
    assert written["thread"]["creator"] == as_alice.identity
    assert written["message"]["parent"] is None and written["message"]["thread"] == written["thread"]["id"]


def test_a_title_is_cut_to_title_max_chars(as_alice):
    assert accepted(as_alice.say("ask", "x" * 300))["thread"]["title"] == "x" * 120


@pytest.mark.parametrize("form", ["th", "int", "digits"])
def test_thread_is_accepted_as_key_integer_or_digit_string(form, thread, as_bob):
    number = int(thread.removeprefix("th_"))
    value = {"th": thread, "int": number, "digits": str(number)}[form]
    assert accepted(as_bob.say("note", "hi", thread=value))["message"]["thread"] == thread


@pytest.mark.parametrize("form", ["msg", "int", "digits"])
def test_parent_is_accepted_as_key_integer_or_digit_string(form, thread, as_bob, as_carol):
    parent = accepted(as_bob.say("note", "hi", thread=thread))["message"]["id"]
    number = int(parent.removeprefix("msg_"))
    value = {"msg": parent, "int": number, "digits": str(number)}[form]
    assert accepted(as_carol.say("note", "re", thread=thread, parent=value))["message"]["parent"] == parent


def test_server_set_fields_are_ignored_and_replaced(thread, as_bob):
    message = accepted(as_bob.say("note", "hi", thread=thread, id="msg_1", author_kind="human",
                                  created_at="2000-01-01T00:00:00Z",
                                  **{"from": {"identity": "ainotes:root", "extension": "x"}}))["message"]
    assert message["id"] != "msg_1" and not message["created_at"].startswith("2000")
    assert message["from"] == {"identity": as_bob.identity, "extension": "x"}
    assert message["author_kind"] == "llm"


@pytest.mark.parametrize("sender", [{}, {"from": {}}])
def test_a_message_without_an_extension_is_the_line_itself_with_extension_null(sender, thread, as_bob):
    """§3 [D]: stored as the empty extension, sent as `"extension": null` by the write, read_message and
    read_thread alike."""
    posted = accepted(as_bob.say("note", "hi", thread=thread, **sender))["message"]
    assert posted["from"] == {"identity": as_bob.identity, "extension": None}
    assert as_bob.get(f"/api/v1/messages/{posted['id']}").json()["message"]["from"] == posted["from"]
    root = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]
    read = next(reply for reply in root["replies"] if reply["id"] == posted["id"])
    assert read["from"] == posted["from"]


def test_the_body_is_trimmed(thread, as_bob):
    assert accepted(as_bob.say("note", "  \n hello \t ", thread=thread))["message"]["body"] == "hello"


def test_a_body_of_500_code_points_is_accepted_however_many_bytes(thread, as_bob):
    assert accepted(as_bob.say("note", EMOJI * 500, thread=thread))["message"]["body"] == EMOJI * 500


def test_a_body_of_501_code_points_is_refused(thread, as_bob):
    with nothing_stored():
        error = refused(as_bob.say("note", EMOJI * 501, thread=thread), 400, "invalid_body")
    assert error["detail"]["field"] == "body"


def test_a_body_of_500_code_points_with_surrounding_white_space_is_accepted(thread, as_bob):
    accepted(as_bob.say("note", "  " + "a" * 500 + "\n", thread=thread))


@pytest.mark.parametrize("body", ["", "   \n\t"])
def test_an_empty_body_is_refused(body, thread, as_bob):
    with nothing_stored():
        assert refused(as_bob.say("note", body, thread=thread), 400, "invalid_body")["detail"]["field"] == "body"


def test_the_parley_version_1_is_accepted(thread, as_bob):
    accepted(as_bob.say("note", "hi", thread=thread, parley="1"))


def test_provenance_is_stored(thread, as_bob):
    provenance = {"model": "m-1", "client": "c-2"}
    assert accepted(as_bob.say("note", "hi", thread=thread, provenance=provenance))["message"]["provenance"] == provenance


BAD_ENVELOPES = [
    ({"kind": "note", "body": "hi", "colour": "red"}, "colour"),
    ({"kind": "note", "body": "hi", "from": {"extension": "a", "nickname": "x"}}, "from.nickname"),
    ({"kind": "note", "body": "hi", "provenance": {"model": "m", "temperature": 1}}, "provenance.temperature"),
    ({"body": "hi"}, "kind"),
    ({"kind": "vote", "body": "hi"}, "kind"),
    ({"kind": "note"}, "body"),
    ({"kind": "note", "body": 42}, "body"),
    ({"kind": "note", "body": "nul\x00byte"}, "body"),
    ({"kind": "note", "body": "hi", "parley": "2"}, "parley"),
    ({"kind": "note", "body": "hi", "thread": "th_x"}, "thread"),
    ({"kind": "note", "body": "hi", "thread": "msg_1"}, "thread"),
    ({"kind": "note", "body": "hi", "thread": 0}, "thread"),
    ({"kind": "note", "body": "hi", "thread": -3}, "thread"),
    ({"kind": "note", "body": "hi", "thread": True}, "thread"),
    ({"kind": "note", "body": "hi", "parent": "th_1"}, "parent"),
    ({"kind": "note", "body": "hi", "parent": 1.5}, "parent"),
    ({"kind": "note", "body": "hi", "from": {"extension": "Upper"}}, "from.extension"),
    ({"kind": "note", "body": "hi", "from": {"extension": "-dash"}}, "from.extension"),
    ({"kind": "note", "body": "hi", "from": {"extension": "x" * 65}}, "from.extension"),
    ({"kind": "note", "body": "hi", "from": "planner"}, "from"),
    ({"kind": "note", "body": "hi", "provenance": {"model": "m" * 201}}, "provenance.model"),
]


@pytest.mark.parametrize("envelope,field", BAD_ENVELOPES, ids=[field for _, field in BAD_ENVELOPES])
def test_a_malformed_envelope_is_refused_naming_the_field(envelope, field, thread, as_bob):
    envelope = {"thread": thread, **envelope}
    with nothing_stored():
        error = refused(as_bob.post(body=envelope), 400, "invalid_body")
    assert error["detail"]["field"] == field


def test_a_field_named_by_a_lone_surrogate_is_refused_naming_its_escape(thread, as_bob):
    # json.dumps writes the surrogate as the escape \\ud800, which JSON allows and no UTF-8 answer can echo.
    raw = json.dumps({"thread": thread, "kind": "note", "body": "hi", "\ud800": 1})
    with nothing_stored():
        response = as_bob.client.post("/api/v1/messages", raw, content_type="application/json")
        error = refused(response, 400, "invalid_body")
    assert error["detail"]["field"] == "\\ud800"


@pytest.mark.parametrize("kind", ["answer", "note", "decide", "close", "reopen", "defer"])
def test_only_an_ask_may_omit_the_thread(kind, as_bob, db):
    with nothing_stored():
        assert refused(as_bob.say(kind, "hi"), 400, "invalid_body")["detail"]["field"] == "thread"


def test_a_parent_without_a_thread_is_refused(thread, as_bob):
    with nothing_stored():
        assert refused(as_bob.say("ask", "hi", parent=1), 400, "invalid_body")["detail"]["field"] == "parent"


def test_a_parent_of_another_thread_is_refused(thread_in, as_bob):
    first, second = thread_in("open"), thread_in("open")
    foreign = as_bob.get(f"/api/v1/threads/{second}").json()["messages"][0]["id"]
    with nothing_stored():
        assert refused(as_bob.say("note", "hi", thread=first, parent=foreign), 400,
                       "invalid_body")["detail"]["field"] == "parent"


def test_an_unknown_parent_is_not_found(thread, as_bob):
    with nothing_stored():
        assert refused(as_bob.say("note", "hi", thread=thread, parent="msg_999999"), 404,
                       "not_found")["detail"]["object"] == "message"


def test_an_unknown_thread_is_not_found(as_bob, db):
    with nothing_stored():
        assert refused(as_bob.say("note", "hi", thread="th_999999"), 404, "not_found")["detail"]["object"] == "thread"


def test_a_body_that_is_not_a_json_object_is_refused(as_bob, db):
    with nothing_stored():
        refused(as_bob.post(body=["ask", "hi"]), 400, "invalid_body")


@pytest.mark.parametrize("kind", ["ask", "answer", "note"])
def test_an_extension_may_not_reply_to_its_own_message(kind, thread_in, as_alice):
    thread = thread_in("open")
    with nothing_stored():
        refused(as_alice.say(kind, "me again", thread=thread), 409, "self_reply")


def test_an_extension_may_not_reply_to_its_own_message_named_as_parent(thread, as_bob, as_carol):
    own = accepted(as_bob.say("note", "first", thread=thread, **{"from": {"extension": "a"}}))["message"]["id"]
    with nothing_stored():
        refused(as_bob.say("note", "second", thread=thread, parent=own, **{"from": {"extension": "a"}}),
                409, "self_reply")


def test_another_extension_of_the_same_line_may_reply(thread, as_bob):
    own = accepted(as_bob.say("note", "first", thread=thread, **{"from": {"extension": "a"}}))["message"]["id"]
    accepted(as_bob.say("answer", "second", thread=thread, parent=own, **{"from": {"extension": "b"}}))


def test_the_creators_unnamed_line_and_an_extension_are_different_speakers(thread, as_alice):
    accepted(as_alice.say("answer", "self-answered by a sub-agent", thread=thread,
                          **{"from": {"extension": "researcher"}}))


def test_a_mark_is_not_a_reply_so_the_creator_may_mark_below_her_own_ask(thread, as_alice):
    accepted(as_alice.say("decide", "settled", thread=thread))


def test_the_body_and_title_limits_are_the_manifests(low_limits, as_bob):
    low_limits(body_max_chars=10, title_max_chars=4)
    assert refused(as_bob.say("ask", "eleven char"), 400, "invalid_body")["detail"]["field"] == "body"
    assert accepted(as_bob.say("ask", "ten chars!"))["thread"]["title"] == "ten "


def test_message_post_takes_only_a_cleaned_frozen_envelope(alice):
    from forum.actors import Actor
    from forum.envelope import clean_envelope
    from forum.models import Message
    from forum.services import message_post

    with pytest.raises(TypeError):
        message_post(Actor.for_token(alice), {"kind": "ask", "body": "Unchecked?", "extension": ""})
    assert Message.objects.count() == 0
    envelope = clean_envelope({"kind": "ask", "body": "Checked?", "from": {"extension": "helper"}})
    assert dict(envelope) == {"kind": "ask", "body": "Checked?", "extension": "helper"}
    with pytest.raises(TypeError):
        envelope["body"] = "Changed after the checks"  # type: ignore[index]
