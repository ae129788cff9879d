"""Query counts: a write costs the same whatever the thread's size, and reading a thread of 1000 messages
takes a small constant number of queries."""
import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from forum.actors import Actor
from forum.envelope import clean_envelope
from forum.services import message_post
from tests.forum.expect import accepted

# Each write, through the whole request stack, on SQLite and PostgreSQL alike: the token lookup, the
# transaction's two statements (savepoints inside the test's transaction), the thread row, the token's
# rate-limit window, then the rows it writes, and its one fan-out job (webhooks, §17). Confirm and dismiss also read the
# proposal's event and the last message. A redaction also deletes the stored answers and blanks the console log
# entries that held the message (its content type read once per process, counted here), and on PostgreSQL
# reads its own transaction id and queues the vacuum job that waits past it (forum.erasure): two more.
WRITE_QUERIES = {"note": 8, "open": 9, "follow_up": 9, "answer": 9, "confirm": 10, "dismiss": 10, "redact": 15}
# Reading a thread 3 (2 or 1000 messages), a list page 2, on both. One query of headroom.
READ_THREAD_QUERIES = 4


def grow(thread, users, size):
    """Grow `thread` to `size` messages through the service layer: branches under the opening ask by the
    first human, leaves under the latest branch by the others in turn (no self replies, no ping-pong)."""
    speakers = [Actor.for_user(user) for user in users]
    number = int(thread.removeprefix("th_"))
    branch = None
    for index in range(size - 1):
        if index % 10 == 0:
            branch = message_post(speakers[0], clean_envelope({"kind": "note", "body": f"branch {index}",
                                                               "thread": number}))[0].pk
            continue
        leaf = speakers[1 + index % 3]
        message_post(leaf, clean_envelope({"kind": "note", "body": f"leaf {index}", "thread": number,
                                           "parent": branch}))


@pytest.fixture
def humans(make_moderator):
    return [make_moderator(f"h{n}") for n in range(4)]


def queries_of(request_it):
    with CaptureQueriesContext(connection) as captured:
        response = request_it()
    assert response.status_code in (200, 201), response.content
    return len(captured)


def test_posting_costs_the_same_number_of_queries_in_a_small_and_a_large_thread(thread_in, humans, as_bob):
    small, large = thread_in("open"), thread_in("open")
    grow(large, humans, 300)
    as_bob.get("/api/v1/inbox")  # the token's last_used_at is stamped once a minute: not in the count
    costs = [queries_of(lambda thread=thread: as_bob.say("note", "hi", thread=thread)) for thread in (small, large)]
    assert costs == [WRITE_QUERIES["note"]] * 2


@pytest.mark.parametrize("path", WRITE_QUERIES)
def test_every_write_path_costs_a_fixed_number_of_queries(path, thread_in, as_alice, as_bob, as_carol, as_mod,
                                                          django_assert_num_queries):
    thread = thread_in("open")
    parent = accepted(as_bob.say("note", "parent", thread=thread))["message"]["id"]
    proposal = thread_in("decided")
    for agent in (as_mod, as_alice, as_carol):
        agent.get("/api/v1/inbox")  # the token's last_used_at is stamped once a minute: not in the count
    requests = {
        "note": lambda: as_carol.say("note", "A remark.", thread=thread),
        "open": lambda: as_alice.say("ask", "New?"),
        "follow_up": lambda: as_carol.say("ask", "Why?", thread=thread, parent=parent),
        "answer": lambda: as_carol.say("answer", "42", thread=thread),
        "confirm": lambda: as_mod.post(f"/api/v1/threads/{proposal}/confirm"),
        "dismiss": lambda: as_mod.post(f"/api/v1/threads/{proposal}/dismiss"),
        "redact": lambda: as_mod.post(f"/api/v1/messages/{parent}/redact"),
    }
    ContentType.objects.clear_cache()
    vacuum_job = 2 if path == "redact" and connection.vendor == "postgresql" else 0
    with django_assert_num_queries(WRITE_QUERIES[path] + vacuum_job):
        assert requests[path]().status_code in (200, 201)


def test_reading_a_thread_of_1000_messages_takes_a_constant_small_number_of_queries(
        thread_in, humans, as_mallory, django_assert_max_num_queries):
    thread = thread_in("open")
    grow(thread, humans, 1000)
    as_mallory.get("/api/v1/inbox")
    with django_assert_max_num_queries(READ_THREAD_QUERIES):
        response = as_mallory.get(f"/api/v1/threads/{thread}")
    body = response.json()
    assert body["thread"]["message_count"] == 1000
    assert len(body["messages"][0]["replies"]) == 100


@pytest.mark.parametrize("path", ["/api/v1/threads", "/api/v1/events", "/api/v1/inbox"])
def test_every_list_read_takes_a_constant_small_number_of_queries(path, thread_in, as_mod,
                                                                  django_assert_max_num_queries):
    for state in ("open", "answered", "decided", "closed"):
        thread_in(state)
    as_mod.get("/api/v1/inbox")
    with django_assert_max_num_queries(READ_THREAD_QUERIES):
        assert as_mod.get(path, limit=200).status_code == 200
