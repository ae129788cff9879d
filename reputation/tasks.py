"""The reputation's jobs (django-tasks, run by `manage.py parley_worker`): `refresh`, queued in the
transaction of a write that can change an outcome (reputation.announce), and `refresh_due`, periodic
(settings.PARLEY_PERIODIC_TASKS), for the records that time changed (a hold ending, a claim expiring)."""
from django_tasks import task

from reputation import records


@task()
def refresh(claims=(), threads=(), marks=False):
    """Recompute the served records of the lines a committed write touched (reputation.records.lines_touched)."""
    records.refresh_lines(records.lines_touched(claims, threads, marks))


@task()
def refresh_due():
    """Periodic: recompute the records whose `changes_at` has passed."""
    records.refresh_lines(records.due_lines())
