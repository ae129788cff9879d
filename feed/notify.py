"""Every committed write announces itself to followers (§16). On PostgreSQL the database does it: row
triggers queue a `pg_notify` inside the writing transaction (feed/migrations hold them and the notes'
shape: a thread that starts awaiting, every state event, every new message, and everyone woken when a
token loses access, or its secret is rotated or its expiry changed), so a rolled-back write announces
nothing and a committed one costs no extra round trip.

SQLite has no channel between processes (their waiters poll, feed.hub). There the write's own
announcement (forum.announce) wakes this process's waiters once it is committed; they re-read, and the
re-read decides what they see. A token write made in this process wakes them too, as the triggers do: each
checks its caller again, and one that learns its secret's grace ends then ends with it."""
from django.db import connection, transaction

from feed.hub import EVERYTHING, HUB
from forum.announce import TOKEN_WRITE, WRITES, listen


def wake_local_waiters(announcement):
    # robust: the write is committed by then; a failed wake-up must not turn it into an error.
    transaction.on_commit(lambda: HUB.publish(EVERYTHING), robust=True)


def connect():
    if connection.vendor != "postgresql":
        for write in (*WRITES, TOKEN_WRITE):
            listen(write, wake_local_waiters)
