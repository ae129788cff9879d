"""When each webhook's deliveries are sent (§17): one at a time per webhook, and the webhooks in turn.

A webhook has at most one send job, queued or running (Webhook.send_job); the job sends the webhook's
oldest due delivery and then queues the webhook's next job behind every job already due, when its next
delivery is due. So one webhook has at most one attempt in flight, and a webhook with a thousand
deliveries waiting delays another by at most one attempt (PARLEY_WEBHOOKS_ATTEMPT_SECONDS): the queue
holds one job per webhook, not one per delivery. The send jobs have a queue of their own (jobs.queues).

Every change of Webhook.send_job is made under the webhook's row lock, by the fan-out that queues a
delivery (wake) and by the send job that ends its turn (pass_turn), so a delivery queued while the
webhook's job finishes is seen by one of them. A job that ended without queueing the next (it failed) is
replaced at the next fan-out, and by the periodic resume_stalled."""
from django.db import transaction
from django.db.models import Exists, Min, OuterRef
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from webhooks.delivery import attempt
from webhooks.models import Delivery, Webhook

LIVE = (TaskResultStatus.READY, TaskResultStatus.RUNNING)


def live_jobs():
    return DBTaskResult.objects.filter(status__in=LIVE)


def wake(webhook_id, enqueue):
    """The webhook has a delivery due now: queue its send job (`enqueue(webhook_id, when) -> job id`) unless
    it has one. Inside the caller's transaction (the fan-out's)."""
    webhook = Webhook.objects.select_for_update().filter(pk=webhook_id).only("send_job").first()
    if webhook is None or (webhook.send_job and live_jobs().filter(pk=webhook.send_job).exists()):
        return
    webhook.send_job = enqueue(webhook_id, timezone.now())
    webhook.save(update_fields=["send_job"])


def take_turn(webhook_id, job_id, enqueue):
    """The webhook's send job (`job_id`): attempt its oldest due delivery, then pass the turn on. A job that
    is not the webhook's own (a copy) sends nothing."""
    if not Webhook.objects.filter(pk=webhook_id, send_job=job_id).exists():
        return "not this webhook's job"
    due = Delivery.objects.filter(webhook_id=webhook_id, next_attempt_at__lte=timezone.now()).order_by(
        "next_attempt_at", "id").values_list("pk", flat=True).first()
    outcome = attempt(due) if due else "nothing due"
    pass_turn(webhook_id, job_id, enqueue)
    return outcome


@transaction.atomic
def pass_turn(webhook_id, job_id, enqueue):
    """Queue the webhook's next send job for when its next delivery is due, but never before now: behind
    the jobs of the other webhooks already due. None when nothing is pending."""
    webhook = Webhook.objects.select_for_update().filter(pk=webhook_id).only("send_job").first()
    if webhook is None or str(webhook.send_job) != str(job_id):
        return
    due = Delivery.objects.filter(webhook_id=webhook_id, next_attempt_at__isnull=False).aggregate(
        due=Min("next_attempt_at"))["due"]
    webhook.send_job = enqueue(webhook_id, max(due, timezone.now())) if due else None
    webhook.save(update_fields=["send_job"])


def resume_stalled(enqueue):
    """Wake every webhook with a delivery due and no live send job (its last one failed, or was lost in an
    upgrade); how many."""
    live = live_jobs().filter(pk=OuterRef("send_job"))
    stalled = Webhook.objects.filter(
        Exists(Delivery.objects.filter(webhook=OuterRef("pk"), next_attempt_at__lte=timezone.now())),
        ~Exists(live))
    woken = 0
    for webhook_id in stalled.values_list("pk", flat=True):
        with transaction.atomic():
            wake(webhook_id, enqueue)
        woken += 1
    return woken
