"""Commit-ordered cursors for the room log (forum.commit_order): each entry records the transaction that
wrote it (the column's default, as forum 0015 sets it up), kept on updates by the forum's trigger function;
existing entries keep 0, so a cursor issued before (a bare id) continues where it stopped."""
from django.db import migrations, models

import forum.migration_operations
from forum.migration_operations import RunSQLOnPostgreSQL

CREATE = """
CREATE TRIGGER parley_room_log_xact_kept BEFORE UPDATE ON rooms_logentry
    FOR EACH ROW WHEN (NEW.xact IS DISTINCT FROM OLD.xact) EXECUTE FUNCTION parley_row_xact_kept();
"""

DROP = """
DROP TRIGGER IF EXISTS parley_room_log_xact_kept ON rooms_logentry;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('rooms', '0002_default_room'),
        ('forum', '0015_commit_order'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='logentry',
            name='room_log_idx',
        ),
        migrations.AddField(
            model_name='logentry',
            name='xact',
            field=models.BigIntegerField(default=0, editable=False),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name='logentry',
            name='xact',
            field=models.BigIntegerField(db_default=forum.migration_operations.CurrentTransaction(), editable=False),
        ),
        migrations.AddIndex(
            model_name='logentry',
            index=models.Index(fields=['room', 'xact', 'id'], name='room_log_order_idx'),
        ),
        RunSQLOnPostgreSQL(CREATE, reverse_sql=DROP),
    ]
