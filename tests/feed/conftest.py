"""Real servers for the feed: two separate processes of the production command on 127.0.0.1 against the
test database, so a write through one must wake a waiter in the other. PostgreSQL only: with SQLite the
test database lives in this process's memory. In-process tests go through Django's ASGI handler."""
import contextlib
import http.client
import json
import time
from urllib.parse import urlencode

import pytest
from django.db import connection

from bench.server import GunicornServer, database_url
from feed.hub import HUB
from tests.asgi_client import AsgiClient
from tests.conftest import Agent
from tests.metrics.conftest import METRICS_TOKEN, series
from tests.sse_client import SseStream

SERVER_STREAMS_PER_TOKEN = 2
SERVER_HEARTBEAT_SECONDS = 1


@pytest.fixture(autouse=True)
def _postgres_only(request):
    if request.node.get_closest_marker("postgres") and connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")


@pytest.fixture(scope="session", autouse=True)
def _listener_gone_before_the_database(django_db_setup):
    """The process's feed listener holds a connection of its own; it retires once no call waits, and
    must have done so before the test database is dropped."""
    yield
    deadline = time.monotonic() + 5
    while HUB.watching and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.fixture(scope="session")
def servers(django_db_setup):
    """Two servers (ports), each the production command with one worker, serving the test database;
    skipped on SQLite."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    with contextlib.ExitStack() as running:
        yield [running.enter_context(GunicornServer(
            database_url(connection.settings_dict), workers=1, LOG_LEVEL="WARNING",
            PARLEY_FEED_STREAMS_PER_TOKEN=SERVER_STREAMS_PER_TOKEN,
            PARLEY_FEED_HEARTBEAT_SECONDS=SERVER_HEARTBEAT_SECONDS,
            PARLEY_METRICS_TOKEN=METRICS_TOKEN)).port for _ in range(2)]


def gauge(port, name):
    """A live gauge of one server (parley_held_waits, parley_open_streams), as its /metrics shows it now."""
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        client.request("GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        response = client.getresponse()
        assert response.status == 200
        return series(response.read().decode())[(name, ())]
    finally:
        client.close()


def until(condition, what, seconds=10):
    """Waits for what another call does (seen through `condition`) instead of sleeping for a guessed time."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {seconds} s"
        time.sleep(0.02)


class Live:
    """An agent talking real HTTP to one server process."""

    def __init__(self, port, token):
        self.port, self.token = port, token

    def headers(self, extra=None):
        headers = {"Authorization": f"Bearer {self.token.secret}"} if self.token else {}
        return {**headers, **(extra or {})}

    def request(self, method, path, body=None, timeout=40):
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            payload = json.dumps(body) if body is not None else None
            client.request(method, path, payload, self.headers({"Content-Type": "application/json"}))
            response = client.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            client.close()

    def get(self, path, **params):
        return self.request("GET", f"{path}?{urlencode(params)}" if params else path)

    def say(self, kind, body="text", **fields):
        status, answer = self.request("POST", "/api/v1/messages", {"kind": kind, "body": body, **fields})
        assert status == 201, answer
        return answer

    def stream(self, last_event_id=None, **params):
        extra = {"Last-Event-ID": last_event_id} if last_event_id else {}
        return SseStream(self.port, f"/api/v1/events/stream?{urlencode(params)}", self.headers(extra))


@pytest.fixture
def live():
    return Live


@pytest.fixture
def agent():
    """The feed is served under ASGI: its agents' requests go through Django's ASGI handler."""
    return lambda token: Agent(token, AsgiClient())
