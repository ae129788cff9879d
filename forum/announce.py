"""Writes announce themselves. Each write service of the core (forum.services: post, confirm, dismiss,
redact) ends, inside its transaction, with one `announce` of what happened: the thread as the write left
it, the message, the state events it recorded (the thread's and its claims'), and the move the thread now
awaits when the write gave it one. Whoever acts on writes listens by the write's name, registered from its
AppConfig.ready(): the webhooks queue their fan-out (webhooks.announce), the feed wakes its followers on
SQLite (feed.notify; on PostgreSQL the feed's triggers do it, feed/migrations). A listener runs inside the
write's transaction: what it writes rolls back with a refused write, and what it must only do once the
write is committed it defers with transaction.on_commit.

A token write (forum.tokens: change, rotate, revoke) announces too, as TOKEN_WRITE, only which token it
changed: whoever follows on a credential of that token checks it again (on SQLite the feed's followers,
which no trigger wakes there). A room's change (the rooms profile's, §20: whatever its log records) announces
as ROOM_WRITE which room changed: followers of rooms read what they see of them again.

The core imports none of its listeners; this registry is the one place a write reaches them, so following
a write never leaves the code for a hidden receiver."""
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

# a thread's writes, each announcing an Announcement (move: the rooms profile's, §20)
WRITES = ("post", "confirm", "dismiss", "redact", "move")
TOKEN_WRITE = "token"  # announcing a TokenChanged
ROOM_WRITE = "room"  # announcing a RoomChanged


@dataclass(frozen=True)
class Announcement:
    write: str  # one of WRITES
    thread: object  # forum.models.Thread, as the write left it
    message: object  # the message stored or redacted; None for confirm and dismiss
    events: tuple  # the state events the write recorded, in order
    # The move the thread awaits since this write, when the write set one that may bring it into inboxes:
    # {"act", "from", "asker": [identity, extension]}; None when it awaits what it awaited, or nothing.
    awaiting: dict | None
    at: datetime  # when the write was made


@dataclass(frozen=True)
class TokenChanged:
    token_id: int
    write: str = TOKEN_WRITE


@dataclass(frozen=True)
class RoomChanged:
    room_id: int
    write: str = ROOM_WRITE


LISTENERS: dict[str, list[Callable]] = {write: [] for write in (*WRITES, TOKEN_WRITE, ROOM_WRITE)}


def listen(write, hear):
    """hear(announcement) after every write named `write` (one of WRITES, TOKEN_WRITE or ROOM_WRITE), inside its
    transaction (once, however often it is registered)."""
    if hear not in LISTENERS[write]:
        LISTENERS[write].append(hear)


def announce(announcement):
    for hear in LISTENERS[announcement.write]:
        hear(announcement)
