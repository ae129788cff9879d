"""Three scripted agents hold a short Parley conversation through MCP, each an official-SDK client with
its own token: Alice asks, Bob answers, Alice's attempt to answer her own question is refused
(`self_reply`), Alice proposes a decision, and Mo, a moderator holding `lock`, confirms it.

    ALICE_TOKEN=... BOB_TOKEN=... MOD_TOKEN=... python examples/agents_demo.py --url http://127.0.0.1:8000/mcp

The README's "MCP" section shows how to make the tokens. Exits 0 when the conversation went as scripted.
"""
import argparse
import os
import sys
from contextlib import AsyncExitStack

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


# httpx's own default is 5 s for everything. A call with `wait` (inbox wait=30, the server's instructions
# recommend it) holds up to 30 s: the server streams it a heartbeat every 5 s, so the read timeout must
# outlast the quiet between two of them, and a server that answers JSON only, the whole wait.
HTTP_TIMEOUT = httpx2.Timeout(30.0, read=60.0)


class OffScript(Exception):
    pass


class ScriptedAgent:
    def __init__(self, name, session):
        self.name, self.session = name, session

    async def act(self, tool, arguments, refused_with=None):
        """Call a tool and print what happened; `refused_with` names the refusal the script expects."""
        result = await self.session.call_tool(tool, arguments)
        if result.is_error:
            print(f"{self.name:>5} ✗ {tool}: {result.content[0].text}")
            reason = result.structured_content["error"]["reason"]
        else:
            reason = None
            print(f"{self.name:>5} → {tool}: {summary(result.structured_content)}")
        if reason != refused_with:
            raise OffScript(f"{self.name}'s {tool} expected {refused_with or 'success'}, got {reason or 'success'}")
        return result.structured_content


def summary(body):
    message, thread = body.get("message"), body.get("thread")
    if thread is None:
        return f"{len(body.get('items', []))} item(s)"
    said = f'{message["kind"]} "{message["body"]}", ' if message else ""
    confirmed = "confirmed" if thread["state_confirmed_at"] else "proposed"
    awaiting = thread["awaiting"]
    return (f"{said}{thread['id']} is {thread['state']} ({confirmed}); "
            f"awaiting {awaiting['act'] or 'nothing'} from {awaiting['from'] or 'nobody'}")


async def connect(stack, url, name, secret):
    client = await stack.enter_async_context(httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"},
                                                                timeout=HTTP_TIMEOUT))
    read, write = await stack.enter_async_context(streamable_http_client(url, http_client=client))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return ScriptedAgent(name, session)


async def conversation(alice, bob, mod):
    opened = await alice.act("post", {"kind": "ask", "body": "Should staging listen on port 8000 or 8080?",
                                      "provenance": {"model": "scripted", "client": "agents_demo"}})
    thread = opened["thread"]["id"]
    await bob.act("inbox", {"wait": 30})  # answers at once: the question is there already
    await bob.act("post", {"kind": "answer", "thread": thread, "body": "8000: make run uses it already."})
    await alice.act("post", {"kind": "answer", "thread": thread, "body": "I agree with myself."},
                    refused_with="self_reply")
    await alice.act("post", {"kind": "decide", "thread": thread, "body": "8000 it is."})
    queue = await mod.act("inbox", {"awaiting": "confirmation"})
    if thread not in [item["id"] for item in queue["items"]]:
        raise OffScript(f"{thread} is missing from the moderation queue")
    confirmed = await mod.act("confirm", {"thread": thread})
    if not (confirmed["thread"]["state"] == "decided" and confirmed["thread"]["state_confirmed_at"]):
        raise OffScript("the decision was not confirmed")
    return thread


async def main(url, secrets):
    async with AsyncExitStack() as stack:
        alice, bob, mod = [await connect(stack, url, name, secret) for name, secret in secrets.items()]
        thread = await conversation(alice, bob, mod)
    print(f"done: {thread} is decided and confirmed")


def tokens_from_environment():
    names = {"Alice": "ALICE_TOKEN", "Bob": "BOB_TOKEN", "Mo": "MOD_TOKEN"}
    missing = [variable for variable in names.values() if not os.environ.get(variable)]
    if missing:
        sys.exit(f"set {', '.join(missing)} (see the README's MCP section)")
    return {name: os.environ[variable] for name, variable in names.items()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/mcp", help="the server's MCP endpoint")
    options = parser.parse_args()
    try:
        anyio.run(main, options.url, tokens_from_environment())
    except OffScript as problem:
        sys.exit(f"off script: {problem}")
