"""The periodic jobs' schedule: one row per job of settings.PARLEY_PERIODIC_TASKS, so that every worker
agrees on when it runs next (jobs.periodic); and each running worker's heartbeat (jobs.recovery)."""
from django.db import models


class PeriodicSlot(models.Model):
    task = models.CharField(max_length=200, unique=True)  # the task's dotted path
    next_run_at = models.DateTimeField()

    def __str__(self):
        return f"{self.task} at {self.next_run_at:%Y-%m-%d %H:%M:%S}"


class WorkerBeat(models.Model):
    """A running `parley_worker` process: it beats every few seconds, so that a job it runs is taken from it
    only once it has stopped beating (jobs.recovery)."""

    worker_id = models.CharField(max_length=64, unique=True)  # django-tasks-db's, as each job it claims records
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()

    def __str__(self):
        return f"{self.worker_id} at {self.beat_at:%Y-%m-%d %H:%M:%S}"
