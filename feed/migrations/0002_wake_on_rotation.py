"""On PostgreSQL a rotation of a token's secret wakes every waiter at once too (§16 with §3), as losing
access does (0001): a stream, held call or listen opened with the old secret checks its credential again
(forum.selectors.current_actors) and ends if the secret stopped, instead of at its next heartbeat. One with
the new secret, or with the old one within its grace, only re-reads. Changing the expiry wakes them as
well, so that a follower's check picks up the new end. SQLite has no such channel: there the token write's
announcement wakes the serving process's own followers (feed.notify), and another process's heartbeat
check, or its next write, notices it."""
from django.db import migrations

from forum.migration_operations import RunSQLOnPostgreSQL

ACCESS_LOST = ("OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL"
               " OR OLD.can_read AND NOT NEW.can_read OR OLD.can_lock AND NOT NEW.can_lock")
CONDITION = (f"{ACCESS_LOST} OR OLD.secret_hash IS DISTINCT FROM NEW.secret_hash"
             " OR OLD.expires_at IS DISTINCT FROM NEW.expires_at")


def trigger(condition):
    return f"""
DROP TRIGGER IF EXISTS parley_feed_token_access_lost ON forum_token;
CREATE TRIGGER parley_feed_token_access_lost AFTER UPDATE ON forum_token
    FOR EACH ROW WHEN ({condition})
    EXECUTE FUNCTION parley_feed_everyone_note();
"""


class Migration(migrations.Migration):
    dependencies = [("feed", "0001_notes_by_trigger")]
    operations = [RunSQLOnPostgreSQL(trigger(CONDITION), reverse_sql=trigger(ACCESS_LOST))]
