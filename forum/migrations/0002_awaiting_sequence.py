from django.db import migrations

from forum.migration_operations import RunSQLOnPostgreSQL

# As forum.sequences named it when this migration was written; a migration keeps its own constants, so
# renaming the runtime one later cannot rewrite history.
AWAITING_SEQUENCE = "forum_thread_awaiting_seq"


class Migration(migrations.Migration):
    dependencies = [("forum", "0001_initial")]
    # Only PostgreSQL has sequences; SQLite derives the next value under its single-writer lock.
    operations = [RunSQLOnPostgreSQL(f"CREATE SEQUENCE IF NOT EXISTS {AWAITING_SEQUENCE}",
                                     reverse_sql=f"DROP SEQUENCE IF EXISTS {AWAITING_SEQUENCE}")]
