"""Every write queues one fan-out job in its own transaction (§17), so a write never waits for a delivery
and a rolled-back write sends nothing. The core imports no webhook: this listens to its rows as they are
saved, as feed.notify does.

A write is known by its first row of these: a post by the message it stores (the job then finds the events
that message made and whether it set the thread's awaiting); a write that stores no message (confirm,
dismiss, redact) by the thread's state event; ending a proposal also moves the thread's awaiting (§6), and
that event carries the `awaiting` it left, read from the thread the service holds in memory."""
from django.db.models.signals import post_save

from forum.acts import ACTS
from forum.models import Message, StateEvent
from forum.profiles import profile_for_kind
from webhooks.tasks import fan_out

PROPOSAL_ENDINGS = ("confirm", "dismiss")


def made_by_a_new_message(event):
    """Events labelled with a message's kind are made by the message posted in the same write."""
    return event.message_id is not None and (event.label in ACTS or profile_for_kind(event.label) is not None)


def message_saved(sender, instance, created, raw=False, **kwargs):
    if created and not raw:
        fan_out.enqueue(instance.thread_id, message_id=instance.pk)


def event_saved(sender, instance, created, raw=False, **kwargs):
    if not created or raw or instance.claim_number is not None or made_by_a_new_message(instance):
        return
    thread = instance.thread
    awaiting = None if instance.label not in PROPOSAL_ENDINGS or thread.awaiting_act is None else {
        "act": thread.awaiting_act, "from": thread.awaiting_from,
        "asker": [thread.awaiting_by_identity, thread.awaiting_by_extension]}
    fan_out.enqueue(instance.thread_id, event_id=instance.pk, awaiting=awaiting)


def connect():
    post_save.connect(message_saved, sender=Message, dispatch_uid="webhooks_message_saved")
    post_save.connect(event_saved, sender=StateEvent, dispatch_uid="webhooks_event_saved")
