"""On PostgreSQL the database itself announces every committed write to the feed's followers (§16): row
triggers queue a `pg_notify` inside the writing transaction. PostgreSQL delivers it at the commit and drops
it on a rollback, and it costs the write no round trip. SQLite has no channel between processes; there
feed.notify wakes the process's own followers from the writes' announcements (forum.announce).

The notes' shape: `{"kind": "thread", "thread", "act", "from"}` when a thread starts awaiting something (it
is created, or its `awaiting_seq` moves: only then can it enter an inbox); `{"kind": "event", "thread"}` for
every state event of a thread or claim; `{"kind": "message", "thread"}` for every new message (§2's MCP
push: a listener of a thread hears any message of it); and `{"kind": "*"}`, which wakes everyone, when a
token is revoked or loses `read` or `lock` (its open streams then check their caller at once).

These triggers are the feed's, so they live here. Databases made before the move got the same functions
and triggers from the forum's migrations 0005, 0007 and 0009 (now empty): every statement below replaces
what it finds, so it runs alike on a fresh database and on one that has them already."""
from django.db import migrations

from forum.migration_operations import RunSQLOnPostgreSQL

# As feed.hub has them; a migration keeps its own constants.
CHANNEL = "parley_feed"
EVERYTHING = '{"kind": "*"}'

CREATE = f"""
CREATE OR REPLACE FUNCTION parley_feed_thread_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', json_build_object(
        'kind', 'thread', 'thread', NEW.id, 'act', NEW.awaiting_act, 'from', NEW.awaiting_from)::text);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION parley_feed_event_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', json_build_object('kind', 'event', 'thread', NEW.thread_id)::text);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION parley_feed_message_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', json_build_object('kind', 'message', 'thread', NEW.thread_id)::text);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION parley_feed_everyone_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', '{EVERYTHING}');
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS parley_feed_thread_created ON forum_thread;
CREATE TRIGGER parley_feed_thread_created AFTER INSERT ON forum_thread
    FOR EACH ROW EXECUTE FUNCTION parley_feed_thread_note();
DROP TRIGGER IF EXISTS parley_feed_thread_awaits ON forum_thread;
CREATE TRIGGER parley_feed_thread_awaits AFTER UPDATE ON forum_thread
    FOR EACH ROW WHEN (OLD.awaiting_seq IS DISTINCT FROM NEW.awaiting_seq)
    EXECUTE FUNCTION parley_feed_thread_note();
DROP TRIGGER IF EXISTS parley_feed_event_recorded ON forum_stateevent;
CREATE TRIGGER parley_feed_event_recorded AFTER INSERT ON forum_stateevent
    FOR EACH ROW EXECUTE FUNCTION parley_feed_event_note();
DROP TRIGGER IF EXISTS parley_feed_message_posted ON forum_message;
CREATE TRIGGER parley_feed_message_posted AFTER INSERT ON forum_message
    FOR EACH ROW EXECUTE FUNCTION parley_feed_message_note();
DROP TRIGGER IF EXISTS parley_feed_token_access_lost ON forum_token;
CREATE TRIGGER parley_feed_token_access_lost AFTER UPDATE ON forum_token
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
                       OR OLD.can_read AND NOT NEW.can_read OR OLD.can_lock AND NOT NEW.can_lock)
    EXECUTE FUNCTION parley_feed_everyone_note();
"""

DROP = """
DROP TRIGGER IF EXISTS parley_feed_token_access_lost ON forum_token;
DROP TRIGGER IF EXISTS parley_feed_message_posted ON forum_message;
DROP TRIGGER IF EXISTS parley_feed_event_recorded ON forum_stateevent;
DROP TRIGGER IF EXISTS parley_feed_thread_awaits ON forum_thread;
DROP TRIGGER IF EXISTS parley_feed_thread_created ON forum_thread;
DROP FUNCTION IF EXISTS parley_feed_everyone_note();
DROP FUNCTION IF EXISTS parley_feed_message_note();
DROP FUNCTION IF EXISTS parley_feed_event_note();
DROP FUNCTION IF EXISTS parley_feed_thread_note();
"""


class Migration(migrations.Migration):
    # The tables the triggers watch, as the forum's migrations leave them.
    dependencies = [("forum", "0012_redaction_and_event_note")]
    operations = [RunSQLOnPostgreSQL(CREATE, reverse_sql=DROP)]
