"""`subscriptions/listen` (Parley v1 §2, MCP push, the modern era): a stream that sends
`notifications/resources/updated` for `parley://inbox` and `parley://threads/{id}` within a second of anything
new there, and for the rooms profile's resources (§20, mcp_bridge.room_listen) with
`notifications/resources/list_changed`. A notification says only "read again".

Parley's own handler, not the SDK's `ListenHandler`: that one acknowledges before any check, caps streams
globally with an internal error, and is fed by an in-process bus. Here every check runs first, in the
request's thread (token, `read`, each thread, the line's stream slot of §16), and a refusal is -32602
carrying §13's refusal, before anything is acknowledged; the stream is then woken by the feed's notes
(feed.hub: PostgreSQL's LISTEN/NOTIFY, no polling query), and re-checks its caller as event streams do."""
import asyncio
from dataclasses import dataclass, field
from functools import partial

from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY
from mcp_types import (INVALID_REQUEST, NotificationParams, ResourceListChangedNotification,
                       ResourceUpdatedNotification, ResourceUpdatedNotificationParams, SubscriptionFilter,
                       SubscriptionsAcknowledgedNotification, SubscriptionsAcknowledgedNotificationParams)

from feed.follow import READS, Subscription, caller_now, on_pool, until_checked
from feed.hub import HUB
from feed.profile import feed_setting
from feed.slots import SLOTS, STREAMS, owner_key
from feed.wait import cannot_hold
from forum import selectors
from forum.access import access_thread, require_right, visible_thread_ids
from forum.held import SERVING_LOOP
from forum.limits import limit
from forum.models import AwaitingAct, Right
from forum.policies import inbox_senders
from mcp_bridge.context import caller, in_request_thread
from mcp_bridge.refusals import read_refused
from mcp_bridge.resources import INBOX, MANIFEST, thread_id
from mcp_bridge.room_listen import RoomFollowing, follow_rooms
from parley_site.errors import LimitExceeded, NotFound
from parley_site.replicas import replicas_show

NEEDS = (Right.READ,)


@dataclass
class Listening:
    """One accepted listen: what it follows, for whom, and the stream slot it holds."""
    actor: object
    uris: list  # the uris a "*" note announces again: those but the rooms' (mcp_bridge.room_listen)
    threads: dict  # thread id -> the uris the client named it by
    inbox: bool
    inbox_threads: set  # threads seen in the caller's inbox: a note for one of them may mean it left
    slot: tuple
    rooms: RoomFollowing = field(default_factory=lambda: RoomFollowing({}, listed=False, list_changed=False))
    pending: set = field(default_factory=set)  # uris to announce whatever the caller may see (a "*" note)
    noted: set = field(default_factory=set)  # followed threads noted since the last delivery
    inbox_noted: set = field(default_factory=set)  # threads whose note may have moved the caller's inbox
    appearing: object = None  # the task announcing the inbox again once its held-back threads appear

    def hear(self, note):
        """From the feed's listener thread: whether `note` may concern this stream (a quick prefilter)."""
        kind, thread = note["kind"], note.get("thread")
        return kind == "*" or thread in self.threads or (self.inbox and kind == "thread") or self.rooms.hear(note)

    def note(self, note):
        """On the event loop: the uris the note makes worth reading again."""
        kind, thread = note["kind"], note.get("thread")
        self.rooms.note(note)
        if kind == "*":  # notes may have been missed (a reconnect), or a token lost access
            self.pending.update(self.uris)
            return
        if kind == "room":
            return
        if thread in self.threads:
            self.noted.add(thread)
        if self.inbox and kind == "thread":
            # Only a thread that now awaits an answer from anyone (or the caller) can have entered the inbox;
            # one of its threads whose awaited move changed has left it, or moved within it.
            if note["act"] == AwaitingAct.ANSWER and note["from"] in inbox_senders(self.actor.identity,
                                                                                 AwaitingAct.ANSWER):
                self.inbox_threads.add(thread)
                self.inbox_noted.add(thread)
            elif thread in self.inbox_threads:
                self.inbox_threads.discard(thread)
                self.inbox_noted.add(thread)

    async def updated(self, visible):
        """On the event loop: the uris to announce since the last time, once `visible(thread ids)` (awaited)
        has said which of the noted threads the caller may see: one it may not see announces nothing (§20)."""
        noted, inbox_noted, uris = self.noted, self.inbox_noted, self.pending
        self.noted, self.inbox_noted, self.pending = set(), set(), set()
        seen = await visible(noted | inbox_noted) if noted or inbox_noted else set()
        uris.update(uri for thread in noted & seen for uri in self.threads[thread])
        if inbox_noted & seen:
            uris.add(INBOX)
        return sorted(uris)


def accept(uris, list_changed, authenticate, can_hold):
    """Every check, in §13's order, then a stream slot of the caller's line; raises the refusal."""
    actor = authenticate()
    require_right(actor, Right.READ)
    threads, inbox = {}, False
    rooms, rest = follow_rooms(actor, uris, list_changed)
    for uri in rest:
        if uri == INBOX:
            inbox = True
        elif uri != MANIFEST:  # the manifest never changes: accepted, and never announced
            number = thread_id(uri)
            if number is None:
                raise NotFound("resource", uri)
            access_thread(actor, number, right=Right.READ)
            threads.setdefault(number, []).append(uri)
    seen = {thread.pk for thread in selectors.inbox_newest(
        actor, awaiting=AwaitingAct.ANSWER, extension="", limit=limit("page_size_max"))} if inbox else set()
    if not can_hold:
        raise cannot_hold("a listen stream")
    owner, maximum = owner_key(actor), feed_setting("streams_per_token_max")
    slot = SLOTS.acquire(STREAMS, owner, maximum)
    if slot is None:
        raise LimitExceeded("streams_per_token_max", maximum)
    return Listening(actor, rest, threads, inbox, seen, (owner, slot), rooms)


async def listen(ctx, params):
    if ctx.request_id is None:
        raise MCPError(INVALID_REQUEST, "subscriptions/listen requires a request id")
    uris = list(dict.fromkeys(params.notifications.resource_subscriptions or ()))
    list_changed = bool(params.notifications.resources_list_changed)
    loop = SERVING_LOOP.get()
    try:
        listening = await in_request_thread(accept, uris, list_changed, caller, loop is not None)
    except Exception as exc:  # noqa: BLE001 - a refusal is -32602 before the acknowledgement
        refusal = read_refused(exc)
        if refusal is None:
            raise
        raise refusal from exc
    woken = asyncio.Event()

    def heard(note):
        if listening.hear(note):
            loop.call_soon_threadsafe(lambda: (listening.note(note), woken.set()))
    hearing = HUB.subscribe_notes(heard)  # before the acknowledgement: nothing after it slips by
    meta = {SUBSCRIPTION_ID_META_KEY: ctx.request_id}
    try:
        honored = SubscriptionFilter(resource_subscriptions=uris or None, resources_list_changed=list_changed or None)
        await ctx.session.send_notification(SubscriptionsAcknowledgedNotification(
            params=SubscriptionsAcknowledgedNotificationParams(notifications=honored, _meta=meta)),
            related_request_id=ctx.request_id)
        await deliver(ctx, listening, woken, meta)
    finally:
        HUB.unsubscribe(hearing)
        if listening.appearing is not None:
            listening.appearing.cancel()
        READS.submit(SLOTS.release, STREAMS, *listening.slot)  # off the event loop: it may touch the database
    return {"resultType": "complete", "_meta": meta}  # the stream ended gracefully: its caller may no longer read


async def announce_when_appeared(listening, woken):
    """A thread that entered the inbox may be held back a while below the horizon (forum.commit_order)
    after its note: read again after pauses as a follower does (feed.follow.Subscription), and once nothing
    is held back, announce the inbox again."""
    pause = Subscription.FIRST_PAUSE_SECONDS
    try:
        while True:
            await asyncio.sleep(pause)
            if not await on_pool(selectors.inbox_held_back, listening.actor):
                break
            pause = min(pause * 2, Subscription.LAST_PAUSE_SECONDS)
    finally:
        listening.appearing = None
    listening.pending.add(INBOX)
    woken.set()


async def deliver(ctx, listening, woken, meta):
    """Until the client leaves (which cancels this) or its caller may no longer read: each uri a note made
    worth reading again, once per wake-up; the caller is checked again then, at each quiet heartbeat and
    when its credential stops by time (a rotation's grace ends)."""
    heartbeat = feed_setting("heartbeat_seconds")
    while True:
        try:
            await asyncio.wait_for(woken.wait(), max(until_checked(listening.actor, heartbeat), 0))
        except TimeoutError:
            pass
        woken.clear()
        noted_by = asyncio.get_running_loop().time()
        actor, refusal = await caller_now(listening.actor, NEEDS)
        if refusal is not None:
            return  # the stream ends; a new listen would be refused with this refusal
        listening.actor = actor
        uris = await listening.updated(partial(on_pool, visible_thread_ids, actor))
        list_changed = False
        if listening.rooms.wanted():
            room_uris, list_changed = await on_pool(listening.rooms.news, actor)
            uris = sorted(set(uris) | room_uris)
        if INBOX in uris and listening.appearing is None:
            # Checked before announcing: whatever is not held back now, the client's read will see.
            if await on_pool(selectors.inbox_held_back, actor):
                listening.appearing = asyncio.ensure_future(announce_when_appeared(listening, woken))
        if uris or list_changed:
            # The client reads what it is told of through any app server, perhaps on a replica (§19): it is
            # told once they show it.
            await replicas_show(noted_by)
        if list_changed:
            await ctx.session.send_notification(ResourceListChangedNotification(
                params=NotificationParams(_meta=meta)), related_request_id=ctx.request_id)
        for uri in uris:
            await ctx.session.send_notification(ResourceUpdatedNotification(
                params=ResourceUpdatedNotificationParams(uri=uri, _meta=meta)), related_request_id=ctx.request_id)
