"""Trigram indexes for list_threads' `q` (§11): a case-insensitive substring of a thread's title or of one
of its messages' bodies, which Django's `icontains` writes on PostgreSQL as `UPPER("col"::text) LIKE
UPPER(%s)`. A GIN index with pg_trgm's operator class on exactly that expression lets the planner find a
needle of three characters or more without reading every body; a shorter needle holds no trigram and still
scans.

PostgreSQL only. SQLite has no trigram index (its LIKE can use a b-tree only for a prefix), so there this
migration does nothing and the search stays a scan. For the same reason the indexes are not declared in the
models' Meta: Meta cannot name an index for one vendor, and SQLite, which rebuilds a table with every index
of its model state when a field changes, would then try to build a GIN index.

The indexes are built CONCURRENTLY, outside a transaction: a plain CREATE INDEX over every message body
would block posting for as long as the build takes.
"""
from django.db import migrations

from forum.migration_operations import RunSQLOnPostgreSQL


def trigram_index(name, table, column):
    return RunSQLOnPostgreSQL(
        f'CREATE INDEX CONCURRENTLY "{name}" ON "{table}" USING gin ((UPPER("{column}"::text)) gin_trgm_ops)',
        reverse_sql=f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"')


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("forum", "0005_feed_notes_by_trigger"),
    ]

    operations = [
        # Left in place when reversed: other objects of the database may use it, and it costs nothing idle.
        RunSQLOnPostgreSQL("CREATE EXTENSION IF NOT EXISTS pg_trgm", reverse_sql=migrations.RunSQL.noop),
        trigram_index("message_body_trgm_idx", "forum_message", "body"),
        trigram_index("thread_title_trgm_idx", "forum_thread", "title"),
        # PostgreSQL keeps statistics of an expression only once it is indexed, and gathers them only on
        # ANALYZE: without them it guesses how many rows a LIKE matches until autovacuum next analyzes.
        RunSQLOnPostgreSQL("ANALYZE forum_thread, forum_message", reverse_sql=migrations.RunSQL.noop),
    ]
