"""§14 limits hold under abuse against real gunicorn with several worker processes on PostgreSQL: the
limits live in the database, so no worker can let through what another already counted."""
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import transaction

from forum.actors import Actor
from forum.envelope import clean_envelope
from forum.models import Message, Thread
from forum.services import message_post

pytestmark = pytest.mark.postgres


def fire(agents, envelopes):
    """Post envelopes concurrently, one connection per agent; returns every (status, body, headers)."""
    jobs = list(zip(agents * (len(envelopes) // len(agents) + 1), envelopes))
    by_agent = {id(agent): [env for a, env in jobs if a is agent] for agent in agents}
    with ThreadPoolExecutor(len(agents)) as pool:
        results = pool.map(lambda agent: [agent.post(env) for env in by_agent[id(agent)]], agents)
    return [answer for answers in results for answer in answers]


def reasons(answers):
    return sorted((status, (body or {}).get("error", {}).get("reason")) for status, body, _ in answers)


def test_the_rate_limit_holds_across_two_gunicorn_workers(gunicorn, http_agent, alice):
    # Sync workers take one connection at a time, so concurrent clients are spread over both processes.
    with gunicorn(workers=2, threads=1, GUNICORN_WORKER_CLASS="sync",
                  GUNICORN_APP="parley_site.wsgi:application") as server:
        agents = [http_agent(server, alice) for _ in range(16)]
        answers = fire(agents, [{"kind": "ask", "body": f"question {n}"} for n in range(80)])
        served_by = {entry["pid"] for entry in server.log_entries() if entry.get("path") == "/api/v1/messages"}
    assert reasons(answers) == [(201, None)] * 60 + [(429, "rate_limited")] * 20
    assert all(int(headers["Retry-After"]) >= 1 for status, _, headers in answers if status == 429)
    assert Thread.objects.filter(creator_identity=alice.identity).count() == 60
    assert len(served_by) >= 2, "both workers should have served writes"


def test_a_body_over_request_max_bytes_is_refused_413_by_the_real_server(gunicorn, http_agent, alice):
    with gunicorn(workers=2) as server:
        status, body, _ = http_agent(server, alice).post({"kind": "ask", "body": "x" * 17000})
    assert (status, body["error"]["reason"], body["error"]["detail"]["limit"]) == (
        413, "limit_exceeded", "request_max_bytes")
    assert Message.objects.count() == 0


def test_a_chunked_body_without_length_is_refused_cleanly_and_stores_nothing(gunicorn, http_agent, alice):
    with gunicorn(workers=2) as server:
        agent = http_agent(server, alice)
        agent.request("GET", "/healthz")
        chunks = iter([b'{"kind": "ask", "body": "', b"y" * 40000, b'"}'])
        agent.connection.request("POST", "/api/v1/messages", body=chunks, encode_chunked=True, headers={
            "Authorization": f"Bearer {alice.secret}", "Content-Type": "application/json",
            "Transfer-Encoding": "chunked"})
        response = agent.connection.getresponse()
        response.read()
    assert 400 <= response.status < 500
    assert Message.objects.count() == 0


def test_the_loop_guard_stops_two_agents_ping_ponging_through_the_real_server(
        gunicorn, http_agent, alice, bob, carol):
    with gunicorn(workers=2) as server:
        speakers = [http_agent(server, alice), http_agent(server, bob)]
        _, opened, _ = speakers[0].post({"kind": "ask", "body": "Shall we loop?"})
        thread, parent = opened["thread"]["id"], opened["message"]["id"]
        for turn in range(1, 9):  # bob, alice, bob, ... each replying to the other's last message
            status, body, _ = speakers[turn % 2].post({"kind": "note", "thread": thread, "parent": parent,
                                                       "body": f"turn {turn}"})
            assert status == 201, body
            parent = body["message"]["id"]
        refused = speakers[1].post({"kind": "note", "thread": thread, "parent": parent, "body": "once more"})
        third = http_agent(server, carol).post({"kind": "note", "thread": thread, "body": "I break the loop"})
    assert (refused[0], refused[1]["error"]["reason"]) == (409, "loop_guard")
    assert third[0] == 201
    assert Message.objects.filter(thread__pk=int(thread[3:])).count() == 10


def test_replies_deeper_than_max_depth_are_refused_by_the_real_server(gunicorn, http_agent, alice, bob, carol):
    with gunicorn(workers=2) as server:
        speakers = [http_agent(server, token) for token in (alice, bob, carol)]
        _, opened, _ = speakers[0].post({"kind": "ask", "body": "How deep can we go?"})
        thread, parent = opened["thread"]["id"], opened["message"]["id"]
        for depth in range(1, 33):
            status, body, _ = speakers[depth % 3].post({"kind": "note", "thread": thread, "parent": parent,
                                                        "body": f"depth {depth}"})
            assert status == 201, body
            parent = body["message"]["id"]
        status, body, _ = speakers[0].post({"kind": "note", "thread": thread, "parent": parent, "body": "deeper"})
    assert (status, body["error"]["reason"], body["error"]["detail"]["limit"]) == (
        409, "limit_exceeded", "max_depth")
    assert Message.objects.filter(thread__pk=int(thread[3:])).count() == 33


def test_concurrent_posts_never_push_a_thread_past_thread_max_messages(
        gunicorn, http_agent, settings, mod, alice, bob, carol):
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 10**6}
    creator = Actor.for_token(mod)
    _, thread, _ = message_post(creator, clean_envelope({"kind": "ask", "body": "Fill me up"}))
    speakers = [Actor.for_token(token) for token in (alice, bob, carol)]
    with transaction.atomic():  # one commit for the filler: the race under test is the last ten messages
        for n in range(990 - 1):
            message_post(speakers[n % 3], clean_envelope({"kind": "note", "thread": thread.pk, "body": f"n{n}"}))
    with gunicorn(workers=2, PARLEY_WRITES_PER_MINUTE=10**6) as server:
        agents = [http_agent(server, token) for token in (alice, bob, carol, mod)]
        answers = fire(agents, [{"kind": "note", "thread": thread.pk, "body": f"rush {n}",
                                 "from": {"extension": f"rush{n}"}} for n in range(40)])
    assert reasons(answers) == [(201, None)] * 10 + [(409, "limit_exceeded")] * 30
    thread.refresh_from_db()
    assert thread.message_count == Message.objects.filter(thread=thread).count() == 1000
