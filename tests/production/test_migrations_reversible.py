"""Every migration can be rolled back (docs/operations.md, "Upgrade and rollback"): on a fresh PostgreSQL
database the migrations run forward, back to zero and forward again, and leave the same schema, functions
and triggers each time forward, and nothing of their own at zero. Third-party apps whose migrations cannot
be rolled back stay in place: rolling back is ours to promise, not theirs."""
import subprocess

import pytest
from django.core.management import call_command
from django.db.migrations.loader import MigrationLoader

from tests.production.private_cluster import ALIAS, every_query_on

pytestmark = pytest.mark.postgres

# What a migration back to zero leaves on purpose: Django's own record of migrations, and pg_trgm, which
# migration 0006 leaves in place (other objects of the database may use it).
LEFT_AT_ZERO = {"django_migrations", "django_migrations_id_seq", "django_migrations_pkey"}
# The job queue's tables (django-tasks' database backend): its migration 0013 has no way back.
FORWARD_ONLY = {"django_tasks_database"}


def schema(url):
    dumped = subprocess.run(["pg_dump", "--schema-only", "--no-owner", f"--dbname={url}"], capture_output=True,
                            text=True, check=True, timeout=60).stdout
    # Comments name versions; \restrict and \unrestrict carry a key drawn afresh by each pg_dump.
    return [line for line in dumped.splitlines()
            if line and not line.startswith(("--", "\\restrict", "\\unrestrict"))]


def own_objects(database):
    """Relations, functions and triggers in the public schema, besides pg_trgm's."""
    with database.cursor() as cursor:
        cursor.execute("""
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'public'
            UNION ALL
            SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = 'public' AND NOT EXISTS (
                   SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
            UNION ALL
            SELECT tgname FROM pg_trigger WHERE NOT tgisinternal""")
        return {name for (name,) in cursor.fetchall()}


def apps_with_migrations(database):
    return {app for app, _ in MigrationLoader(database).graph.leaf_nodes()}


def test_migrations_run_forward_back_to_zero_and_forward_again(scratch_database, django_db_blocker):
    with django_db_blocker.unblock(), every_query_on(scratch_database) as database:
        for app in sorted(FORWARD_ONLY):
            call_command("migrate", app, database=ALIAS, verbosity=0)
        kept = own_objects(database)
        call_command("migrate", database=ALIAS, verbosity=0)
        first = schema(scratch_database)
        for app in sorted(apps_with_migrations(database) - FORWARD_ONLY):  # an app's dependents go first
            call_command("migrate", app, "zero", database=ALIAS, verbosity=0)
        at_zero = own_objects(database)
        call_command("migrate", database=ALIAS, verbosity=0)
        again = schema(scratch_database)
    assert at_zero == LEFT_AT_ZERO | kept
    assert again == first
    assert any("parley_feed_thread_note" in line for line in first), "the triggers should be part of the schema"
