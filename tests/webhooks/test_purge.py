"""Finished jobs and settled deliveries leave their tables PARLEY_JOB_RETENTION_DAYS after they finished
(periodic jobs), and the SQL docs/operations.md gives operators for the queue runs as written."""
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from jobs.purge import purge_finished_jobs
from tests.webhooks.conftest import jobs_of
from tests.webhooks.periodic_tasks import tick
from webhooks.models import Delivery
from webhooks.tasks import purge_deliveries

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
TICK = "tests.webhooks.periodic_tasks.tick"


def finished(days_ago, status="SUCCESSFUL"):
    job = tick.enqueue()
    DBTaskResult.objects.filter(pk=job.id).update(status=status, finished_at=timezone.now() - timedelta(days=days_ago))
    return job.id


def test_the_worker_purges_on_a_schedule(settings):
    assert {"jobs.purge.purge_finished_jobs", "webhooks.tasks.purge_deliveries"} <= set(settings.PARLEY_PERIODIC_TASKS)


def test_finished_jobs_older_than_the_retention_are_purged(db, settings):
    settings.PARLEY_JOB_RETENTION_DAYS = 7
    finished(8), finished(8, "FAILED")
    recent, waiting = finished(6), tick.enqueue().id
    assert purge_finished_jobs.call() == 2
    assert {str(pk) for pk in jobs_of(TICK).values_list("pk", flat=True)} == {recent, waiting}


def test_settled_deliveries_older_than_the_retention_are_purged(receiver, as_bob, alice, make_webhook, run_jobs,
                                                               settings, time_machine):
    settings.PARLEY_JOB_RETENTION_DAYS = 2
    time_machine.move_to(timezone.now(), tick=False)
    make_webhook(alice, receiver().url, ["inbox"])
    as_bob.ask()
    run_jobs()  # delivered
    make_webhook(alice, "http://127.0.0.1:9/hook", ["inbox"])  # nothing listens: pending, retried
    as_bob.ask("And this?")
    run_jobs()
    time_machine.shift(timedelta(days=3))
    assert purge_deliveries.call() == 2  # the two delivered, not the one still retried
    assert list(Delivery.objects.values_list("delivered_at", flat=True)) == [None]


@pytest.mark.parametrize("value", ["0", "seven", "-1", "4000"])
def test_a_bad_retention_setting_fails_at_start(value):
    environment = {**os.environ, "DEBUG": "1", "PARLEY_JOB_RETENTION_DAYS": value}
    started = subprocess.run([sys.executable, "-c", "import parley_site.settings"], env=environment,
                             cwd=django_settings.BASE_DIR, capture_output=True, text=True)
    assert started.returncode != 0 and "ImproperlyConfigured: PARLEY_JOB_RETENTION_DAYS" in started.stderr


def documented_sql():
    return re.findall(r"```sql\n(.*?)```", OPERATIONS.read_text().split("### Background jobs and webhooks")[1]
                      .split("\n## ")[0], re.S)


@pytest.mark.postgres
def test_the_queue_sql_of_the_operators_guide_runs_as_written(db):
    if connection.vendor != "postgresql":
        pytest.skip("the guide's SQL is PostgreSQL's")
    depth, clean_up = documented_sql()
    old, recent = finished(8), finished(1)
    tick.enqueue()  # due at once
    tick.using(run_after=timezone.now() - timedelta(seconds=5)).enqueue()  # due since 5 s
    tick.using(run_after=timezone.now() + timedelta(hours=1)).enqueue()  # not due yet
    with connection.cursor() as cursor:
        cursor.execute(depth)
        assert cursor.fetchall() == [("default", 2)]
        cursor.execute(clean_up)
        assert cursor.rowcount == 1
    assert not DBTaskResult.objects.filter(pk=old).exists() and DBTaskResult.objects.filter(pk=recent).exists()
