"""The reputation profile's console pages (§21): a line's record with its outcomes linked to the claims
and events that made them, the moderation queue sortable by the proposer's score, each verifier line's
accuracy; staff only, and no page ranks lines by their record."""
import re

import pytest
from django.utils import timezone

from forum.models import StateEvent
from reputation.models import Standing
from tests.conftest import Agent
from tests.dialectic.conftest import act, as_vera, as_victor, supported_claim, vera, verify, victor  # noqa: F401 - fixtures

QUEUE, VERIFIERS = "/reputation/queue/", "/reputation/verifiers/"


def serve(identity, score, tier):
    return Standing.objects.create(identity=identity, scope="global", computed_at=timezone.now(), score=score,
                                   mean=0.5, alpha=1, beta=1, successes=0, failures=0, tier=tier)


def propose(agent):
    thread = agent.ask()
    assert agent.say("decide", "We do it.", thread=thread).status_code == 201
    return thread


def html(response):
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def proposers_in_order(page):
    return re.findall(r'<a href="/reputation/lines/([^/]+)/">', page)


@pytest.fixture
def queued(as_alice, as_bob, carol):
    """Three proposals, entered in the order alice, bob, carol; bob's proposer scores highest, alice lowest,
    carol has no served record (score 0, new)."""
    serve(as_alice.identity, 0.2, "probation")
    serve(as_bob.identity, 0.9, "established")
    return [propose(as_alice), propose(as_bob), propose(Agent(carol))]


def test_the_queue_lists_proposals_as_they_entered_with_each_proposers_score(console, queued, as_alice, as_bob,
                                                                             carol):
    page = html(console.get(QUEUE))
    assert proposers_in_order(page) == [as_alice.identity, as_bob.identity, carol.identity]
    assert "0.900" in page and "established" in page


def test_the_queue_sorts_by_the_proposers_score_either_way(console, queued, as_alice, as_bob, carol):
    assert proposers_in_order(html(console.get(QUEUE, {"order": "-score"}))) == [
        as_bob.identity, as_alice.identity, carol.identity]
    assert proposers_in_order(html(console.get(QUEUE, {"order": "score"}))) == [
        carol.identity, as_alice.identity, as_bob.identity]


def test_the_console_pages_are_for_staff_only(client, queued):
    for path in (QUEUE, VERIFIERS):
        response = client.get(path)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.fixture
def sealed_then_refuted(as_alice, as_bob, as_vera, as_victor):
    """vera seals two claims of alice's; victor (verify: his refutation holds at once) refutes the first."""
    thread = as_alice.ask("Is the sky blue?")
    wrong = supported_claim(as_alice, as_bob, thread)
    right = supported_claim(as_alice, as_bob, thread, statement="Water is wet.")
    for claim in (wrong, right):
        assert verify(as_vera, claim, thread).json()["claim"]["state"] == "verified"
    assert act(as_victor, "refute", wrong, thread).json()["claim"]["state"] == "refuted"
    return wrong, right


def test_a_verifiers_accuracy_counts_its_seals_whose_refutation_held(console, sealed_then_refuted, as_vera):
    wrong, _ = sealed_then_refuted
    page = html(console.get(VERIFIERS))
    row = page.split(f'/reputation/lines/{as_vera.identity}/', 1)[1].split("</tr>", 1)[0]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[:3] == ["2", "1", "0.500"]
    assert f'/admin/dialectic/claim/{wrong.removeprefix("cl_")}/change/' in row


def test_a_refutation_still_within_hold_days_does_not_count_against_the_verifier(console, as_alice, as_bob,
                                                                                 as_vera):
    thread = as_alice.ask("Is the sky blue?")
    claim = supported_claim(as_alice, as_bob, thread)
    verify(as_vera, claim, thread)
    assert act(as_bob, "refute", claim, thread).json()["claim"]["state"] == "refuted"  # bob cannot seal
    row = html(console.get(VERIFIERS)).split(f'/reputation/lines/{as_vera.identity}/', 1)[1].split("</tr>", 1)[0]
    assert re.findall(r"<td[^>]*>(.*?)</td>", row)[:3] == ["1", "0", "1.000"]


def test_no_console_page_ranks_lines_by_their_record(console, sealed_then_refuted, as_alice, as_bob, as_vera,
                                                     as_victor, make_token):
    """The verifiers' page lists lines by identity, never by accuracy or score: no leaderboard (§21). aaron
    (every seal refuted, the lowest score) comes before vera (half, the highest) all the same."""
    as_aaron = Agent(make_token("aaron", ("read", "write", "verify")))
    thread = as_alice.ask("Is it raining?")
    claim = supported_claim(as_alice, as_bob, thread, statement="It rains.")
    verify(as_aaron, claim, thread)
    assert act(as_victor, "refute", claim, thread).json()["claim"]["state"] == "refuted"
    serve(as_aaron.identity, 0.1, "probation")
    serve(as_vera.identity, 0.9, "established")
    page = html(console.get(VERIFIERS))
    assert proposers_in_order(page) == [as_aaron.identity, as_vera.identity]
    assert re.findall(r'<td class="parley-accuracy">(.*?)</td>', page) == ["0.000", "0.500"]
    assert "order=" not in page


def test_a_lines_record_page_links_each_outcome_to_its_claim_and_event(console, as_alice, as_bob, as_vera):
    thread = as_alice.ask("Is the sky blue?")
    claim = supported_claim(as_alice, as_bob, thread)
    assert verify(as_vera, claim, thread).json()["claim"]["state"] == "verified"
    sealing = StateEvent.objects.get(claim_number=int(claim.removeprefix("cl_")), to_state="verified")
    page = html(console.get(f"/reputation/lines/{as_alice.identity}/"))
    assert f'<a href="/threads/{thread.removeprefix("th_")}/#ev_{sealing.pk}">ev_{sealing.pk}</a>' in page
    assert f'<a href="/admin/dialectic/claim/{claim.removeprefix("cl_")}/change/">{claim}</a>' in page
    assert "<code>sealed</code>" in page and as_vera.identity in page
    thread_page = html(console.get(f"/threads/{thread.removeprefix('th_')}/"))
    assert f'id="ev_{sealing.pk}"' in thread_page  # where the link lands


def test_a_record_page_of_an_unknown_line_is_not_found(console):
    assert console.get("/reputation/lines/ainotes:nobody/").status_code == 404
