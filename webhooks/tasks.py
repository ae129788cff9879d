"""The webhooks' jobs on the task queue (django-tasks, in our own database), run by `manage.py parley_worker`:
one fan-out job per write, queued in the write's transaction (webhooks.announce); one send job at a time per
webhook, on the send queue (webhooks.turns); and two periodic ones (settings.PARLEY_PERIODIC_TASKS)."""
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django_tasks import task

from jobs.purge import delete_in_batches
from jobs.queues import SEND_QUEUE
from webhooks import delivery, turns
from webhooks.models import Delivery


@task()
def fan_out(thread_id, events, awaiting, written_at, rooms=None):
    """Find the webhooks one committed write concerns (what it announced: webhooks.announce) and queue a
    delivery to each. `rooms` (§20) is absent from a job queued before rooms were announced."""
    return delivery.fan_out(thread_id, events, awaiting, datetime.fromisoformat(written_at), enqueue=queued,
                            rooms=rooms)


def queued(delivery_id):
    turns.wake(Delivery.objects.values_list("webhook_id", flat=True).get(pk=delivery_id), enqueue=queue_send)


def queue_send(webhook_id, when):
    return send_due.using(run_after=when).enqueue(webhook_id).id


@task(queue_name=SEND_QUEUE, takes_context=True)
def send_due(context, webhook_id):
    """One attempt of the webhook's oldest due delivery; then the webhook's next send job is queued."""
    return turns.take_turn(webhook_id, context.task_result.id, enqueue=queue_send)


@task()
def resume_sending():
    """Periodic: webhooks with a delivery due and no send job get one."""
    return turns.resume_stalled(enqueue=queue_send)


@task()
def purge_deliveries():
    """Periodic: deliveries delivered or dropped more than PARLEY_JOB_RETENTION_DAYS ago are deleted."""
    before = timezone.now() - timedelta(days=settings.PARLEY_JOB_RETENTION_DAYS)
    return (delete_in_batches(Delivery.objects.filter(delivered_at__lt=before))
            + delete_in_batches(Delivery.objects.filter(dropped_at__lt=before)))
