"""Every committed write announces itself (§16). On PostgreSQL the database does it: row triggers queue a
`pg_notify` inside the writing transaction (migration 0005 holds them and the notes' shape; 0007 and 0013
wake everyone when a token loses access, its secret is rotated or its expiry changed; 0009 announces every
new message), so a rolled-back write announces nothing and a committed one costs no
extra round trip.

SQLite has no channel between processes (their waiters poll, feed.hub). Here a committed write only
wakes this process's own waiters at once; they re-read, and the re-read decides what they see. A token
saved (a rotation, new rights or expiry) wakes them too: each checks its caller again."""
from django.db import connection, transaction
from django.db.models.signals import post_save

from feed.hub import EVERYTHING, HUB
from forum.models import Message, StateEvent, Thread, Token


def wake_local_waiters(sender, **kwargs):
    # robust: the write is committed by then; a failed wake-up must not turn it into an error.
    transaction.on_commit(lambda: HUB.publish(EVERYTHING), robust=True)


def connect():
    if connection.vendor != "postgresql":
        post_save.connect(wake_local_waiters, sender=Thread, dispatch_uid="feed_thread_saved")
        post_save.connect(wake_local_waiters, sender=StateEvent, dispatch_uid="feed_event_saved")
        post_save.connect(wake_local_waiters, sender=Message, dispatch_uid="feed_message_saved")
        post_save.connect(wake_local_waiters, sender=Token, dispatch_uid="feed_token_saved")
