"""Jobs run at least once: a worker that died while running a job (killed, its machine gone) leaves the job
RUNNING for ever, so the workers give it back to the queue, but only once the worker that took it is gone.

Every `parley_worker` beats (a WorkerBeat row, every few seconds, from a thread of its own); a worker that
has not beaten for GONE_AFTER is gone, and so is one with no row at all once its job has run that long (it
was never a `parley_worker`, or its row was cleared as gone). A job a live worker runs is never taken from
it, however long it runs. django-tasks-db has no such check (its workers leave a dead worker's job RUNNING).

A worker that is alive but stopped beating for a minute (a machine frozen, not dead) may see its job run
twice; each job here tolerates that (a delivery is sent at least once, and a copy of a webhook's send job
does not fork the webhook's turns: webhooks.turns)."""
from datetime import timedelta

from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from jobs.models import WorkerBeat

GONE_AFTER = timedelta(seconds=60)


def beat(worker_id, now=None):
    """This worker is alive."""
    now = now or timezone.now()
    WorkerBeat.objects.update_or_create(worker_id=worker_id, defaults={"beat_at": now},
                                        create_defaults={"beat_at": now, "started_at": now})


def stopped(worker_id):
    """This worker ends cleanly: it runs no job any more."""
    WorkerBeat.objects.filter(worker_id=worker_id).delete()


def requeue_stalled(now=None):
    """Make every job RUNNING under a worker that is gone ready again; how many. Each with one conditional
    UPDATE (still RUNNING, since the same claim): safe with several workers."""
    now = now or timezone.now()
    alive = set(WorkerBeat.objects.filter(beat_at__gte=now - GONE_AFTER).values_list("worker_id", flat=True))
    requeued = 0
    for job in DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, started_at__lt=now - GONE_AFTER).only(
            "pk", "worker_ids", "started_at"):
        if job.worker_ids and job.worker_ids[-1] in alive:
            continue
        requeued += DBTaskResult.objects.filter(pk=job.pk, status=TaskResultStatus.RUNNING,
                                                started_at=job.started_at).update(status=TaskResultStatus.READY)
    WorkerBeat.objects.filter(beat_at__lt=now - GONE_AFTER).delete()
    return requeued
