"""A held `tools/call` over MCP (Parley v1 §2, "Held calls over MCP"; §16 `wait`), against the ASGI
application under uvicorn as it is served: a client that accepts `text/event-stream` gets a stream, a
comment heartbeat at once and every 5 s (with `notifications/progress` when it sent a progressToken), then
the one JSON-RPC result; a client that accepts only JSON gets JSON. `inbox wait=30` then works with the
official clients at their defaults: the Python SDK's, the example's own client, and the TypeScript SDK's."""
import importlib.util
import json
import os
import shutil
import subprocess
import threading
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.mcp_bridge.test_sdk import ERAS

TYPESCRIPT = Path(__file__).resolve().parent / "typescript"
DEMO = Path(__file__).resolve().parents[2] / "examples" / "agents_demo.py"
LEGACY = {"MCP-Protocol-Version": "2025-11-25"}
MODERN = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "inbox"}
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}
ASK_AFTER = 6  # seconds: longer than the 5 s read timeouts that held calls used to die of


def inbox_call(arguments, era_headers, meta=None):
    params = {"name": "inbox", "arguments": arguments}
    meta = {**(MODERN_META if era_headers is MODERN else {}), **(meta or {})}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}


def ask_later(base_url, token, seconds=ASK_AFTER):
    """Alice asks a question over REST after `seconds`, while the test's call holds; joined at the end."""
    def ask():
        time.sleep(seconds)
        httpx2.post(f"{base_url}/api/v1/messages", json={"kind": "ask", "body": "Anyone there?"},
                    headers={"Authorization": f"Bearer {token.secret}"}, timeout=10).raise_for_status()
    asking = threading.Thread(target=ask)
    asking.start()
    return asking


def sse_events(response, started):
    """(seconds since `started`, raw event block) for each block of an SSE answer."""
    buffered = ""
    for text in response.iter_text():
        buffered += text.replace("\r\n", "\n")
        while "\n\n" in buffered:
            block, buffered = buffered.split("\n\n", 1)
            yield time.monotonic() - started, block


def data_of(block):
    return json.loads(block.split("data: ", 1)[1])


@pytest.mark.parametrize("era", [LEGACY, MODERN], ids=["handshake-era", "2026-07-28"])
def test_a_held_call_that_accepts_a_stream_gets_heartbeats_with_progress_and_then_its_result(
        asgi_live_server, alice, bob, era):
    asking = ask_later(asgi_live_server, alice)
    headers = {**era, "Authorization": f"Bearer {bob.secret}", "Accept": "application/json, text/event-stream"}
    started = time.monotonic()
    call = inbox_call({"wait": 20}, era, {"progressToken": "p-1"})
    with httpx2.stream("POST", f"{asgi_live_server}/mcp", json=call, headers=headers, timeout=10) as response:
        assert (response.status_code, response.headers["content-type"]) == (200, "text/event-stream")
        events = list(sse_events(response, started))
    asking.join()
    heartbeats = [at for at, block in events if block == ": heartbeat"]
    progress = [(at, data_of(block)["params"]) for at, block in events if "notifications/progress" in block]
    *_, (answered_at, last) = events
    assert heartbeats[0] < 1 and 4.5 < heartbeats[1] < 6
    assert [(params["progressToken"], params["progress"]) for _, params in progress] == [("p-1", 0), ("p-1", 5)]
    result = data_of(last)
    assert (result["id"], result["result"]["isError"]) == (7, False)
    assert [item["title"] for item in result["result"]["structuredContent"]["items"]] == ["Anyone there?"]
    assert ASK_AFTER < answered_at < ASK_AFTER + 2


def test_a_held_call_without_a_progress_token_gets_heartbeats_only(asgi_live_server, bob):
    headers = {**LEGACY, "Authorization": f"Bearer {bob.secret}", "Accept": "application/json, text/event-stream"}
    with httpx2.stream("POST", f"{asgi_live_server}/mcp", json=inbox_call({"wait": 1}, LEGACY), headers=headers,
                       timeout=10) as response:
        blocks = [block for _, block in sse_events(response, time.monotonic())]
    assert blocks[0] == ": heartbeat" and not any("notifications/progress" in block for block in blocks)
    assert data_of(blocks[-1])["result"]["structuredContent"]["items"] == []


@pytest.mark.parametrize("era", [LEGACY, MODERN], ids=["handshake-era", "2026-07-28"])
@pytest.mark.parametrize("accept", ["application/json", "*/*", None])
def test_a_held_call_that_does_not_ask_for_a_stream_by_name_gets_json_as_before(asgi_live_server, bob, era, accept):
    headers = {**era, "Authorization": f"Bearer {bob.secret}", **({"Accept": accept} if accept else {})}
    response = httpx2.post(f"{asgi_live_server}/mcp", json=inbox_call({"wait": 1}, era, {"progressToken": 3}),
                           headers=headers, timeout=10)
    assert (response.status_code, response.headers["content-type"]) == (200, "application/json")
    assert response.json()["result"]["structuredContent"]["items"] == []


def test_a_call_that_does_not_hold_answers_json_even_when_a_stream_is_accepted(asgi_live_server, bob):
    headers = {**LEGACY, "Authorization": f"Bearer {bob.secret}", "Accept": "application/json, text/event-stream"}
    response = httpx2.post(f"{asgi_live_server}/mcp", json=inbox_call({}, LEGACY), headers=headers, timeout=10)
    assert (response.status_code, response.headers["content-type"]) == (200, "application/json")


# --- the clients at their defaults -----------------------------------------------------------------------

async def held_inbox(session_or_client):
    started = time.monotonic()
    result = await session_or_client.call_tool("inbox", {"wait": 30})
    return time.monotonic() - started, result


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_inbox_wait_30_works_with_the_python_sdks_own_http_client(asgi_live_server, alice, bob, mode, version):
    async def main():
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {bob.secret}"})  # the SDK's defaults
        async with Client(streamable_http_client(f"{asgi_live_server}/mcp", http_client=http), mode=mode) as client:
            assert client.protocol_version == version
            return await held_inbox(client)

    asking = ask_later(asgi_live_server, alice)
    seconds, result = anyio.run(main)
    asking.join()
    assert result.is_error is False and seconds > ASK_AFTER
    assert [item["title"] for item in result.structured_content["items"]] == ["Anyone there?"]


def test_inbox_wait_30_works_with_the_examples_own_http_client(asgi_live_server, alice, bob):
    spec = importlib.util.spec_from_file_location("agents_demo", DEMO)
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)

    async def main():
        async with AsyncExitStack() as stack:
            agent = await demo.connect(stack, f"{asgi_live_server}/mcp", "Bob", bob.secret)
            return await held_inbox(agent.session)

    asking = ask_later(asgi_live_server, alice)
    seconds, result = anyio.run(main)
    asking.join()
    assert result.is_error is False and seconds > ASK_AFTER
    assert [item["title"] for item in result.structured_content["items"]] == ["Anyone there?"]


@pytest.fixture(scope="session")
def typescript_sdk():
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the TypeScript SDK needs {' and '.join(missing)}, which this machine lacks")
    if not (TYPESCRIPT / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=TYPESCRIPT,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"installing the TypeScript SDK failed:\n{done.stdout}\n{done.stderr}"
    return TYPESCRIPT / "held_inbox.mjs"


def test_inbox_wait_30_works_with_the_typescript_sdk_at_its_defaults(typescript_sdk, asgi_live_server, alice, bob):
    node = subprocess.Popen(["node", str(typescript_sdk), f"{asgi_live_server}/mcp", json.dumps({"wait": 30})],
                            env={**os.environ, "PARLEY_TOKEN": bob.secret}, stdout=subprocess.PIPE, text=True)
    try:
        assert node.stdout.readline().strip() == "connected"
        asking = ask_later(asgi_live_server, alice)
        answer = json.loads(node.stdout.readline())
        asking.join()
    finally:
        node.kill()
        node.wait()
    assert answer["result"]["isError"] is False and answer["seconds"] > ASK_AFTER
    assert [item["title"] for item in answer["result"]["structuredContent"]["items"]] == ["Anyone there?"]
