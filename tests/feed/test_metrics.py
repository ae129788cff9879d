"""The feed's live gauge on /metrics: a call held waiting counts while it holds (§16). Open streams are
counted over real HTTP, across workers: tests/production/test_metrics.py."""
import asyncio

import pytest
from asgiref.sync import async_to_sync

from tests.asgi_client import AsgiClient
from tests.metrics.conftest import METRICS_TOKEN, series

pytestmark = pytest.mark.django_db(transaction=True)  # the wait reads on threads of its own


def test_the_held_waits_gauge_counts_a_call_while_it_holds(as_bob, settings):
    settings.PARLEY_METRICS_TOKEN = METRICS_TOKEN
    scraper = AsgiClient()

    async def held_waits(delay=0):
        await asyncio.sleep(delay)
        response = await scraper.client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert response.status_code == 200
        return series(response.content.decode())[("parley_held_waits", ())]

    async def wait_and_scrape_meanwhile():
        return await asyncio.gather(
            as_bob.client.client.get("/api/v1/inbox", {"wait": 3}, headers=as_bob.client.defaults),
            held_waits(delay=1))

    before = async_to_sync(held_waits)()
    waited, during = async_to_sync(wait_and_scrape_meanwhile)()
    assert (waited.status_code, waited.json()["items"]) == (200, [])
    assert (during, async_to_sync(held_waits)()) == (before + 1, before)
