"""Periodic jobs (settings.PARLEY_PERIODIC_TASKS: a task's dotted path -> seconds between runs), enqueued by
every running worker and run once per slot however many workers run: a worker takes a slot with one
conditional UPDATE (next_run_at moves forward only if it was still due), and the one whose UPDATE changed
the row enqueues the job, in the same transaction."""
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from jobs.models import PeriodicSlot


def enqueue_due(now=None):
    """Enqueue every periodic job whose slot is due and not taken by another worker; the tasks enqueued."""
    now = now or timezone.now()
    enqueued = []
    for path, seconds in settings.PARLEY_PERIODIC_TASKS.items():
        PeriodicSlot.objects.get_or_create(task=path, defaults={"next_run_at": now})
        with transaction.atomic():
            taken = PeriodicSlot.objects.filter(task=path, next_run_at__lte=now).update(
                next_run_at=now + timedelta(seconds=seconds))
            if taken:
                import_string(path).enqueue()
                enqueued.append(path)
    return enqueued
