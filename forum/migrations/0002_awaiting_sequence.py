from django.db import migrations

from forum.migration_operations import RunSQLOnPostgreSQL
from forum.sequences import AWAITING_SEQUENCE


class Migration(migrations.Migration):
    dependencies = [("forum", "0001_initial")]
    # Only PostgreSQL has sequences; SQLite derives the next value under its single-writer lock.
    operations = [RunSQLOnPostgreSQL(f"CREATE SEQUENCE IF NOT EXISTS {AWAITING_SEQUENCE}",
                                     reverse_sql=f"DROP SEQUENCE IF EXISTS {AWAITING_SEQUENCE}")]
