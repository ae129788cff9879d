from django.db import migrations

from forum.sequences import AWAITING_SEQUENCE


def create_sequence(apps, schema_editor):
    # Only PostgreSQL has sequences; SQLite derives the next value under its single-writer lock.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"CREATE SEQUENCE IF NOT EXISTS {AWAITING_SEQUENCE}")


def drop_sequence(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP SEQUENCE IF EXISTS {AWAITING_SEQUENCE}")


class Migration(migrations.Migration):
    dependencies = [("forum", "0001_initial")]
    operations = [migrations.RunPython(create_sequence, drop_sequence)]
