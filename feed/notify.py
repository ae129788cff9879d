"""Every committed write announces itself to followers (§16). On PostgreSQL the database does it: row
triggers queue a `pg_notify` inside the writing transaction (feed/migrations hold them and the notes'
shape: a thread that starts awaiting, every state event, every new message, and everyone woken when a
token loses access, or its secret is rotated or its expiry changed), so a rolled-back write announces
nothing and a committed one costs no extra round trip.

SQLite has no channel between processes (their waiters poll, feed.hub). There the write's own
announcement (forum.announce) wakes this process's waiters once it is committed; they re-read, and the
re-read decides what they see. A token write made in this process wakes them too, as the triggers do: each
checks its caller again, and one that learns its secret's grace ends then ends with it.

A room's change (the rooms profile's, §20) has no table of the core to trigger on: on PostgreSQL its
announcement queues the note `{"kind": "room", "room"}` inside the write's transaction, as a trigger would
(delivered at the commit, dropped on a rollback); on SQLite it wakes this process's waiters as above."""
import json

from django.db import connection, transaction

from feed.hub import CHANNEL, EVERYTHING, HUB
from forum.announce import ROOM_WRITE, TOKEN_WRITE, WRITES, listen


def wake_local_waiters(announcement):
    # robust: the write is committed by then; a failed wake-up must not turn it into an error.
    transaction.on_commit(lambda: HUB.publish(EVERYTHING), robust=True)


def note_room(announcement):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, json.dumps({"kind": "room", "room": announcement.room_id})])


def connect():
    if connection.vendor == "postgresql":
        listen(ROOM_WRITE, note_room)
    else:
        for write in (*WRITES, TOKEN_WRITE, ROOM_WRITE):
            listen(write, wake_local_waiters)
