"""The official MCP Python SDK as the client, over streamable HTTP against a live server and over stdio
against `manage.py parley_mcp_stdio` as a subprocess: what a real agent host will do."""
import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

import anyio
import httpx2
import pytest
from django.db import connection
from mcp import ClientSession
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

PROJECT = Path(__file__).resolve().parents[2]
CORE_TOOLS = {"get_manifest", "post", "read_message", "read_thread", "list_threads", "list_events", "inbox",
              "confirm", "dismiss"}


async def conversation(asker, answerer):
    """Two sessions, two tokens: initialize, discover, ask, answer, read the tree, meet a refusal."""
    initialized = await asker.initialize()
    assert initialized.protocol_version == "2025-11-25"
    assert initialized.server_info.name == "parley"
    await answerer.initialize()
    tools = {tool.name: tool for tool in (await asker.list_tools()).tools}
    assert CORE_TOOLS <= set(tools)
    assert tools["read_thread"].annotations.read_only_hint is True
    manifest = await asker.call_tool("get_manifest", {})
    assert manifest.structured_content["parley"] == "1"

    opened = await asker.call_tool("post", {"kind": "ask", "body": "Does the SDK speak Parley?"})
    assert opened.is_error is False, opened.content
    thread = opened.structured_content["thread"]["id"]
    answered = await answerer.call_tool("post", {"kind": "answer", "thread": thread, "body": "Fluently."})
    assert answered.structured_content["thread"]["state"] == "answered"

    tree = (await asker.call_tool("read_thread", {"thread": thread})).structured_content
    (root,) = tree["messages"]
    assert (root["kind"], [reply["body"] for reply in root["replies"]]) == ("ask", ["Fluently."])

    refused = await asker.call_tool("post", {"kind": "answer", "thread": thread, "body": "Me too."})
    assert refused.is_error is True
    assert refused.structured_content["error"]["reason"] == "self_reply"
    assert refused.content[0].text.startswith("self_reply: ")


@asynccontextmanager
async def http_session(url, secret):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                yield session


def test_the_sdk_converses_over_streamable_http(live_server, alice, bob):
    async def main():
        async with http_session(f"{live_server.url}/mcp", alice.secret) as asker, \
                http_session(f"{live_server.url}/mcp", bob.secret) as answerer:
            await conversation(asker, answerer)

    anyio.run(main)


def test_the_sdks_default_client_probes_for_a_newer_revision_then_takes_the_handshake(live_server, alice):
    """SDK 2's `Client` first asks `server/discover` at 2026-07-28, a revision Parley does not speak: the
    400 for the unsupported MCP-Protocol-Version sends it back to `initialize` at 2025-11-25."""
    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {alice.secret}"}) as http:
            async with Client(streamable_http_client(f"{live_server.url}/mcp", http_client=http)) as client:
                assert client.session.protocol_version == "2025-11-25"
                listed = await client.call_tool("list_threads", {})
                assert (listed.is_error, listed.structured_content["items"]) == (False, [])

    anyio.run(main)


# --- stdio -------------------------------------------------------------------------------------------

def manage(env, *args):
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=PROJECT, env={**os.environ, **env},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def stdio_env(transactional_db, tmp_path):
    """Settings for subprocesses, on a database they can see: PostgreSQL's test database (committed by
    transactional_db), or on SQLite, whose test database lives in this process's memory, a migrated file."""
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        credentials = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
        url = f"postgres://{credentials}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    else:
        url = f"sqlite:///{tmp_path / 'stdio.sqlite3'}"
    env = {"DJANGO_SETTINGS_MODULE": "parley_site.settings_test", "DATABASE_URL": url, "LOG_FORMAT": "text"}
    if connection.vendor != "postgresql":
        manage(env, "migrate", "--verbosity", "0")
    return env


def create_token(env, handle):
    return manage(env, "parley_token", "create", handle, "--rights", "read,write").strip().splitlines()[-1]


@asynccontextmanager
async def stdio_session(env, secret):
    server = StdioServerParameters(command=sys.executable, args=["manage.py", "parley_mcp_stdio"], cwd=PROJECT,
                                   env={**env, "PARLEY_TOKEN": secret})
    with open(os.devnull, "w") as logs:
        async with stdio_client(server, errlog=logs) as (read, write):
            async with ClientSession(read, write) as session:
                yield session


def test_the_sdk_converses_over_stdio(stdio_env):
    asker, answerer = create_token(stdio_env, "stdio-asker"), create_token(stdio_env, "stdio-answerer")

    async def main():
        async with stdio_session(stdio_env, asker) as asking, stdio_session(stdio_env, answerer) as answering:
            await conversation(asking, answering)

    anyio.run(main)
