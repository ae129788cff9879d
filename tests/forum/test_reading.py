"""§11, §12: reading a thread as a tree, a message, lists with filters and cursors, events."""
import pytest

from tests.forum.expect import accepted, listing, refused


def test_a_thread_reads_as_a_tree_nested_by_parent_in_creation_order(thread_in, as_bob, as_carol, as_mallory):
    thread = thread_in("open")
    first = accepted(as_bob.say("note", "first", thread=thread))["message"]["id"]
    second = accepted(as_carol.say("note", "second", thread=thread))["message"]["id"]
    deep = accepted(as_carol.say("note", "re first", thread=thread, parent=first))["message"]["id"]
    deeper = accepted(as_bob.say("note", "re re first", thread=thread, parent=deep))["message"]["id"]
    third = accepted(as_bob.say("note", "re second", thread=thread, parent=second))["message"]["id"]

    tree = as_mallory.get(f"/api/v1/threads/{thread}").json()["messages"]

    def shape(nodes):
        return [(node["id"], shape(node["replies"])) for node in nodes]

    root = tree[0]["id"]
    assert shape(tree) == [(root, [(first, [(deep, [(deeper, [])])]), (second, [(third, [])])])]


@pytest.mark.parametrize("form", ["key", "number"])
def test_a_thread_and_a_message_are_read_by_key_or_bare_number(form, thread_in, as_mallory):
    thread = thread_in("open")
    path = thread if form == "key" else thread.removeprefix("th_")
    read = as_mallory.get(f"/api/v1/threads/{path}").json()
    message = read["messages"][0]["id"]
    path = message if form == "key" else message.removeprefix("msg_")
    single = accepted(as_mallory.get(f"/api/v1/messages/{path}"), 200)["message"]
    assert single["id"] == message and "replies" not in single
    assert read["thread"]["message_count"] == 1


@pytest.mark.parametrize("path", ["/api/v1/threads/{}", "/api/v1/messages/{}", "/api/v1/threads/{}/events",
                                  "/api/v1/threads/{}/confirm", "/api/v1/threads/{}/dismiss"])
@pytest.mark.parametrize("ref", ["th_999999", "999999", "abc", "th_0", "msg_x"])
def test_a_malformed_or_unknown_id_in_a_path_is_not_found(path, ref, as_mod):
    url = path.format(ref)
    response = as_mod.post(url) if url.endswith(("confirm", "dismiss")) else as_mod.get(url)
    refused(response, 404, "not_found")


def test_a_token_without_read_cannot_read(make_token, agent, thread_in):
    thread = thread_in("open")
    writer = agent(make_token("writer", ("write",)))
    for path in [f"/api/v1/threads/{thread}", "/api/v1/threads", "/api/v1/inbox", "/api/v1/events"]:
        assert refused(writer.get(path), 403, "token_right_missing")["detail"]["right"] == "read"


def test_list_threads_filters_by_state_awaiting_creator_and_confirmed(thread_in, as_bob, as_mallory):
    opened, answered, confirmed = thread_in("open"), thread_in("answered"), thread_in("decided", confirmed=True)
    by_bob = as_bob.ask("Bob's own?")
    assert listing(as_mallory, state="answered") == [answered]
    assert listing(as_mallory, awaiting="answer") == [opened, by_bob]
    assert listing(as_mallory, creator=as_bob.identity) == [by_bob]
    assert listing(as_mallory, confirmed="false") == [answered]
    assert listing(as_mallory, confirmed="true") == [opened, confirmed, by_bob]


def test_lists_page_oldest_first_with_a_cursor_on_every_page(thread_in, as_mallory):
    threads = [thread_in("open") for _ in range(3)]
    first = as_mallory.get("/api/v1/threads", limit=2).json()
    second = as_mallory.get("/api/v1/threads", limit=2, cursor=first["cursor"]).json()
    empty = as_mallory.get("/api/v1/threads", limit=2, since=second["cursor"]).json()
    assert [t["id"] for t in first["items"] + second["items"]] == threads
    assert empty == {"items": [], "cursor": second["cursor"]}


def test_the_default_page_size_is_page_size_default(low_limits, as_alice, as_mallory):
    low_limits(page_size_default=2)
    for n in range(3):
        as_alice.ask(f"Question {n}?")
    assert len(as_mallory.get("/api/v1/threads").json()["items"]) == 2


@pytest.mark.parametrize("path", ["/api/v1/threads", "/api/v1/events", "/api/v1/inbox"])
def test_a_limit_above_page_size_max_is_refused_naming_limit(path, as_mallory):
    assert refused(as_mallory.get(path, limit=201), 400, "invalid_body")["detail"]["field"] == "limit"


@pytest.mark.parametrize("params,field", [({"state": "pending"}, "state"), ({"confirmed": "maybe"}, "confirmed"),
                                          ({"awaiting": "vote"}, "awaiting"), ({"sort": "id"}, "sort")])
def test_an_unknown_filter_value_is_refused_naming_the_parameter(params, field, as_mallory):
    assert refused(as_mallory.get("/api/v1/threads", **params), 400, "invalid_body")["detail"]["field"] == field


def test_events_record_every_state_change_with_origin_actor_and_confirmation(thread_in, as_mallory, as_mod):
    thread = thread_in("decided", confirmed=True)
    events = as_mallory.get(f"/api/v1/threads/{thread}/events").json()["items"]
    assert [(e["label"], e["from_state"], e["to_state"]) for e in events] == [
        ("ask", None, "open"), ("decide", "open", "decided"), ("confirm", "decided", "decided")]
    decide = events[1]
    assert (decide["thread"], decide["claim"], decide["origin"], decide["actor"], decide["confirmed_by"]) == (
        thread, None, "llm", "ainotes:alice", as_mod.identity)


def test_global_events_filter_by_thread_and_continue_since_a_cursor(thread_in, as_bob, as_mallory):
    one, two = thread_in("open"), thread_in("open")
    page = as_mallory.get("/api/v1/events").json()
    assert [e["thread"] for e in page["items"]] == [one, two]
    assert [e["thread"] for e in as_mallory.get("/api/v1/events", thread=two).json()["items"]] == [two]
    accepted(as_bob.say("answer", "42", thread=one))
    assert [e["label"] for e in as_mallory.get("/api/v1/events", since=page["cursor"]).json()["items"]] == ["answer"]


def test_events_of_an_unknown_thread_are_not_found(as_mallory, db):
    refused(as_mallory.get("/api/v1/events", thread="th_999999"), 404, "not_found")
