"""annotate=reputation on a held inbox (§21 with §16): the page a wait answers, read off the event loop once
a write wakes it, carries the annotation as an immediate answer would."""
import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from reputation.models import Standing
from tests.asgi_client import AsgiClient
from tests.conftest import Agent
from tests.feed.conftest import _listener_gone_before_the_database  # noqa: F401 - its session fixture
from tests.feed.test_wait_rules import held_calls, until_holding

pytestmark = pytest.mark.django_db(transaction=True)  # a held call reads on the feed's own threads


def test_a_held_inbox_page_carries_the_annotation(bob, mod):
    Standing.objects.create(identity=bob.identity, scope="global", computed_at=timezone.now(), score=0.66,
                            mean=0.5, alpha=1, beta=1, successes=0, failures=0, tier="established")
    as_bob, as_mod = Agent(bob, AsgiClient()), Agent(mod, AsgiClient())
    cursor = as_mod.get("/api/v1/inbox", awaiting="confirmation").json()["cursor"]

    def wait():
        return as_mod.client.client.get("/api/v1/inbox", {"awaiting": "confirmation", "annotate": "reputation",
                                                          "wait": 10, "since": cursor},
                                        headers=as_mod.client.defaults)

    async def propose():
        await until_holding(mod, 1)
        thread = await sync_to_async(as_bob.ask)()
        await sync_to_async(as_bob.say)("decide", "We do it.", thread=thread)

    response, _ = held_calls(wait, propose)
    assert response.status_code == 200, response.content
    [item] = response.json()["items"]
    assert item["reputation"] == {"identity": bob.identity, "score": 0.66, "tier": "established"}
