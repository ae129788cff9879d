"""On PostgreSQL a token that loses access wakes every waiter at once (§16 with §3): revoking it, or taking
its `read` or `lock` right, queues the note that concerns everyone. Each open stream then checks its caller
again before it reads (feed/caller_checks.py) and ends if it may no longer read, instead of at its next
heartbeat. A revocation is rare, and a woken waiter that may still read only re-reads. SQLite has no such
channel: there the heartbeat's check notices it."""
from django.db import migrations

from forum.migration_operations import RunSQLOnPostgreSQL

# As feed.hub had them when this migration was written; a migration keeps its own constants.
CHANNEL = "parley_feed"
EVERYTHING = '{"kind": "*"}'

CREATE = f"""
CREATE FUNCTION parley_feed_everyone_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', '{EVERYTHING}');
    RETURN NULL;
END $$;
CREATE TRIGGER parley_feed_token_access_lost AFTER UPDATE ON forum_token
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
                       OR OLD.can_read AND NOT NEW.can_read OR OLD.can_lock AND NOT NEW.can_lock)
    EXECUTE FUNCTION parley_feed_everyone_note();
"""

DROP = """
DROP TRIGGER IF EXISTS parley_feed_token_access_lost ON forum_token;
DROP FUNCTION IF EXISTS parley_feed_everyone_note();
"""


class Migration(migrations.Migration):
    dependencies = [("forum", "0006_text_search_trigram")]
    operations = [RunSQLOnPostgreSQL(CREATE, reverse_sql=DROP)]
