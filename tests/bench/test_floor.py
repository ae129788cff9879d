"""The benchmark's floor (bench/floor.py): routed by the benchmark's own URL configuration only, and a
write that refuses like the API's: it needs `write`, and a bad request stores nothing."""
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from django.db import connection

from bench.server import PROJECT_ROOT, HttpAgent, database_url
from forum.models import Message
from tests.forum.expect import accepted, nothing_stored, refused

FLOOR = "/bench/floor"


def floor_post(agent, body):
    return agent.post(FLOOR, body)


def test_the_production_url_configuration_never_routes_the_floor_whatever_the_environment():
    probe = ("import django; django.setup(); from django.urls import Resolver404, resolve\n"
             "try:\n    print(resolve('/bench/floor').func.__module__)\n"
             "except Resolver404:\n    print('unrouted')\n")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "parley_site.settings_test", "PARLEY_BENCH_FLOOR": "1"}
    answer = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, env=env, capture_output=True,
                            text=True, timeout=60)
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == "unrouted"


@pytest.mark.urls("bench.urls")
def test_the_floor_stores_one_note_for_a_write_token(as_alice, as_bob):
    thread = as_alice.ask()
    answer = accepted(floor_post(as_bob, {"thread": thread, "body": "floor"}))
    assert Message.objects.get(pk=answer["id"]).author_identity == as_bob.identity


@pytest.mark.urls("bench.urls")
def test_the_floor_refuses_a_read_only_token_with_403_token_right_missing(as_alice, as_mallory):
    thread = as_alice.ask()
    with nothing_stored():
        error = refused(floor_post(as_mallory, {"thread": thread, "body": "floor"}), 403, "token_right_missing")
    assert error["detail"]["right"] == "write"


@pytest.mark.urls("bench.urls")
def test_the_floor_refuses_an_unknown_token_with_401_token_invalid(agent, as_alice, db):
    thread = as_alice.ask()
    impostor = agent(SimpleNamespace(secret="pt_not-a-real-token"))
    with nothing_stored():
        refused(floor_post(impostor, {"thread": thread, "body": "floor"}), 401, "token_invalid")


@pytest.mark.urls("bench.urls")
@pytest.mark.parametrize("body,field", [({"thread": "th_x", "body": "floor"}, "thread"),
                                        ({"thread": 0, "body": "floor"}, "thread"),
                                        ({"body": "floor"}, "thread"),
                                        ({"thread": 1, "body": ""}, "body"),
                                        ({"thread": 1, "body": 7}, "body"),
                                        ({"thread": 1}, "body")])
def test_the_floor_refuses_a_malformed_request_with_400_invalid_body(body, field, as_bob):
    with nothing_stored():
        assert refused(floor_post(as_bob, body), 400, "invalid_body")["detail"]["field"] == field


@pytest.mark.urls("bench.urls")
def test_the_floor_refuses_a_body_that_is_not_an_object_with_400_invalid_body(as_bob):
    with nothing_stored():
        refused(floor_post(as_bob, ["th_1", "floor"]), 400, "invalid_body")


@pytest.mark.urls("bench.urls")
def test_the_floor_refuses_an_unknown_thread_with_404_not_found(transactional_db, as_bob):
    """Committed at once, as on the benchmark's server, so the foreign key is checked when the row goes in."""
    with nothing_stored():
        error = refused(floor_post(as_bob, {"thread": "th_999999", "body": "floor"}), 404, "not_found")
    assert error["detail"] == {"object": "thread", "id": "th_999999"}


def test_the_benchmarks_own_server_starts_and_its_floor_answers(transactional_db, as_alice, bob):
    """A smoke test of `python -m bench.run`'s server: its settings, URL configuration and gunicorn."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: a real server cannot see SQLite's in-transaction test data")
    from bench.run import bench_server

    thread = as_alice.ask()
    with bench_server(SimpleNamespace(workers=1, serve="asgi"), database_url(connection.settings_dict)) as server:
        agent = HttpAgent(server, bob)
        try:
            status, answer, _ = agent.post({"thread": thread, "body": "floor"}, path=FLOOR)
            refusal = agent.post({"thread": "th_999999", "body": "floor"}, path=FLOOR)
        finally:
            agent.close()
    assert status == 201 and Message.objects.filter(pk=answer["id"]).exists()
    assert refusal[:2] == (404, {"error": {"reason": "not_found", "message": "no such thread; check the id",
                                           "detail": {"object": "thread", "id": "th_999999"}}})
