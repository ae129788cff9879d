"""Fan-out and delivery (§17), as the worker runs them (webhooks.tasks): which webhooks a committed write
concerns, and each delivery's attempts, retried with backoff for 24 hours, then the webhook disabled.

Nothing here runs inside a write: the write only queued its fan-out job, so no thread lock is held while
webhooks are found, and no transaction stays open while a receiver answers."""
import logging
import random
import uuid
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from forum.access import access_event, access_thread
from forum.actors import Actor
from forum.models import Right
from forum.wire import event_json, thread_json
from parley_site.errors import ParleyError
from parley_site.sealing import unseal
from webhooks import sending
from webhooks.models import Delivery, Webhook
from webhooks.selectors import inbox_followers, room_followers, thread_followers, webhook_may_deliver

logger = logging.getLogger("parley.webhooks")
# Seconds before the 2nd, 3rd, ... attempt; hourly after the last, until RETRY_FOR has passed.
BACKOFF = (5, 30, 120, 600, 1800, 3600)
RETRY_FOR = timedelta(hours=24)


def announced(thread_id, events, awaiting, written_at, rooms=None):
    """Whom one write concerns, from what it announced (forum.announce): [(type, event id or None,
    webhooks)]. Each event it recorded goes to the thread's followers and to its room's (`rooms`, beside
    `events`: each event's room, and for a move the room it left; none from a job queued before rooms),
    once to a webhook that follows both; a move it now awaits, to the webhooks of the inboxes the thread
    entered."""
    rooms = rooms or [[] for _ in events]
    found = [(Delivery.Type.EVENT, event, event_followers(thread_id, event_rooms, written_at))
             for event, event_rooms in zip(events, rooms, strict=True)]
    if awaiting:
        found.append((Delivery.Type.INBOX, None, inbox_followers(
            thread_id, awaiting["act"], awaiting["from"], tuple(awaiting["asker"]), written_at)))
    return found


def event_followers(thread_id, rooms, written_at):
    """The webhooks one event goes to: the thread's followers, then those of the room it is in (`rooms[0]`)
    and, for a move, of the room it left (`rooms[1]`), each webhook once."""
    found = thread_followers(thread_id, written_at)
    for index, room in enumerate(rooms):
        found += room_followers(thread_id, room, written_at, left=index > 0)
    return list({webhook.pk: webhook for webhook in found}.values())


def fan_out(thread_id, events, awaiting, written_at, enqueue, rooms=None):
    """Create a delivery per webhook and announced item, each sent by its own job (`enqueue(id)`)."""
    now = timezone.now()
    with transaction.atomic():
        deliveries = [Delivery.objects.create(webhook=webhook, stable_id=f"msg_{uuid.uuid4().hex}", type=kind,
                                              thread_id=thread_id, event_id=event, created_at=now,
                                              next_attempt_at=now)
                      for kind, event, webhooks in announced(thread_id, events, awaiting, written_at, rooms)
                      for webhook in webhooks]
        for delivery in deliveries:
            enqueue(delivery.pk)
    return len(deliveries)


def payload(delivery, actor):
    """The delivery rendered now, from its ids, in the REST reads' shapes, read as the webhook's token
    (`actor`) reads them: a refusal (ParleyError) when it may no longer."""
    thread = access_thread(actor, delivery.thread_id, right=Right.READ)
    event = access_event(actor, delivery.event_id, right=Right.READ) if delivery.event_id else None
    return {"type": delivery.type, "thread": thread_json(thread), "event": event_json(event) if event else None}


def attempt(delivery_id):
    """One attempt of a delivery, recorded: delivered, or failed and due again later (`next_attempt_at`), or
    dropped. Any fault in it, ours too, is a failed attempt like a receiver's, so it is retried and the
    webhook shows it failing."""
    delivery = Delivery.objects.select_related("webhook__token").filter(pk=delivery_id).first()
    if delivery is None or delivery.delivered_at or delivery.dropped_at:
        return "gone"  # deleted with its webhook, or already settled
    if not webhook_may_deliver(delivery.webhook_id):
        reason = "webhook disabled" if delivery.webhook.disabled_at else "token may no longer read"
        return drop(Delivery.objects.filter(webhook_id=delivery.webhook_id, next_attempt_at__isnull=False), reason)
    try:
        failure = sent(delivery)
    except ParleyError as refusal:
        return drop(Delivery.objects.filter(pk=delivery.pk), f"token may no longer read it: {refusal.reason}")
    except Exception as exc:  # noqa: BLE001  recorded and retried, never a job that ends FAILED unseen
        logger.exception("webhook delivery %s failed on our side", delivery.stable_id)
        failure = f"failed on our side: {type(exc).__name__}"
    return record(delivery_id, failure)


def sent(delivery):
    """The delivery rendered now, as its token reads it (a refusal: ParleyError), and POSTed: what failed."""
    body = payload(delivery, Actor.for_token(delivery.webhook.token))
    secret = unseal(delivery.webhook.sealed_secret).decode()
    return sending.post(delivery.webhook.url, secret, delivery.stable_id, body)


def drop(deliveries, reason):
    """End `deliveries` (a queryset) unsent: a webhook that may no longer deliver drops all it has pending."""
    deliveries.update(dropped_at=timezone.now(), dropped_reason=reason, next_attempt_at=None)
    return f"dropped: {reason}"


def next_delay(attempts):
    """Exponential backoff with jitter, so that receivers back from an outage are not hit all at once."""
    base = BACKOFF[min(attempts, len(BACKOFF)) - 1]
    return timedelta(seconds=base * random.uniform(0.8, 1.2))  # noqa: S311 (no secret in a delay)


@transaction.atomic
def record(delivery_id, failure):
    """The attempt's outcome: delivered; or due again after a backoff; or, 24 hours after the first attempt,
    the webhook disabled, shown so in the console and its list. A delivery deleted meanwhile (with its
    webhook) is gone, and so is its outcome."""
    delivery = Delivery.objects.select_for_update().filter(pk=delivery_id).first()
    webhook = delivery and Webhook.objects.select_for_update().filter(pk=delivery.webhook_id).first()
    if webhook is None:
        return "gone"
    now = timezone.now()
    delivery.attempts += 1
    delivery.first_attempt_at = delivery.first_attempt_at or now
    delivery.last_status = failure or "delivered"
    if failure is None:
        delivery.delivered_at, delivery.next_attempt_at = now, None
        webhook.failing_since = None
    elif now - delivery.first_attempt_at >= RETRY_FOR:
        delivery.dropped_at, delivery.dropped_reason, delivery.next_attempt_at = now, "no success in 24 hours", None
        webhook.disabled_at = now
        webhook.disabled_reason = f"no delivery succeeded for 24 hours; last: {failure}"[:300]
        logger.warning("webhook wh_%s disabled: %s", webhook.pk, webhook.disabled_reason)
    else:
        webhook.failing_since = webhook.failing_since or now
        deadline = delivery.first_attempt_at + RETRY_FOR
        delivery.next_attempt_at = min(now + next_delay(delivery.attempts), deadline)
    delivery.save()
    webhook.save(update_fields=["failing_since", "disabled_at", "disabled_reason"])
    return delivery.last_status
