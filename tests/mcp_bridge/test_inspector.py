"""The MCP Inspector's CLI (npm @modelcontextprotocol/inspector 2.12, the newest 2.x, pinned in
tests/mcp_bridge/inspector/) run with the machine's node against Parley over streamable HTTP and over stdio:
it lists the tools, finding nothing unportable in their schemas, and posts. The first run installs it there
from the committed lock; after that it runs offline."""
import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from bench.server import GunicornServer
from forum.dispatch import OPERATIONS
from tests.mcp_bridge.test_sdk import PROJECT, create_token, stdio_env  # noqa: F401 - stdio_env is a fixture

INSPECTOR = Path(__file__).resolve().parent / "inspector"
CLI = INSPECTOR / "node_modules" / ".bin" / "mcp-inspector"
NPM_TIMEOUT = 600
TOOL_IS_ERROR = 5  # the CLI's exit status for a tool result with isError, which it prints all the same


@pytest.fixture(scope="session")
def inspector_cli():
    if connection.vendor != "sqlite":
        pytest.skip("the Inspector checks the MCP binding, which is the same on every database; once is enough")
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the MCP Inspector needs {' and '.join(missing)}, which this machine lacks")
    folder = os.open(INSPECTOR, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # one install at a time, whichever test workers ask at once
        if not CLI.exists():
            # The locked versions, and the lock left as committed. Not `npm ci`: it refuses this lock, because
            # vite names an optional dependency (napi-windows-process-start-time) that the registry does not hold.
            done = subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error"],
                                  cwd=INSPECTOR, capture_output=True, text=True, timeout=NPM_TIMEOUT)
            assert done.returncode == 0, f"installing the MCP Inspector failed:\n{done.stdout}\n{done.stderr}"
    finally:
        os.close(folder)  # and with it the lock
    return CLI


class Inspector:
    """One target as the Inspector CLI reaches it: `options` (a URL with its headers, or a stdio server's
    environment), and for stdio the server's command, which goes last."""

    def __init__(self, cli, home, options, command=()):
        self.cli, self.options, self.command = cli, options, list(command)
        # Its catalog and settings go to a folder of the test's own, never to the user's home.
        self.env = {**os.environ, "HOME": str(home), "MCP_CATALOG_PATH": str(home / "mcp.json")}

    def run(self, *arguments, status=0):
        command = ["--", *self.command] if self.command else []
        # A stdio server is Django starting up: on a loaded machine that outlasts the CLI's 15 s default.
        done = subprocess.run([str(self.cli), "--cli", "--connect-timeout", "90000", *self.options, *arguments,
                               *command], env=self.env, capture_output=True, text=True, timeout=180)
        assert done.returncode == status, f"{done.stdout}\n{done.stderr}"
        return json.loads(done.stdout)

    def list_tools(self):
        """The tools by name, and what the Inspector's portability check (`--strict`) finds in their schemas:
        errors (a bare boolean schema) and warnings (a type array such as ["string", "null"], a remote $ref,
        a schema that constrains nothing), each with its tool, path and fix."""
        listed = self.run("--method", "tools/list", "--strict", "--format", "json")
        return {tool["name"]: tool for tool in listed["result"]["tools"]}, listed.get("schemaFindings", [])

    def post(self, status=0, **arguments):
        pairs = [f"{name}={value}" for name, value in arguments.items()]
        return self.run("--method", "tools/call", "--tool-name", "post", "--tool-arg", *pairs, status=status)


def lists_the_tools_and_posts(inspector):
    tools, unportable = inspector.list_tools()
    assert unportable == []  # no error and no warning
    assert set(tools) == set(OPERATIONS)
    assert "idempotency_key" in tools["post"]["inputSchema"]["properties"]
    first = inspector.post(kind="ask", body="Does the Inspector speak Parley?", idempotency_key="inspector-1")
    assert first.get("isError") is not True, first
    posted = first["structuredContent"]
    assert (posted["message"]["body"], posted["thread"]["state"]) == ("Does the Inspector speak Parley?", "open")
    again = inspector.post(kind="ask", body="Does the Inspector speak Parley?", idempotency_key="inspector-1")
    assert again["structuredContent"]["message"]["id"] == posted["message"]["id"]  # replayed, not posted twice
    # The refusal reaches it whole: its structuredContent matches the declared outputSchema as well.
    refused = inspector.post(kind="answer", body="I do.", thread=posted["thread"]["id"], status=TOOL_IS_ERROR)
    assert refused["isError"] is True and refused["structuredContent"]["error"]["reason"] == "self_reply"


def test_the_inspector_lists_the_tools_and_posts_over_streamable_http(inspector_cli, stdio_env, tmp_path):
    secret = create_token(stdio_env, "inspector-http")
    with GunicornServer(stdio_env["DATABASE_URL"], workers=1, LOG_LEVEL="WARNING") as server:
        target = [f"http://127.0.0.1:{server.port}/mcp", "--transport", "http",
                  "--header", f"Authorization: Bearer {secret}"]
        lists_the_tools_and_posts(Inspector(inspector_cli, tmp_path, target))


def test_the_inspector_lists_the_tools_and_posts_over_stdio(inspector_cli, stdio_env, tmp_path):
    secret = create_token(stdio_env, "inspector-stdio")
    environment = [f"-e{name}={value}" for name, value in {**stdio_env, "PARLEY_TOKEN": secret}.items()]
    options = [*environment, "--cwd", str(PROJECT), "--transport", "stdio"]
    command = [sys.executable, "manage.py", "parley_mcp_stdio"]
    lists_the_tools_and_posts(Inspector(inspector_cli, tmp_path, options, command))
