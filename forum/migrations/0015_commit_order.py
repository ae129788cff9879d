"""Commit-ordered cursors without the cursor-order lock (§19, forum.commit_order): each row of a list a
cursor walks records the transaction that wrote it. Rows already there keep 0 (the column is added with
that constant default first), so that a cursor issued before this migration (a bare position, read as
transaction 0) continues where it stopped; then the default becomes the writing transaction,
`pg_current_xact_id()` on PostgreSQL (forum.migration_operations.CurrentTransaction; SQLite, one writer at a time, keeps 0).

A trigger keeps a row's transaction on later updates, whatever a statement sends, and gives a thread a new
`awaiting_xact` whenever its `awaiting_seq` moves (it enters the inbox anew)."""
from django.db import migrations, models

import forum.migration_operations
from forum.migration_operations import RunSQLOnPostgreSQL

CREATE = """
CREATE FUNCTION parley_row_xact_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.xact := OLD.xact;
    RETURN NEW;
END $$;
CREATE FUNCTION parley_thread_xact_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.xact := OLD.xact;
    NEW.awaiting_xact := CASE WHEN NEW.awaiting_seq IS DISTINCT FROM OLD.awaiting_seq
                              THEN pg_current_xact_id()::text::bigint ELSE OLD.awaiting_xact END;
    RETURN NEW;
END $$;
CREATE TRIGGER parley_thread_xact_kept BEFORE UPDATE ON forum_thread
    FOR EACH ROW WHEN (NEW.xact IS DISTINCT FROM OLD.xact OR NEW.awaiting_xact IS DISTINCT FROM OLD.awaiting_xact
                       OR NEW.awaiting_seq IS DISTINCT FROM OLD.awaiting_seq)
    EXECUTE FUNCTION parley_thread_xact_kept();
CREATE TRIGGER parley_stateevent_xact_kept BEFORE UPDATE ON forum_stateevent
    FOR EACH ROW WHEN (NEW.xact IS DISTINCT FROM OLD.xact) EXECUTE FUNCTION parley_row_xact_kept();
"""

DROP = """
DROP TRIGGER IF EXISTS parley_stateevent_xact_kept ON forum_stateevent;
DROP TRIGGER IF EXISTS parley_thread_xact_kept ON forum_thread;
DROP FUNCTION IF EXISTS parley_thread_xact_kept();
DROP FUNCTION IF EXISTS parley_row_xact_kept();
"""


class Migration(migrations.Migration):

    dependencies = [
        ('forum', '0014_token_last_write_xid'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='thread',
            name='thread_awaiting_idx',
        ),
        migrations.RemoveIndex(
            model_name='thread',
            name='thread_state_idx',
        ),
        migrations.RemoveIndex(
            model_name='thread',
            name='thread_creator_idx',
        ),
        migrations.RemoveIndex(
            model_name='thread',
            name='thread_awaiting_from_idx',
        ),
        migrations.RemoveIndex(
            model_name='stateevent',
            name='event_thread_idx',
        ),
        migrations.AddField(
            model_name='stateevent',
            name='xact',
            field=models.BigIntegerField(default=0, editable=False),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name='thread',
            name='awaiting_xact',
            field=models.BigIntegerField(default=0, editable=False),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name='thread',
            name='xact',
            field=models.BigIntegerField(default=0, editable=False),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name='stateevent',
            name='xact',
            field=models.BigIntegerField(db_default=forum.migration_operations.CurrentTransaction(), editable=False),
        ),
        migrations.AlterField(
            model_name='thread',
            name='awaiting_xact',
            field=models.BigIntegerField(db_default=forum.migration_operations.CurrentTransaction(), editable=False),
        ),
        migrations.AlterField(
            model_name='thread',
            name='xact',
            field=models.BigIntegerField(db_default=forum.migration_operations.CurrentTransaction(), editable=False),
        ),
        migrations.AddIndex(
            model_name='stateevent',
            index=models.Index(fields=['xact', 'id'], name='event_order_idx'),
        ),
        migrations.AddIndex(
            model_name='thread',
            index=models.Index(fields=['awaiting_act', 'awaiting_xact', 'awaiting_seq'], name='thread_awaiting_idx'),
        ),
        migrations.AddIndex(
            model_name='thread',
            index=models.Index(fields=['awaiting_from', 'awaiting_act', 'awaiting_xact', 'awaiting_seq'], name='thread_awaiting_from_idx'),
        ),
        migrations.AddIndex(
            model_name='thread',
            index=models.Index(fields=['xact', 'id'], name='thread_order_idx'),
        ),
        migrations.AddIndex(
            model_name='thread',
            index=models.Index(fields=['state', 'xact', 'id'], name='thread_state_idx'),
        ),
        migrations.AddIndex(
            model_name='thread',
            index=models.Index(fields=['creator_identity', 'xact', 'id'], name='thread_creator_idx'),
        ),
        migrations.AddIndex(
            model_name='stateevent',
            index=models.Index(fields=['thread', 'xact', 'id'], name='event_thread_idx'),
        ),
        RunSQLOnPostgreSQL(CREATE, reverse_sql=DROP),
    ]
