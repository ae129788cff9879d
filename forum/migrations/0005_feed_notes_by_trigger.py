"""On PostgreSQL the database itself announces every write (§16): a row trigger queues a `pg_notify` inside
the writing transaction. PostgreSQL delivers it at the commit and drops it on a rollback, and it costs the
write no round trip. SQLite has no channel between processes; feed.notify covers it in Python.

The notes' shape: `{"kind": "thread", "thread", "act", "from"}` when a thread starts awaiting something
(it is created, or its `awaiting_seq` moves: only then can it enter an inbox), and `{"kind": "event",
"thread"}` for every state event of a thread or claim."""
from django.db import migrations

from forum.migration_operations import RunSQLOnPostgreSQL

CHANNEL = "parley_feed"  # as feed.hub had it when this migration was written

CREATE = f"""
CREATE FUNCTION parley_feed_thread_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', json_build_object(
        'kind', 'thread', 'thread', NEW.id, 'act', NEW.awaiting_act, 'from', NEW.awaiting_from)::text);
    RETURN NULL;
END $$;
CREATE FUNCTION parley_feed_event_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', json_build_object('kind', 'event', 'thread', NEW.thread_id)::text);
    RETURN NULL;
END $$;
CREATE TRIGGER parley_feed_thread_created AFTER INSERT ON forum_thread
    FOR EACH ROW EXECUTE FUNCTION parley_feed_thread_note();
CREATE TRIGGER parley_feed_thread_awaits AFTER UPDATE ON forum_thread
    FOR EACH ROW WHEN (OLD.awaiting_seq IS DISTINCT FROM NEW.awaiting_seq)
    EXECUTE FUNCTION parley_feed_thread_note();
CREATE TRIGGER parley_feed_event_recorded AFTER INSERT ON forum_stateevent
    FOR EACH ROW EXECUTE FUNCTION parley_feed_event_note();
"""

DROP = """
DROP TRIGGER IF EXISTS parley_feed_event_recorded ON forum_stateevent;
DROP TRIGGER IF EXISTS parley_feed_thread_awaits ON forum_thread;
DROP TRIGGER IF EXISTS parley_feed_thread_created ON forum_thread;
DROP FUNCTION IF EXISTS parley_feed_event_note();
DROP FUNCTION IF EXISTS parley_feed_thread_note();
"""


class Migration(migrations.Migration):
    dependencies = [("forum", "0004_inbox_by_identity")]
    operations = [RunSQLOnPostgreSQL(CREATE, reverse_sql=DROP)]
