"""Every write announces itself once committed (§16). The hooks sit where every write passes: each post,
confirm and dismiss saves its thread row, and each state change (thread or claim) creates a StateEvent.
A note says only which thread moved and what it awaits now, enough for a waiter to tell whether a re-read
could find anything; the re-read itself decides what the caller sees."""
import json
import logging

from django.db import connection, transaction
from django.db.models.signals import post_save

from forum.feed_hub import CHANNEL, HUB, is_postgresql
from forum.models import StateEvent, Thread

logger = logging.getLogger("parley.feed")


def thread_saved(sender, instance, update_fields=None, **kwargs):
    if update_fields is not None and "awaiting_seq" not in update_fields:
        return  # this save cannot have put the thread in anyone's inbox
    announce({"kind": "thread", "thread": instance.pk, "act": instance.awaiting_act,
              "from": instance.awaiting_from})


def event_saved(sender, instance, created, **kwargs):
    if created:
        announce({"kind": "event", "thread": instance.thread_id})


def announce(note):
    # robust: the write is committed by then; a failed announcement must not turn it into an error.
    transaction.on_commit(lambda: send(note), robust=True)


def send(note):
    if is_postgresql():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, json.dumps(note)])
    else:
        HUB.publish(note)  # SQLite: other processes learn of it by polling


def connect():
    post_save.connect(thread_saved, sender=Thread, dispatch_uid="feed_thread_saved")
    post_save.connect(event_saved, sender=StateEvent, dispatch_uid="feed_event_saved")
