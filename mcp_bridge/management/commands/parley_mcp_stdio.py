"""`parley_mcp_stdio`: the MCP server (mcp_bridge.server, both eras) over the SDK's stdio transport, one
JSON-RPC message per line, acting as the token in PARLEY_TOKEN, so a desktop MCP client can launch Parley
as a local server (Parley v1 §2). stdout carries protocol messages only; logs and anything else printed go
to stderr.

Each message is a request of its own, as over HTTP: its sync code runs on the pool of request threads,
with the connection checked first and given back after (mcp_bridge.context); a tool call held open
(`wait`, §16) and a listen stream wait on the command's event loop.

Hand-written in front of the SDK: each line is checked before it is handed on, because the SDK's stdio
transport drops a line it cannot parse without an answer (mcp.shared.jsonrpc_dispatcher, "transport
yielded exception"), where JSON-RPC wants -32700; a line over `request_max_bytes` is refused unread, and a
line that is not one JSON-RPC message is -32600, as on HTTP (mcp_bridge.http)."""
import asyncio
import json
import os
import sys

import anyio
import anyio.to_thread
from django.core.management.base import BaseCommand
from mcp.server.stdio import stdio_server

from feed.profile import WAIT_MAX_SECONDS
from forum.held import SERVING_LOOP
from forum.limits import limit
from forum.tokens import token_authenticate
from mcp_bridge.context import CALLER, REQUEST_THREADS
from mcp_bridge.http import envelope_fault, too_large
from mcp_bridge.server import SERVER
from parley_site.sync_threads import SYNC_WORK


def environment_actor():
    # Read per call, like a bearer header: a revoked token stops working without a restart.
    return token_authenticate(os.environ.get("PARLEY_TOKEN", "").strip())


class ProtocolOut:
    """stdout as the SDK's transport writes it (whole lines), shared with the line checks' own answers. It
    notes which requests are answered, so that the end of stdin waits for the answers still owed."""

    def __init__(self, out):
        self.out, self.owed, self.all_answered = out, set(), anyio.Event()

    def expect(self, message):
        if "id" in message and "method" in message and message["method"] != "subscriptions/listen":
            self.owed.add(json.dumps(message["id"]))
            self.all_answered = anyio.Event()

    async def write(self, text):
        self.out.write(text)
        answered = json.loads(text)
        if "method" not in answered:
            self.owed.discard(json.dumps(answered.get("id")))
            if not self.owed:
                self.all_answered.set()

    async def flush(self):
        self.out.flush()

    async def answer(self, body):
        await self.write(json.dumps(body) + "\n")
        await self.flush()


class CheckedLines:
    """stdin's lines for the SDK's transport: those that are one JSON-RPC message; the others are answered."""

    def __init__(self, stdin, out):
        self.stdin, self.out = stdin, out

    def __aiter__(self):
        return self

    async def __anext__(self):
        while line := await anyio.to_thread.run_sync(self.stdin.readline):
            if not line.strip():
                continue
            if len(line.rstrip(b"\r\n")) > limit("request_max_bytes"):
                await self.out.answer(too_large())
                continue
            fault = envelope_fault(line)
            if fault is not None:
                await self.out.answer(fault[1])
                continue
            self.out.expect(json.loads(line))
            return line.decode("utf-8")
        # The client closed stdin: what it asked before is still answered (a held call within its wait),
        # then the server stops. A listen stream just ends.
        if self.out.owed:
            with anyio.move_on_after(WAIT_MAX_SECONDS + 5):
                await self.out.all_answered.wait()
        raise StopAsyncIteration


class Command(BaseCommand):
    help = "Serve MCP over stdin/stdout as the token in PARLEY_TOKEN (newline-delimited JSON-RPC)."

    def handle(self, *args, **options):
        protocol_out = sys.stdout
        sys.stdout = sys.stderr  # a stray print must not corrupt the protocol stream
        if not os.environ.get("PARLEY_TOKEN"):
            sys.stderr.write("parley_mcp_stdio: PARLEY_TOKEN is not set; tool calls will be token_invalid\n")
        try:
            anyio.run(self.serve, sys.stdin.buffer, protocol_out)
        finally:
            sys.stdout = protocol_out

    async def serve(self, stdin, out):
        SERVING_LOOP.set(asyncio.get_running_loop())
        CALLER.set(environment_actor)
        REQUEST_THREADS.set(SYNC_WORK)
        protocol = ProtocolOut(out)
        async with stdio_server(stdin=CheckedLines(stdin, protocol), stdout=protocol) as (read, write):
            await SERVER.run(read, write, SERVER.create_initialization_options())
