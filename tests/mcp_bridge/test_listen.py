"""`subscriptions/listen` (Parley v1 §2, MCP push): the SDK client's listen against the ASGI application
as it is served. Woken by the feed's notes (PostgreSQL's LISTEN/NOTIFY; SQLite wakes in-process), refused
before anything is acknowledged."""
import time

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from forum.actors import Actor
from forum.tokens import token_rotate

from tests.mcp_bridge.test_sdk import create_token, http_client, stdio_client_for, stdio_env  # noqa: F401 - a fixture


@pytest.fixture
def asgi_server(asgi_live_server):
    return f"{asgi_live_server}/mcp"


def test_listen_on_the_inbox_wakes_within_a_second_when_another_agent_asks(asgi_server, alice, bob):
    async def main():
        async with http_client(asgi_server, bob.secret, "auto") as listener, \
                http_client(asgi_server, alice.secret, "auto") as asker:
            async with listener.listen(resource_subscriptions=["parley://inbox"]) as subscription:
                assert subscription.honored.resource_subscriptions == ["parley://inbox"]
                asked = await asker.call_tool("post", {"kind": "ask", "body": "Anyone listening?"})
                posted = time.monotonic()
                with anyio.fail_after(1):
                    event = await subscription.__anext__()
                return event.uri, time.monotonic() - posted, asked.structured_content["thread"]["id"]

    uri, seconds, thread = anyio.run(main)
    assert uri == "parley://inbox"
    assert seconds < 1


def test_listen_on_a_thread_wakes_for_a_note_that_moves_nothing(asgi_server, alice, bob):
    async def main():
        async with http_client(asgi_server, bob.secret, "auto") as listener, \
                http_client(asgi_server, alice.secret, "auto") as asker:
            thread = (await asker.call_tool("post", {"kind": "ask", "body": "Follow me"})).structured_content
            uri = f"parley://threads/{thread['thread']['id']}"
            async with listener.listen(resource_subscriptions=[uri]) as subscription:
                noted = await listener.call_tool("post", {"kind": "note", "thread": thread["thread"]["id"],
                                                          "body": "An aside."})
                assert noted.is_error is False, noted.content
                with anyio.fail_after(1):
                    return uri, (await subscription.__anext__()).uri

    subscribed, woken = anyio.run(main)
    assert woken == subscribed


def refusal_of_listen(url, secret, uris):
    async def main():
        async with http_client(url, secret, "auto") as listener:
            with pytest.raises(MCPError) as refused:
                async with listener.listen(resource_subscriptions=uris):
                    pass
            return refused.value.error
    return anyio.run(main)


def test_a_listen_without_a_token_is_refused_before_any_acknowledgement(asgi_server):
    error = refusal_of_listen(asgi_server, "pt_not-a-token", ["parley://inbox"])
    assert (error.code, error.data["reason"]) == (-32602, "token_invalid")


def test_a_listen_to_an_unknown_thread_is_refused_not_found(asgi_server, bob):
    error = refusal_of_listen(asgi_server, bob.secret, ["parley://threads/th_424242"])
    assert (error.code, error.data["reason"]) == (-32602, "not_found")


def test_a_listen_beyond_the_lines_stream_limit_is_refused_limit_exceeded(asgi_server, bob, settings):
    maximum = settings.PARLEY_FEED["streams_per_token_max"]

    async def main():
        async with http_client(asgi_server, bob.secret, "auto") as listener:
            async with anyio.create_task_group() as holders:
                opened = anyio.Semaphore(0)

                async def hold():
                    async with listener.listen(resource_subscriptions=["parley://inbox"]):
                        opened.release()
                        await anyio.sleep_forever()
                for _ in range(maximum):
                    holders.start_soon(hold)
                for _ in range(maximum):
                    await opened.acquire()
                with pytest.raises(MCPError) as refused:
                    async with listener.listen(resource_subscriptions=["parley://inbox"]):
                        pass
                holders.cancel_scope.cancel()
            return refused.value.error

    error = anyio.run(main)
    assert (error.code, error.data["reason"], error.data["detail"]["limit"]) == (
        -32602, "limit_exceeded", "streams_per_token_max")


def test_a_listen_opened_with_a_secret_rotated_away_ends(asgi_server, alice, bob):
    async def main():
        async with http_client(asgi_server, bob.secret, "auto") as listener, \
                http_client(asgi_server, alice.secret, "auto") as asker:
            async with listener.listen(resource_subscriptions=["parley://inbox"]) as subscription:
                await anyio.to_thread.run_sync(token_rotate, Actor.for_operator("tests"), bob.pk)
                await asker.call_tool("post", {"kind": "ask", "body": "Posted after the rotation"})  # SQLite
                with anyio.fail_after(5):
                    async for _ in subscription:
                        pass  # a wake-up before the end is allowed; the stream must end
        return True

    assert anyio.run(main)


def test_a_listen_on_stdio_wakes_for_a_plain_note_another_process_posts(stdio_env):
    """Across processes: the listener's stdio server hears a write of another process only through the
    database (PostgreSQL's notes; on a SQLite file the feed's poll), and a note moves neither state nor turn."""
    asker, listener = create_token(stdio_env, "cross-asker"), create_token(stdio_env, "cross-listener")

    async def main():
        async with stdio_client_for(stdio_env, asker, "auto") as asking, \
                stdio_client_for(stdio_env, listener, "auto") as listening:
            opened = (await asking.call_tool("post", {"kind": "ask", "body": "Who hears this?"})).structured_content
            thread = opened["thread"]["id"]
            answered = await listening.call_tool("post", {"kind": "answer", "thread": thread, "body": "I do."})
            uri = f"parley://threads/{thread}"
            async with listening.listen(resource_subscriptions=[uri]) as subscription:
                await woken_until_quiet(subscription)  # a listener that starts wakes every follower once
                noted = await asking.call_tool("post", {"kind": "note", "thread": thread, "body": "An aside.",
                                                        "parent": answered.structured_content["message"]["id"]})
                assert noted.is_error is False, noted.content
                posted = time.monotonic()
                with anyio.fail_after(5):
                    woken = (await subscription.__anext__()).uri
                return uri, woken, time.monotonic() - posted

    subscribed, woken, seconds = anyio.run(main)
    assert woken == subscribed
    assert seconds < 1


async def woken_until_quiet(subscription, quiet=1.5):
    while True:
        with anyio.move_on_after(quiet):
            await subscription.__anext__()
            continue
        return
