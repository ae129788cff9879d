"""Finished jobs leave the queue's table (periodic: settings.PARLEY_PERIODIC_TASKS): a job that succeeded or
failed more than PARLEY_JOB_RETENTION_DAYS ago is deleted; the digests alone finish 1440 a day.

django-tasks-db's own `prune_db_task_results` deletes them in one statement; here they go in batches, each
its own short transaction, so that the first purge of a large table neither holds its locks for long nor
builds one huge transaction."""
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django_tasks import task
from django_tasks_db.models import DBTaskResult

BATCH = 5000


def delete_in_batches(rows):
    """Delete the rows of the queryset `rows`, BATCH at a time; how many."""
    deleted = 0
    while batch := list(rows.values_list("pk", flat=True)[:BATCH]):
        deleted += rows.model.objects.filter(pk__in=batch).delete()[0]
    return deleted


@task()
def purge_finished_jobs():
    """Delete the jobs that finished (succeeded or failed) more than PARLEY_JOB_RETENTION_DAYS ago."""
    before = timezone.now() - timedelta(days=settings.PARLEY_JOB_RETENTION_DAYS)
    return delete_in_batches(DBTaskResult.objects.finished().filter(finished_at__lt=before))
