"""§20 "No existence leak", as a property, on what follows the lists and what leaves the forum: held calls
(`wait`, feed.wait) and the event stream (feed.stream) read through the same listings, the reads a woken
follower shares (feed.follow.SharedReads), webhook fan-out and delivery for `inbox` and `th_<n>` topics
(webhooks.delivery), MCP resources (mcp_bridge.resources, as the bridge reads them) and listen
notifications (mcp_bridge.listen), and attestation export (evidence). Each is called in-process, on the code
its door runs; the worlds and the oracle are tests/rooms/world.py's. A follower subscribed while it could
see a thread is told nothing of it once the thread moved out of its sight."""
import asyncio
import json
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings

from dialectic.models import Claim
from feed.follow import read_listing
from feed.stream import stream_for
from forum.access import visible_thread_ids, visible_threads_q
from forum.commit_order import START
from forum.models import StateEvent, Thread
from mcp_bridge import resources
from mcp_bridge.listen import Listening
from parley_site.errors import ParleyError
from tests.rooms.world import MISSING, PAGE, WORLDS, answer, as_missing, build, numbers, oracle

EXAMPLES = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def held(actor, operation, **arguments):
    """A list call with `wait`: with something to answer, it answers at once through the holding profile's
    read (feed.wait.hold); holding itself is the woken follower's read, checked below (read_listing)."""
    return answer(actor, operation, wait=1, limit=200, **arguments)


def streamed(actor, args):
    """The items an event stream sends from the list's start, read PAGE at a time as the stream does."""
    stream = stream_for(actor, args, PAGE)
    stream.after, sent = START, []
    while True:
        items = stream.next_items()
        for item in items:
            sent.append(json.loads(stream.frame(item).split("data: ", 1)[1]))
        if stream.caught_up:
            return sent


def check_held_and_streamed(actor, sight):
    events, inbox = answer(actor, "list_events", limit=200)[1], answer(actor, "inbox", limit=200)[1]
    assert {int(item["thread"][3:]) for item in events["items"]} == set(sight.threads)
    assert set(numbers(inbox["items"])) <= set(sight.threads)
    for operation, page in (("list_events", events), ("inbox", inbox)):
        if page["items"]:
            assert held(actor, operation) == (200, page)
    assert streamed(actor, {}) == events["items"]
    assert streamed(actor, {"inbox": "1"}) == inbox["items"]
    for thread in Thread.objects.order_by("id"):
        if thread.pk in sight.threads:
            assert {item["thread"] for item in streamed(actor, {"thread": thread.pk})} == {f"th_{thread.pk}"}
            continue
        assert held(actor, "list_events", thread=f"th_{thread.pk}") == as_missing(
            actor, "list_events", "thread", f"th_{thread.pk}", f"th_{MISSING}", wait=1, limit=200)
        try:
            streamed(actor, {"thread": thread.pk})
        except ParleyError as refusal:
            assert (refusal.status, refusal.as_body()) == as_missing(
                actor, "list_events", "thread", f"th_{thread.pk}", f"th_{MISSING}")
        else:
            raise AssertionError(f"a stream of invisible th_{thread.pk} opened for {actor.identity}")
    from rooms.models import Room
    for room in Room.objects.order_by("id"):  # the stream's room= (§20), for the events and the inbox
        in_room = set(Thread.objects.filter(pk__in=sight.threads, room_number=room.pk).values_list("pk", flat=True))
        for args in ({"room": f"rm_{room.pk}"}, {"room": f"rm_{room.pk}", "inbox": "1"}):
            if room.pk in sight.rooms:
                sent = streamed(actor, args)
                assert {int((item.get("thread") or item["id"])[3:]) for item in sent} <= in_room
                continue
            try:
                streamed(actor, args)
            except ParleyError as refusal:
                assert (refusal.status, refusal.as_body()) == as_missing(
                    actor, "list_events", "room", f"rm_{room.pk}", f"rm_{MISSING}")
            else:
                raise AssertionError(f"a stream of invisible rm_{room.pk} opened for {actor.identity}")
    # a woken follower's read (feed.follow.read_listing, on the read pool) is the listing's own read
    listing = stream_for(actor, {}, PAGE).listing
    woken = read_listing(actor, listing, START, 200, 0.0)
    assert {event.thread_id for event in woken} == set(sight.threads)


def check_shared_reads(actors, sights):
    """Followers share a read only when their predicates are equal (feed.follow.SharedReads): equal
    predicates must mean the same sight."""
    predicates = {handle: visible_threads_q(actor) for handle, actor in actors.items()}
    for one in actors:
        for other in actors:
            if predicates[one] == predicates[other]:
                assert sights[one].threads == sights[other].threads, (one, other)


def resource(actor, uri):
    """A resources/read as the MCP bridge does it: ("ok", contents) or ("refused", JSON-RPC error data)."""
    try:
        return "ok", json.loads(resources.read(uri, lambda: actor)["contents"][0]["text"])
    except Exception as refusal:  # noqa: BLE001  the bridge's MCPError, its data §13's refusal
        return "refused", refusal.error.data


def resource_as_missing(actor, uri, missing_uri, ref, missing):
    kind, data = resource(actor, missing_uri)
    assert kind == "refused" and data["reason"] == "not_found", data
    return kind, json.loads(json.dumps(data).replace(missing, ref))


def check_resources(actor, sight):
    kind, rooms = resource(actor, resources.ROOMS)
    assert kind == "ok" and set(numbers(rooms["items"])) == sight.rooms
    kind, inbox = resource(actor, resources.INBOX)
    assert kind == "ok" and set(numbers(inbox["items"])) <= set(sight.threads)
    from rooms.models import Room
    for room in Room.objects.order_by("id"):
        uri = f"parley://rooms/rm_{room.pk}"
        if room.pk in sight.rooms:
            kind, page = resource(actor, uri)
            assert kind == "ok" and set(numbers(page["threads"]["items"])) <= set(sight.threads)
            assert {thread.pk for thread in Thread.objects.filter(pk__in=sight.threads, room_number=room.pk)} == set(
                numbers(page["threads"]["items"]))
        else:
            assert resource(actor, uri) == resource_as_missing(actor, uri, f"parley://rooms/rm_{MISSING}",
                                                               f"rm_{room.pk}", f"rm_{MISSING}")
    for thread in Thread.objects.order_by("id"):
        uri = f"parley://threads/th_{thread.pk}"
        if thread.pk in sight.threads:
            assert resource(actor, uri)[0] == "ok"
        else:
            assert resource(actor, uri) == resource_as_missing(actor, uri, f"parley://threads/th_{MISSING}",
                                                               f"th_{thread.pk}", f"th_{MISSING}")


def check_notifications(actor, sight):
    """A listen stream that subscribed to every thread and the inbox while it could see them all: notes of
    every thread announce only the threads the line sees now (mcp_bridge.listen.Listening.updated)."""
    threads = list(Thread.objects.order_by("id"))
    uris = {thread.pk: [f"parley://threads/th_{thread.pk}"] for thread in threads}
    listening = Listening(actor, [resources.INBOX, *(uri for found in uris.values() for uri in found)], uris, True,
                          {thread.pk for thread in threads}, ("test", 0))
    for thread in threads:
        listening.note({"kind": "thread", "thread": thread.pk, "act": "answer", "from": "anyone"})

    judged = visible_thread_ids(actor, set(uris))  # what the listener asks the read pool, asked here

    async def visible(ids):
        return judged & set(ids)
    announced = asyncio.run(listening.updated(visible))
    assert announced == sorted([f"parley://threads/th_{number}" for number in sight.threads]
                               + ([resources.INBOX] if sight.threads else []))


def check_webhooks(actor, sight, token):
    """Webhooks of the line on `inbox` and on every thread, created before every write: each write's fan-out
    (as the worker runs it, after the commit) concerns them only for the threads the line sees now, and a
    delivery rendered for an invisible thread is refused as a missing thread is."""
    from webhooks.delivery import announced, payload
    from rooms.models import Room
    from webhooks.models import Delivery, Topic, Webhook

    before = timezone.now() - timedelta(days=1)
    webhook = Webhook.objects.create(token=token, url="https://example.org/hook", sealed_secret="-",
                                     created_at=before)
    threads = list(Thread.objects.order_by("id"))
    Topic.objects.bulk_create([Topic(webhook=webhook, name="inbox"),
                               *(Topic(webhook=webhook, name=f"th_{thread.pk}") for thread in threads)])
    # and one on every room (§20's room:rm_<n>), for the events of the threads now in it
    room_webhook = Webhook.objects.create(token=token, url="https://example.org/rooms", sealed_secret="-",
                                          created_at=before)
    Topic.objects.bulk_create(Topic(webhook=room_webhook, name=f"room:rm_{number}")
                              for number in Room.objects.values_list("pk", flat=True))
    for thread in threads:
        events = list(StateEvent.objects.filter(thread=thread).values_list("pk", flat=True))
        awaiting = {"act": "answer", "from": "anyone", "asker": ("someone:else", "")}
        rooms = [[thread.room_number] for _ in events]
        for kind, _, webhooks in announced(thread.pk, events, awaiting, timezone.now(), rooms):
            if kind == Delivery.Type.EVENT:  # every event of a thread it sees, none of one it does not
                assert (webhook in webhooks) == (thread.pk in sight.threads), (kind, thread.pk)
                assert (room_webhook in webhooks) == (thread.pk in sight.threads), (kind, thread.pk)
            else:  # an inbox delivery only for a thread it sees (the inbox's own rules aside)
                assert webhook not in webhooks or thread.pk in sight.threads, (kind, thread.pk)
        delivery = Delivery(webhook=webhook, type=Delivery.Type.EVENT, thread_id=thread.pk,
                            event_id=events[-1] if events else None)
        try:
            rendered = payload(delivery, actor)
        except ParleyError as refusal:
            assert thread.pk not in sight.threads
            assert (refusal.status, refusal.as_body()) == as_missing(
                actor, "read_thread", "thread", f"th_{thread.pk}", f"th_{MISSING}")
        else:
            assert thread.pk in sight.threads and rendered["thread"]["id"] == f"th_{thread.pk}"


def check_export(actor, sight):
    """Attestation export: a claim of an invisible thread answers as a missing claim."""
    for claim in Claim.objects.order_by("id"):
        if claim.thread_id in sight.threads:
            assert answer(actor, "export_attestation", claim=claim.pk)[0] == 200
        else:
            assert answer(actor, "export_attestation", claim=f"cl_{claim.pk}") == as_missing(
                actor, "export_attestation", "claim", f"cl_{claim.pk}", f"cl_{MISSING}")


@EXAMPLES
@given(steps=WORLDS)
def test_no_follower_and_no_export_shows_a_line_what_it_may_not_see(steps, make_token, operator):
    from evidence.keys import key_create

    with transaction.atomic():
        key_create()
        world = build(make_token, operator, steps)
        sights = {handle: oracle(actor) for handle, actor in world.actors.items()}
        check_shared_reads(world.actors, sights)
        for handle, actor in world.actors.items():
            sight = sights[handle]
            check_held_and_streamed(actor, sight)
            check_resources(actor, sight)
            check_notifications(actor, sight)
            check_webhooks(actor, sight, actor.token)
            check_export(actor, sight)
        transaction.set_rollback(True)
