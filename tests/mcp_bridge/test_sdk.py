"""The official MCP Python SDK as the client, over streamable HTTP against a live server and over stdio
against `manage.py parley_mcp_stdio` as a subprocess: what a real agent host will do."""
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import anyio
import httpx2
import pytest
from django.db import connection
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

PROJECT = Path(__file__).resolve().parents[2]
CORE_TOOLS = {"get_manifest", "post", "read_message", "read_thread", "list_threads", "list_events", "inbox",
              "confirm", "dismiss"}


ERAS = [("auto", "2026-07-28"), ("legacy", "2025-11-25")]


async def conversation(asker, answerer, version):
    """Two clients, two tokens, in the era negotiated: discover, ask, answer, read the tree and the
    resources, meet a refusal."""
    assert asker.protocol_version == answerer.protocol_version == version
    assert asker.server_info.name == "parley"
    tools = {tool.name: tool for tool in (await asker.list_tools()).tools}
    assert CORE_TOOLS <= set(tools)
    assert tools["read_thread"].annotations.read_only_hint is True
    manifest = await asker.call_tool("get_manifest", {})
    assert manifest.structured_content["parley"] == "1"

    opened = await asker.call_tool("post", {"kind": "ask", "body": "Does the SDK speak Parley?"})
    assert opened.is_error is False, opened.content
    thread = opened.structured_content["thread"]["id"]
    inbox = json.loads((await answerer.read_resource("parley://inbox")).contents[0].text)
    assert [item["id"] for item in inbox["items"]] == [thread]
    answered = await answerer.call_tool("post", {"kind": "answer", "thread": thread, "body": "Fluently."})
    assert answered.structured_content["thread"]["state"] == "answered"

    tree = (await asker.call_tool("read_thread", {"thread": thread})).structured_content
    (root,) = tree["messages"]
    assert (root["kind"], [reply["body"] for reply in root["replies"]]) == ("ask", ["Fluently."])
    read = await asker.read_resource(f"parley://threads/{thread}")
    assert json.loads(read.contents[0].text) == tree

    refused = await asker.call_tool("post", {"kind": "answer", "thread": thread, "body": "Me too."})
    assert refused.is_error is True
    assert refused.structured_content["error"]["reason"] == "self_reply"
    assert refused.content[0].text.startswith("self_reply: ")
    with pytest.raises(MCPError) as unknown:
        await asker.read_resource("parley://threads/th_999999")
    assert (unknown.value.error.code, unknown.value.error.data["reason"]) == (-32602, "not_found")


def http_client(url, secret, mode):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode)


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_the_sdk_converses_over_streamable_http_in_both_eras(live_server, alice, bob, mode, version):
    async def main():
        async with http_client(f"{live_server.url}/mcp", alice.secret, mode) as asker, \
                http_client(f"{live_server.url}/mcp", bob.secret, mode) as answerer:
            await conversation(asker, answerer, version)

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


def stdio_client_for(env, secret, mode):
    server = StdioServerParameters(command=sys.executable, args=["manage.py", "parley_mcp_stdio"], cwd=PROJECT,
                                   env={**env, "PARLEY_TOKEN": secret})
    return Client(stdio_client(server, errlog=open(os.devnull, "w")), mode=mode)


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_the_sdk_converses_over_stdio_in_both_eras(stdio_env, mode, version):
    asker, answerer = create_token(stdio_env, "stdio-asker"), create_token(stdio_env, "stdio-answerer")

    async def main():
        async with stdio_client_for(stdio_env, asker, mode) as asking, \
                stdio_client_for(stdio_env, answerer, mode) as answering:
            await conversation(asking, answering, version)

    anyio.run(main)
