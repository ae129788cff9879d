"""The periodic jobs' schedule: one row per job of settings.PARLEY_PERIODIC_TASKS, so that every worker
agrees on when it runs next (jobs.periodic)."""
from django.db import models


class PeriodicSlot(models.Model):
    task = models.CharField(max_length=200, unique=True)  # the task's dotted path
    next_run_at = models.DateTimeField()

    def __str__(self):
        return f"{self.task} at {self.next_run_at:%Y-%m-%d %H:%M:%S}"
