"""The gauges: the moderation queue and the database's connections (read at scrape time), the calls held
waiting (live, in the processes that hold them)."""
import asyncio

import pytest
from asgiref.sync import async_to_sync
from django.db import OperationalError, connection

from tests.asgi_client import AsgiClient
from tests.conftest import Agent
from tests.metrics.conftest import METRICS_TOKEN, series

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
    monkeypatch.setattr("metrics.collectors.moderation_queue_length", away)
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


@pytest.mark.django_db(transaction=True)  # the wait reads on threads of its own
def test_the_held_waits_gauge_counts_a_call_while_it_holds(bob, metrics_token):
    waiter = Agent(bob, AsgiClient())
    scraper = AsgiClient()

    async def scrape_later():
        await asyncio.sleep(1)
        return await scraper.client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})

    async def together():
        return await asyncio.gather(
            waiter.client.client.get("/api/v1/inbox", {"wait": 3}, headers=waiter.client.defaults), scrape_later())

    async def after():
        return await scraper.client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})

    before = series(async_to_sync(after)().content.decode())
    waited, during = async_to_sync(together)()
    assert waited.status_code == 200 and waited.json()["items"] == []
    assert value(series(during.content.decode()), "parley_held_waits") == value(before, "parley_held_waits") + 1
    assert value(series(async_to_sync(after)().content.decode()), "parley_held_waits") == value(
        before, "parley_held_waits")
