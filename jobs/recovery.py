"""Jobs run at least once: a worker that died while running a job (killed, its machine gone) leaves the job
RUNNING for ever, so the workers give it back to the queue once it has run longer than any job here may
(a webhook attempt takes at most 15 s). One conditional UPDATE: safe with several workers."""
from datetime import timedelta

from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

STALLED_AFTER = timedelta(minutes=30)


def requeue_stalled(now=None):
    """Make every job RUNNING since before STALLED_AFTER ready again; how many."""
    cutoff = (now or timezone.now()) - STALLED_AFTER
    return DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, started_at__lt=cutoff).update(
        status=TaskResultStatus.READY)
