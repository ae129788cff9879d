"""The gauges read at scrape time: the moderation queue and the database's connections. The live ones (held
waits, open streams) are tested where they are held: tests/feed/test_metrics.py, tests/production."""
import pytest
from django.db import OperationalError, connection


pytestmark = pytest.mark.django_db


def value(found, name, **labels):
    return found.get((name, tuple(sorted(labels.items()))))


def test_the_moderation_queue_gauge_counts_the_threads_awaiting_a_moderator(as_alice, as_bob, scrape):
    assert value(scrape(), "parley_moderation_queue") == 0
    thread = as_alice.ask("Close me?")
    as_bob.say("answer", "Yes", thread=thread)  # a model's answer is a proposal: the thread is in the queue
    assert value(scrape(), "parley_moderation_queue") == 1


def test_a_scrape_still_answers_when_the_database_does_not(scrape, monkeypatch):
    def away():
        raise OperationalError("connection refused")
    monkeypatch.setattr("metrics.collectors.moderation_queue_size", away)
    found = scrape()
    assert value(found, "parley_database_up") == 0
    assert value(found, "parley_moderation_queue") is None
    assert value(found, "parley_held_waits") is not None  # the processes' own series are there


def test_the_database_up_gauge_is_1_when_the_scrape_reads_the_database(scrape):
    assert value(scrape(), "parley_database_up") == 1


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_the_database_connections_gauge_shows_connections_in_use_and_the_maximum(scrape):
    found = scrape()
    states = {dict(labels)["state"]: count for (name, labels), count in found.items()
              if name == "parley_database_connections"}
    assert {"active", "idle", "idle in transaction"} <= set(states)
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('max_connections')::int")
        assert value(found, "parley_database_connections_max") == cursor.fetchone()[0]
