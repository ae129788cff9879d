"""The benchmark's read floor (bench/read_floor.py): routed by the benchmark's own URL configuration only,
answering the very bytes of the caller's inbox page, and refusing a bad token like the API."""
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from bench.server import PROJECT_ROOT
from tests.forum.expect import refused

READ_FLOOR = "/bench/read-floor"


def test_the_production_url_configuration_never_routes_the_read_floor():
    probe = ("import django; django.setup(); from django.urls import Resolver404, resolve\n"
             f"try:\n    print(resolve('{READ_FLOOR}').func.__module__)\n"
             "except Resolver404:\n    print('unrouted')\n")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "parley_site.settings_test"}
    answer = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, env=env, capture_output=True,
                            text=True, timeout=60)
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == "unrouted"


@pytest.mark.urls("bench.urls")
def test_the_read_floor_answers_the_bytes_of_the_inbox_page(as_alice, as_bob, as_mallory):
    for number in range(3):
        as_alice.ask(f"question {number}")
    as_bob.ask("bob's own question stays out of bob's inbox")
    for reader in (as_bob, as_mallory):
        floor, inbox = reader.get(READ_FLOOR), reader.get("/api/v1/inbox")
        assert floor.status_code == inbox.status_code == 200
        assert floor["Content-Type"] == "application/json"
        assert floor.content == inbox.content
    assert len(as_bob.get(READ_FLOOR).json()["items"]) == 3


@pytest.mark.urls("bench.urls")
def test_the_read_floor_refuses_an_unknown_token_with_401_token_invalid(agent, db):
    refused(agent(SimpleNamespace(secret="pt_not-a-real-token")).get(READ_FLOOR), 401, "token_invalid")
