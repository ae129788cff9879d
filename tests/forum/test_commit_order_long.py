"""§11, §19 under load, in process: writers (asks, answers, confirms, follow-ups) and cursor pollers (events,
inbox, threads) at once; every acknowledged write is seen exactly once by each poller, in the list's order
(bench/correctness.py; `python -m bench.ceiling --part correctness` runs it at full size on real servers)."""
import pytest
from django.db import connection
from django.test import Client

from bench import correctness
from tests.forum.test_concurrency import on_postgresql  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.long, pytest.mark.postgres]
WRITERS, ROUNDS = 6, 8
POLLERS = {"events": "events", "events, again": "events", "inbox": "inbox", "inbox, again": "inbox",
           "threads": "threads"}


def in_process(method, path, body, secret):
    """One request through the whole stack, on the calling thread's connection, closed afterwards (the
    writers' and pollers' threads would otherwise leave theirs open on the test database)."""
    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    try:
        if method == "GET":
            response = client.get(path)
        else:
            response = client.post(path, body, content_type="application/json")
        return response.status_code, response.json()
    finally:
        connection.close()


def test_every_acknowledged_write_is_seen_once_by_each_poller_in_list_order(on_postgresql, make_token):
    lines = [correctness.Line(make_token(f"asker{n}").secret, make_token(f"answerer{n}").secret,
                              make_token(f"mod{n}", ("read", "write", "lock")).secret) for n in range(WRITERS)]
    watcher = make_token("watcher", ("read",)).secret

    outcome = correctness.run(in_process, lines, ROUNDS, POLLERS, watcher)

    assert outcome.failures == []
    assert outcome.writes == WRITERS * ROUNDS * correctness.WRITES_PER_ROUND
    with connection.cursor() as cursor:
        def query(sql):
            cursor.execute(sql)
            return cursor.fetchall()
        assert correctness.problems(outcome, POLLERS, query) == []
