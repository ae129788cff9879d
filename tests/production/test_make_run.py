"""`make run`, the README's first command, serves the whole feed profile (§16): its server streams and
holds waits. Started the way a newcomer starts it, on a demo database of its own."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from django.db import connection

from bench.server import HttpAgent, free_port
from tests.sse_client import SseStream
from tests.test_readme import SUITE_ENVIRONMENT

PROJECT = Path(__file__).resolve().parents[2]


class MadeRun:
    """`make run` on a free port, as a session of its own (the reloader and its server)."""

    def __init__(self, database):
        self.port = free_port()
        env = {name: value for name, value in os.environ.items() if name not in SUITE_ENVIRONMENT}
        env["DATABASE_URL"] = f"sqlite:///{database}"
        self.process = subprocess.Popen(["make", "-s", "run", f"PORT={self.port}"], cwd=PROJECT, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True)

    def demo_token(self):
        """The secret the demo command prints under its "Demo token for ..." line."""
        printed = []
        for line in self.process.stdout:
            printed.append(line)
            if len(printed) >= 3 and printed[-3].startswith("Demo token for") and line.strip():
                return line.strip()
        raise AssertionError("make run printed no demo token:\n" + "".join(printed))

    def wait_until_serving(self):
        probe, deadline = HttpAgent(self, None, timeout=5), time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if probe.get("/healthz")[0] == 200:
                    return
            except OSError:
                probe.close()
                time.sleep(0.2)
        raise AssertionError("make run's server did not answer /healthz within 60 s")

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def made_run(tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("make run serves SQLite whatever the suite runs on; once is enough")
    run = MadeRun(tmp_path / "demo.sqlite3")
    try:
        yield run
    finally:
        run.stop()


def test_make_runs_server_streams_and_holds_waits(made_run):
    secret = made_run.demo_token()
    made_run.wait_until_serving()
    stream = SseStream(made_run.port, "/api/v1/events/stream", {"Authorization": f"Bearer {secret}"})
    try:
        assert stream.status == 200
        assert stream.wait_for_text("retry: 2000", timeout=2)
        agent = HttpAgent(made_run, secret)
        status, opened, _ = agent.post({"kind": "ask", "body": "Does the demo stream?"})
        assert status == 201
        event = stream.next_event(timeout=3)
        assert event is not None and event[1]["thread"] == opened["thread"]["id"]
        started = time.monotonic()
        status, page, _ = agent.get(f"/api/v1/events?wait=1&cursor={event[0]}")
        assert (status, page["items"]) == (200, [])
        assert time.monotonic() - started >= 1
    finally:
        stream.close()
