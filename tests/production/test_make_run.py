"""`make run`, the README's first command, serves the whole feed profile (§16): its server streams and
holds waits. Started the way a newcomer starts it, on a demo database of its own."""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import textwrap
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from django.db import connection
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from bench.server import HttpAgent, free_port
from tests.sse_client import SseStream
from tests.test_readme import SUITE_ENVIRONMENT

PROJECT = Path(__file__).resolve().parents[2]
MCP_REMOTE = Path(__file__).resolve().parent / "mcp_remote" / "node_modules" / ".bin" / "mcp-remote"


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
        printed = self.read_until(lambda lines: len(lines) >= 3 and lines[-3].startswith("Demo token for")
                                  and lines[-1].strip())
        return printed[-1].strip()

    def read_until(self, done):
        """Lines printed from here on, up to the first at which done(lines so far) holds."""
        printed = []
        for line in self.process.stdout:
            printed.append(line)
            if done(printed):
                return printed
        raise AssertionError("make run stopped printing before it printed what was expected:\n" + "".join(printed))

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
        if self.process.returncode is not None:
            return
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


def printed_setups(made_run):
    """{title: text} of the MCP client set-ups make run prints after the demo token."""
    lines = made_run.read_until(lambda lines: lines[-1].startswith("Moderators' console"))
    text = "".join(lines)
    blocks = re.findall(r"^  (\S[^\n]*):\n((?:    [^\n]*\n)+)", text, re.M)
    return {title: textwrap.dedent(body) for title, body in blocks}


async def whoami_over(session_streams):
    async with session_streams as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return (await session.call_tool("whoami", {})).structured_content


def test_make_run_prints_client_setups_that_connect_with_the_demo_token(made_run):
    secret = made_run.demo_token()
    setups = printed_setups(made_run)
    claude = shlex.split(next(text for title, text in setups.items() if title == "Claude Code"))
    url = f"http://127.0.0.1:{made_run.port}/mcp"
    assert claude == ["claude", "mcp", "add", "--transport", "http", "parley", url, "--header",
                      f"Authorization: Bearer {secret}"]
    configs = [json.loads(text) for text in setups.values() if text.startswith("{")]
    http_entry = configs[0]["mcpServers"]["parley"]
    assert configs[1]["servers"]["parley"] == http_entry == {
        "type": "http", "url": url, "headers": {"Authorization": f"Bearer {secret}"}}
    stdio = configs[2]["mcpServers"]["parley"]
    made_run.wait_until_serving()

    async def main():
        async with httpx2.AsyncClient(headers=http_entry["headers"]) as http:
            over_http = await whoami_over(streamable_http_client(http_entry["url"], http_client=http))
        with open(os.devnull, "w") as logs:
            server = StdioServerParameters(command=stdio["command"], args=stdio["args"], env=stdio["env"])
            over_stdio = await whoami_over(stdio_client(server, errlog=logs))
        return over_http, over_stdio

    over_http, over_stdio = anyio.run(main)
    assert over_http == over_stdio
    assert over_http["identity"].startswith("ainotes:demo-agent-")


@pytest.fixture(scope="session")
def mcp_remote():
    """mcp-remote's command, installed from the committed lock in tests/production/mcp_remote/ at its first use."""
    if shutil.which("npm") is None:
        pytest.skip("mcp-remote needs node and npm, which this machine lacks")
    if not MCP_REMOTE.exists():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=MCP_REMOTE.parents[2],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"installing mcp-remote failed:\n{done.stdout}\n{done.stderr}"
    return MCP_REMOTE


def over_stdio(entry, command, messages):
    """The answers a stdio server started from a host's `mcpServers` entry gives to `messages`, one per line
    (its own process, `${NAME}` in its arguments filled from its env, as hosts do)."""
    args = [re.sub(r"\$\{(\w+)\}", lambda name: entry["env"][name[1]], arg) for arg in entry["args"]]
    process = subprocess.Popen([*command, *args[2:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env={**os.environ, "HOME": tempfile.mkdtemp()})
    answers = []
    try:
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            if "id" in message:
                answers.append(json.loads(process.stdout.readline()))
    finally:
        process.kill()
        process.wait()
    return answers


def test_make_runs_mcp_remote_line_connects_with_the_demo_token_and_finds_the_oauth_documents(made_run, mcp_remote):
    secret = made_run.demo_token()
    remote = json.loads(next(text for title, text in printed_setups(made_run).items() if "mcp-remote" in title))
    entry = remote["mcpServers"]["parley"]
    assert entry["args"][:2] == ["-y", "mcp-remote@0.15.1"] and entry["env"]["PARLEY_AUTHORIZATION"].endswith(secret)
    made_run.wait_until_serving()
    answers = over_stdio(entry, [str(mcp_remote)], [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}])
    assert answers[0]["result"]["serverInfo"]["name"] == "parley"
    assert answers[1]["result"]["structuredContent"]["identity"].startswith("ainotes:demo-agent-")
    made_run.stop()
    logged = made_run.process.stdout.read()
    probed = re.findall(r"GET (/\.well-known/\S+) (\d+)", logged)
    assert ("/.well-known/oauth-protected-resource/mcp", "200") in probed
    assert [path for path, status in probed if status != "200"] == []


def test_make_run_starts_the_job_worker_beside_the_server_and_it_delivers_webhooks(tmp_path, monkeypatch):
    """The worker (parley_worker) runs beside the demo server, and ends with it (§17)."""
    from tests.webhooks.conftest import Receiver

    if connection.vendor != "sqlite":
        pytest.skip("make run serves SQLite whatever the suite runs on; once is enough")
    monkeypatch.setenv("PARLEY_WEBHOOKS_ALLOW_PRIVATE", "1")  # the receiver is on loopback, over http
    monkeypatch.setenv("PARLEY_WEBHOOKS_ALLOW_HTTP", "1")
    monkeypatch.setenv("PARLEY_WEBHOOKS_ALLOW_PORTS", "any")  # on a port of its own
    receiver, run = Receiver(), MadeRun(tmp_path / "demo.sqlite3")
    try:
        agent = HttpAgent(run, run.demo_token())
        run.wait_until_serving()
        status, opened, _ = agent.post({"kind": "ask", "body": "Does the demo deliver webhooks?"})
        thread = opened["thread"]["id"]
        status, _, _ = agent.request("POST", "/api/v1/webhooks", {"url": receiver.url, "topics": [thread]})
        assert status == 201
        assert agent.post({"kind": "defer", "body": "Later.", "thread": thread})[0] == 201
        deadline = time.monotonic() + 30
        while not receiver.requests and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [payload["event"]["label"] for payload in receiver.payloads()] == ["defer"]
    finally:
        run.stop()
        receiver.close()
