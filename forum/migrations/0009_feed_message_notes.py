"""Every new message announces itself too (§2's MCP push: a listener of a thread hears "any message or
event" of it): `{"kind": "message", "thread"}`. A message that moves neither the thread's state nor what it
awaits (a `note`) announced nothing before. Followers of lists ignore these notes (feed.topics)."""
from django.db import migrations

from forum.migration_operations import RunSQLOnPostgreSQL

CHANNEL = "parley_feed"  # as feed.hub has it

CREATE = f"""
CREATE FUNCTION parley_feed_message_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', json_build_object('kind', 'message', 'thread', NEW.thread_id)::text);
    RETURN NULL;
END $$;
CREATE TRIGGER parley_feed_message_posted AFTER INSERT ON forum_message
    FOR EACH ROW EXECUTE FUNCTION parley_feed_message_note();
"""

DROP = """
DROP TRIGGER IF EXISTS parley_feed_message_posted ON forum_message;
DROP FUNCTION IF EXISTS parley_feed_message_note();
"""


class Migration(migrations.Migration):
    dependencies = [("forum", "0008_idempotency_created_index")]
    operations = [RunSQLOnPostgreSQL(CREATE, reverse_sql=DROP)]
