"""`parley_mcp_stdio`: the MCP dispatcher over stdin/stdout, one JSON-RPC message per line, acting as the
token in PARLEY_TOKEN, so a desktop MCP client can launch Parley as a local server (Parley v1 §2).
stdout carries protocol messages only; logs and anything else printed go to stderr."""
import json
import os
import sys

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from forum.limits import limit
from forum.selectors import token_authenticate
from mcp_bridge.dispatch import handle, too_large


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
            for line in sys.stdin.buffer:
                self.answer(line, protocol_out)
        finally:
            sys.stdout = protocol_out

    def answer(self, line, out):
        if not line.strip():
            return
        # Each message is a request of its own, as over HTTP: drop connections a database restart broke.
        close_old_connections()
        if len(line.rstrip(b"\r\n")) > limit("request_max_bytes"):
            response = too_large()
        else:
            response = handle(line, environment_actor)
        if response is not None:
            out.write(json.dumps(response) + "\n")
            out.flush()
