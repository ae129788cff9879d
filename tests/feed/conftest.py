"""Real servers for the feed: two separate ASGI processes on 127.0.0.1 against the test database, so a
write through one must wake a waiter in the other. PostgreSQL only: with SQLite the test database lives
in this process's memory."""
import http.client
import json
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.db import connection

from feed.hub import HUB
from tests.asgi_client import AsgiClient
from tests.conftest import Agent

ROOT = Path(__file__).resolve().parents[2]
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


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url():
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_server(port):
    env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "parley_site.settings_test",
           "PARLEY_FEED_STREAMS_PER_TOKEN": str(SERVER_STREAMS_PER_TOKEN),
           "PARLEY_FEED_HEARTBEAT_SECONDS": str(SERVER_HEARTBEAT_SECONDS), "LOG_LEVEL": "WARNING"}
    return subprocess.Popen([sys.executable, "-m", "uvicorn", "parley_site.asgi:application", "--host", "127.0.0.1",
                             "--port", str(port), "--log-level", "warning"], cwd=ROOT, env=env)


def wait_until_serving(process, port):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "the feed server exited at start"
        try:
            status, _ = Live(port, None).get("/api/v1/manifest")
            if status == 200:
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the feed server did not start")


@pytest.fixture(scope="session")
def servers(django_db_setup):
    """Two server processes (ports) serving the test database; skipped on SQLite."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    ports = [free_port(), free_port()]
    processes = [start_server(port) for port in ports]
    try:
        for process, port in zip(processes, ports):
            wait_until_serving(process, port)
        yield ports
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(10)


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


class SseStream:
    """A Server-Sent Events client on a raw socket (so that waiting in vain for an event leaves it usable):
    next_event() gives (id, data) per event, `kind` its `event:` field, and records comment lines."""

    def __init__(self, port, path, headers):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.raw, self.text, self.comments, self.kind, self.finished = b"", "", [], None, False
        while b"\r\n\r\n" not in self.raw:
            assert self._receive(time.monotonic() + 10), "no response head"
        head, self.raw = self.raw.split(b"\r\n\r\n", 1)
        self.status = int(head.split()[1])
        self.head = head.decode().lower()

    def _receive(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self.sock], [], [], remaining)[0]:
            return False
        data = self.sock.recv(65536)
        assert data, "the server closed the stream"
        self.raw += data
        return True

    def _dechunk(self):
        while b"\r\n" in self.raw:
            size_line, rest = self.raw.split(b"\r\n", 1)
            size = int(size_line, 16)
            self.finished = size == 0  # the last chunk: the server has ended the stream
            if len(rest) < size + 2:
                return
            self.text += rest[:size].decode()
            self.raw = rest[size + 2:]

    def refusal(self):
        length = int(self.head.split("content-length: ")[1].split("\r\n")[0])
        while len(self.raw) < length:
            assert self._receive(time.monotonic() + 10)
        return json.loads(self.raw[:length])

    def next_event(self, timeout=5.0):
        """The next event as (id, parsed data), or None when none comes within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self._dechunk()
            while "\n\n" in self.text:
                block, self.text = self.text.split("\n\n", 1)
                fields = {}
                for line in block.split("\n"):
                    if line.startswith(":"):
                        self.comments.append(line)
                    else:
                        name, _, value = line.partition(": ")
                        fields[name] = value
                if "data" in fields:
                    self.kind = fields.get("event")
                    return fields.get("id"), json.loads(fields["data"])
            if not self._receive(deadline):
                return None

    def ended(self, timeout=5.0):
        """Whether the server ends the stream within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self._dechunk()
            if self.finished:
                return True
            if not self._receive(deadline):
                return False

    def events(self, count, timeout=5.0):
        found = []
        while len(found) < count:
            event = self.next_event(timeout)
            assert event is not None, f"only {len(found)} of {count} events arrived"
            found.append(event)
        return found

    def close(self):
        self.sock.close()


@pytest.fixture
def live():
    return Live


@pytest.fixture
def agent():
    """The feed is served under ASGI: its agents' requests go through Django's ASGI handler."""
    return lambda token: Agent(token, AsgiClient())
