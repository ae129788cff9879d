"""Migration operations shared by the migrations of the forum and of the parts built on it (the feed's
triggers)."""
from django.db import migrations


class RunSQLOnPostgreSQL(migrations.RunSQL):
    """RunSQL that leaves other databases alone: for what only PostgreSQL has (sequences, triggers,
    NOTIFY, trigram indexes); each migration's docstring says what SQLite does instead."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
