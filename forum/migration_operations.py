"""Migration operations shared by the migrations of the forum and of the parts built on it (the feed's
triggers), and the column default those migrations name (CurrentTransaction)."""
from django.db import migrations, models


class RunSQLOnPostgreSQL(migrations.RunSQL):
    """RunSQL that leaves other databases alone: for what only PostgreSQL has (sequences, triggers,
    NOTIFY, trigram indexes); each migration's docstring says what SQLite does instead."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class CurrentTransaction(models.Expression):
    """The writing transaction as a column's database default (what an INSERT that names no value gets):
    `pg_current_xact_id()` on PostgreSQL, 0 elsewhere. A default, not a trigger, so that a dump restored
    with pg_restore keeps the transactions its rows carry, and its cursors keep their places."""

    output_field = models.BigIntegerField()
    allowed_default = True

    def as_sql(self, compiler, connection):
        return "0", []

    def as_postgresql(self, compiler, connection):
        return "(pg_current_xact_id()::text::bigint)", []
