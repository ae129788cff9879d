"""§17: once a message is redacted its text is in the database no more: in no `pg_dump` of PostgreSQL once
the vacuum job has run, and nowhere in the bytes of an SQLite database file (secure_delete)."""
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from forum.actors import Actor
from forum.erasure import snapshots_older_than, vacuum_tables
from forum.models import Thread
from forum.services import message_redact
from tests.forum.erasure_scenario import leave_the_secret_everywhere, redact_all

ROOT = Path(__file__).resolve().parents[2]


def a_secret():
    return f"leak-{uuid.uuid4().hex}"


def pg_dump():
    """The test database's data, as an operator's backup would hold it."""
    settings = connection.settings_dict
    command = ["pg_dump", "--data-only", "--no-owner", "-h", settings["HOST"] or "127.0.0.1",
               "-p", str(settings["PORT"] or 5432), "-U", settings["USER"] or "postgres", settings["NAME"]]
    env = {**os.environ, "PGPASSWORD": settings["PASSWORD"] or ""}
    return subprocess.run(command, env=env, capture_output=True, text=True, check=True, timeout=120).stdout


@pytest.mark.postgres
def test_a_redacted_secret_is_in_no_pg_dump_once_the_vacuum_job_ran(transactional_db, django_user_model):
    if connection.vendor != "postgresql":
        pytest.skip("the SQLite file has its own test below")
    secret = a_secret()
    warden, message_ids = leave_the_secret_everywhere(secret, django_user_model.objects.create_user("keeper"))
    assert secret in pg_dump()

    redact_all(warden, message_ids)
    call_command("db_worker", "--batch", "--no-startup-delay", verbosity=0)

    jobs = set(DBTaskResult.objects.values_list("task_path", "status"))
    # Every write also queued its webhook fan-out (§17); the vacuum job is the redactions'.
    assert ("forum.erasure.vacuum_tables", "SUCCESSFUL") in jobs
    assert {status for _, status in jobs} == {"SUCCESSFUL"}
    assert secret not in pg_dump()


def test_a_redacted_secret_is_nowhere_in_the_sqlite_file(tmp_path):
    secret, database, before = a_secret(), tmp_path / "parley.sqlite3", tmp_path / "before.sqlite3"
    script = ("import django, sys; django.setup(); from tests.forum.erasure_scenario import on_a_file; "
              "on_a_file(sys.argv[1], sys.argv[2])")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "DJANGO_SETTINGS_MODULE": "parley_site.settings_test"}
    subprocess.run([sys.executable, "-c", script, secret, str(before)], cwd=ROOT, env=env, check=True, timeout=300)

    assert secret.encode() in before.read_bytes()
    left = [path for path in tmp_path.iterdir() if path.name.startswith(database.name)]  # -journal, -wal too
    assert [path.name for path in left if secret.encode() in path.read_bytes()] == []


def test_sqlite_overwrites_what_it_frees(db):
    if connection.vendor != "sqlite":
        pytest.skip("an SQLite pragma")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA secure_delete")
        assert cursor.fetchone() == (1,)


@pytest.fixture
def older_snapshot(transactional_db):
    """A connection of another client (a `pg_dump` taken while serving) holding a REPEATABLE READ snapshot
    until closed."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL keeps dead row versions for older snapshots; SQLite overwrites what it frees")
    from feed.hub import raw_connection

    other = raw_connection()
    other.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    other.execute("SELECT count(*) FROM forum_message").fetchone()  # the snapshot is taken here
    yield other
    other.close()


def redacted_leak(as_alice, mod):
    """A message holding a secret, redacted; returns its table's name."""
    thread = as_alice.ask(f"Is {a_secret()} the deploy key?")
    message_id = int(Thread.objects.get(pk=int(thread.removeprefix("th_"))).first_message_id)
    message_redact(Actor.for_token(mod), message_id, "a leak")
    return "forum_message"


def vacuum_jobs():
    return DBTaskResult.objects.filter(task_path="forum.erasure.vacuum_tables").order_by("enqueued_at")


def args(job):
    return job.args_kwargs["args"]


def run_due_jobs():
    call_command("db_worker", "--batch", "--no-startup-delay", verbosity=0)


def dead_versions(table):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = %s", [table])
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_the_vacuum_after_a_redaction_waits_with_backoff_while_an_older_snapshot_is_open(
        older_snapshot, as_alice, mod):
    table = redacted_leak(as_alice, mod)
    run_due_jobs()

    first, retry = vacuum_jobs()
    assert first.status == "SUCCESSFUL" and retry.status == "READY"
    assert args(retry)[2] == 1 and 50 < (retry.run_after - timezone.now()).total_seconds() <= 60
    assert dead_versions(table) > 0  # the erased text is still in the table file
    assert f"pid {older_snapshot.info.backend_pid} " in " ".join(snapshots_older_than(args(first)[1]))

    older_snapshot.close()
    vacuum_jobs().filter(pk=retry.pk).update(run_after=timezone.now())
    run_due_jobs()

    assert [job.status for job in vacuum_jobs()] == ["SUCCESSFUL", "SUCCESSFUL"]
    assert dead_versions(table) == 0


@pytest.mark.postgres
def test_the_vacuum_retries_back_off_to_at_most_an_hour(older_snapshot, as_alice, mod):
    table = redacted_leak(as_alice, mod)
    [job] = vacuum_jobs()
    tables, erased_by = args(job)[:2]
    for attempt, delay in [(1, 120), (5, 1920), (6, 3600), (12, 3600)]:
        vacuum_tables.call(tables, erased_by, attempt)
        retry = vacuum_jobs().last()
        assert args(retry) == [tables, erased_by, attempt + 1]
        assert delay - 10 < (retry.run_after - timezone.now()).total_seconds() <= delay
    assert table in tables
