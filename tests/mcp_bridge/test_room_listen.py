"""§20 "Feed, webhooks, MCP" over `subscriptions/listen` (§2, MCP push), with the SDK client against the ASGI
application as served: `parley://rooms/{id}` is announced within a second of anything new in the room,
`parley://rooms` and `notifications/resources/list_changed` when the rooms the caller sees change; never
anything about what the caller may not see."""
import time

import anyio
import pytest
from mcp.client.subscriptions import ResourcesListChanged, ResourceUpdated
from mcp.shared.exceptions import MCPError

from tests.mcp_bridge.test_sdk import http_client
from tests.rooms.conftest import add_member, make_room, operator  # noqa: F401  (fixtures)

QUIET_SECONDS = 1.5  # longer than the 1 s within which a listen is told


@pytest.fixture
def asgi_server(asgi_live_server):
    return f"{asgi_live_server}/mcp"


def first_event(url, listener, asker, listen, before=None, then=None):
    """Listen as `listener` (keyword arguments of the SDK's listen), run `before(asker client)` and wait
    QUIET_SECONDS, then `then(asker client)`: the first event the listen yields, and seconds since `then`
    was done (or `before`, without `then`)."""
    async def main():
        async with http_client(url, listener.secret, "auto") as client, \
                http_client(url, asker.secret, "auto") as other:
            async with client.listen(**listen) as subscription:
                if before is not None:
                    await before(other)
                    await anyio.sleep(QUIET_SECONDS if then is not None else 0)
                if then is not None:
                    await then(other)
                started = time.monotonic()
                with anyio.fail_after(5):
                    event = await subscription.__anext__()
                return event, time.monotonic() - started
    return anyio.run(main)


def asking(body, room):
    async def ask(client):
        answered = await client.call_tool("post", {"kind": "ask", "body": body, "room": room})
        assert answered.is_error is False, answered.content
    return ask


def in_thread(function, *args):
    async def run(_client):
        await anyio.to_thread.run_sync(function, *args)
    return run


def test_a_listen_on_a_room_wakes_within_a_second_for_a_new_thread_in_it(asgi_server, make_room, alice, bob):
    make_room("design")
    event, seconds = first_event(asgi_server, bob, alice, {"resource_subscriptions": ["parley://rooms/design"]},
                                 then=asking("In design?", "design"))
    assert event == ResourceUpdated("parley://rooms/design") and seconds < 1


def test_a_listen_on_a_room_is_told_nothing_of_a_room_it_may_not_see(
        asgi_server, make_room, add_member, alice, bob):
    make_room("design")
    add_member(make_room("team", visibility="private"), alice)
    event, _ = first_event(asgi_server, bob, alice, {"resource_subscriptions": ["parley://rooms/design"],
                                                     "resources_list_changed": True},
                           before=asking("In the private room", "team"), then=asking("In design", "design"))
    assert event == ResourceUpdated("parley://rooms/design")


def test_a_listen_on_a_room_the_caller_may_not_see_is_refused_not_found_as_an_unknown_one(
        asgi_server, make_room, bob):
    make_room("team", visibility="private")

    async def main(uri):
        async with http_client(asgi_server, bob.secret, "auto") as client:
            with pytest.raises(MCPError) as refused:
                async with client.listen(resource_subscriptions=[uri]):
                    pass
            return refused.value.error
    for uri in ("parley://rooms/team", "parley://rooms/rm_999"):
        error = anyio.run(main, uri)
        assert (error.code, error.data["reason"], error.data["detail"]["object"]) == (-32602, "not_found", "room")


def test_a_listen_with_resources_list_changed_is_told_when_the_caller_is_added_to_a_private_room(
        asgi_server, make_room, operator, alice, bob):
    from rooms.services import member_add

    team = make_room("team", visibility="private")
    event, seconds = first_event(asgi_server, bob, alice, {"resources_list_changed": True},
                                 then=in_thread(member_add, operator, team, bob.identity))
    assert event == ResourcesListChanged() and seconds < 1


def test_a_listen_with_resources_list_changed_is_not_told_of_a_room_it_may_not_see(
        asgi_server, make_room, operator, alice, bob):
    from rooms.services import room_create

    make_room("design")
    hidden = in_thread(room_create, operator, {"slug": "hidden", "name": "Hidden", "visibility": "private"})
    event, _ = first_event(asgi_server, bob, alice, {"resources_list_changed": True,
                                                     "resource_subscriptions": ["parley://rooms/design"]},
                           before=hidden, then=asking("In design", "design"))
    assert event == ResourceUpdated("parley://rooms/design")


def test_the_rooms_resource_is_told_when_a_room_the_caller_sees_changes(asgi_server, make_room, operator, alice, bob):
    from rooms.services import room_edit

    design = make_room("design")
    event, seconds = first_event(asgi_server, bob, alice, {"resource_subscriptions": ["parley://rooms"]},
                                 then=in_thread(room_edit, operator, design, {"name": "Design and build"}))
    assert event == ResourceUpdated("parley://rooms") and seconds < 1


def test_the_rooms_resource_is_not_told_of_a_change_of_a_room_the_caller_may_not_see(
        asgi_server, make_room, operator, alice, bob):
    from rooms.services import room_edit

    make_room("design")
    hidden = make_room("hidden", visibility="private")
    event, _ = first_event(asgi_server, bob, alice,
                           {"resource_subscriptions": ["parley://rooms", "parley://rooms/design"]},
                           before=in_thread(room_edit, operator, hidden, {"name": "Still hidden"}),
                           then=asking("In design", "design"))
    assert event == ResourceUpdated("parley://rooms/design")


def test_a_listen_on_a_room_is_told_when_a_thread_moves_out_of_it(asgi_server, make_room, as_alice, mod, bob):
    design, ops = make_room("design"), make_room("ops")
    thread = as_alice.ask("Moving on?", room=design)

    async def move(moderator):
        moved = await moderator.call_tool("move_thread", {"thread": thread, "room": ops})
        assert moved.is_error is False, moved.content
    event, seconds = first_event(asgi_server, bob, mod, {"resource_subscriptions": [f"parley://rooms/{design}"]},
                                 then=move)
    assert event == ResourceUpdated(f"parley://rooms/{design}") and seconds < 1


def test_a_listen_on_rooms_counts_against_the_lines_stream_limit(asgi_server, make_room, bob, settings):
    make_room("design")
    maximum = settings.PARLEY_FEED["streams_per_token_max"]

    async def main():
        async with http_client(asgi_server, bob.secret, "auto") as listener:
            async with anyio.create_task_group() as holders:
                opened = anyio.Semaphore(0)

                async def hold():
                    async with listener.listen(resource_subscriptions=["parley://rooms/design"]):
                        opened.release()
                        await anyio.sleep_forever()
                for _ in range(maximum):
                    holders.start_soon(hold)
                for _ in range(maximum):
                    await opened.acquire()
                with pytest.raises(MCPError) as refused:
                    async with listener.listen(resource_subscriptions=["parley://rooms"], resources_list_changed=True):
                        pass
                holders.cancel_scope.cancel()
            return refused.value.error

    error = anyio.run(main)
    assert (error.code, error.data["reason"], error.data["detail"]["limit"]) == (
        -32602, "limit_exceeded", "streams_per_token_max")
