"""The feed's notify triggers are the feed's own migration (feed/migrations/0001_notes_by_trigger.py). A
database made before the move has them from the forum's migrations 0005, 0007 and 0009, which are empty
now: the feed's migration replaces what it finds, so it runs alike there and on a fresh database, and
leaves each trigger once."""
import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TRIGGERS = ["parley_feed_event_recorded", "parley_feed_message_posted", "parley_feed_thread_awaits",
            "parley_feed_thread_created", "parley_feed_token_access_lost"]
FEED = ("feed", "0001_notes_by_trigger")


def triggers():
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgname FROM pg_trigger WHERE tgname LIKE 'parley_feed_%%' ORDER BY tgname")
        return [name for (name,) in cursor.fetchall()]


@pytest.fixture
def migrated_again():
    yield
    call_command("migrate", "feed", verbosity=0)  # the suite's database as it was, whatever the test did


def test_a_fresh_database_gets_every_trigger_from_the_feeds_migration(migrated_again):
    call_command("migrate", "feed", "zero", verbosity=0)
    assert triggers() == []
    call_command("migrate", "feed", verbosity=0)
    assert triggers() == TRIGGERS


def test_a_database_that_has_the_triggers_from_the_forums_migrations_takes_the_feeds_migration(migrated_again):
    # As an upgraded database stands: the triggers there (made by forum 0005, 0007, 0009 before the move),
    # the feed's migrations not yet applied (the one after it, which wakes on a rotation, replaces what it
    # finds too).
    assert triggers() == TRIGGERS
    MigrationRecorder(connection).record_unapplied("feed", "0002_wake_on_rotation")
    MigrationRecorder(connection).record_unapplied(*FEED)
    call_command("migrate", "feed", verbosity=0)
    assert triggers() == TRIGGERS
    assert MigrationRecorder(connection).migration_qs.filter(app=FEED[0], name=FEED[1]).exists()
