"""`parley_mcp_stdio`: the MCP dispatcher over stdin/stdout, one JSON-RPC message per line, acting as the
token in PARLEY_TOKEN, so a desktop MCP client can launch Parley as a local server (Parley v1 §2).
stdout carries protocol messages only; logs and anything else printed go to stderr.

Messages are answered one after the other, each in a thread; the command itself runs on an event loop, so
that a tool call held open (`wait`, §16) waits there as it does on the HTTP server."""
import asyncio
import json
import os
import sys

from asgiref.sync import sync_to_async
from django.core.management.base import BaseCommand
from django.db import close_old_connections

from forum.held import SERVING_LOOP, Held, outcome_of
from forum.limits import limit
from forum.tokens import token_authenticate
from mcp_bridge.dispatch import handle, too_large
from parley_site.statement_timeout import bounded


def environment_actor():
    # Read per call, like a bearer header: a revoked token stops working without a restart.
    return token_authenticate(os.environ.get("PARLEY_TOKEN", "").strip())


class Command(BaseCommand):
    help = "Serve MCP over stdin/stdout as the token in PARLEY_TOKEN (newline-delimited JSON-RPC)."

    def handle(self, *args, **options):
        protocol_out = sys.stdout
        sys.stdout = sys.stderr  # a stray print must not corrupt the protocol stream
        if not os.environ.get("PARLEY_TOKEN"):
            sys.stderr.write("parley_mcp_stdio: PARLEY_TOKEN is not set; tool calls will be token_invalid\n")
        try:
            asyncio.run(self.serve(protocol_out))
        finally:
            sys.stdout = protocol_out

    async def serve(self, out):
        SERVING_LOOP.set(asyncio.get_running_loop())
        read_line = sync_to_async(sys.stdin.buffer.readline, thread_sensitive=False)
        while line := await read_line():
            response = await sync_to_async(answer)(line)
            if isinstance(response, Held):
                response = response.render(await outcome_of(response))
            if response is not None:
                out.write(json.dumps(response) + "\n")
                out.flush()


def answer(line):
    """The response to one line: a JSON-RPC message, None, or a Held call's response to come."""
    if not line.strip():
        return None
    # Each message is a request of its own, as over HTTP: drop connections a database restart broke.
    close_old_connections()
    if len(line.rstrip(b"\r\n")) > limit("request_max_bytes"):
        return too_large()
    with bounded():
        return handle(line, environment_actor)
