"""How the record is served (§21): the manifest publishes the policy and every number; `standing` is one
query; a record time changed is stored again by the periodic job; the input `proposals` counts a line's
confirmed and dismissed proposals only when the operator turns it on."""
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from reputation.models import Standing
from reputation.selectors import standing
from reputation.settings import parameters
from reputation.tasks import refresh_due
from tests.reputation.conftest import assert_claim, claim_act, refresh_jobs, sealed_claim


def test_the_manifest_publishes_the_policy_and_every_parameter(client, db):
    section = client.get("/.well-known/parley.json").json()["profiles"]["reputation"]
    assert section["policy"] == "parley.record.v1" and section["normative"] is False
    assert section["inputs"] == ["claims"] and section["uses"] == ["queue_annotation"]
    assert section["parameters"] == {
        "hold_days": 14, "half_life_days": 180, "window_days": 730, "success_per_day_max": 10, "z": 1.645,
        "new_line_days": 7, "min_outcomes": 5, "established_score": 0.6,
        "writes_per_minute": {"new": 12, "probation": 30}}
    assert set(section["readable_by"]) == {"self", "lock", "human", "room_moderator"}


def test_the_manifest_follows_the_operators_settings(client, db, settings):
    settings.PARLEY_REPUTATION = {**settings.PARLEY_REPUTATION, "proposals": True, "rate_limits": True,
                                  "hold_days": 3}
    section = client.get("/.well-known/parley.json").json()["profiles"]["reputation"]
    assert section["inputs"] == ["claims", "proposals"] and section["uses"] == ["queue_annotation", "rate_limit"]
    assert section["parameters"]["hold_days"] == 3 and parameters().hold_days == 3


def test_standing_is_one_query(as_alice, as_bob, as_vera, run_refreshes, django_assert_num_queries):
    sealed_claim(as_alice, as_bob, as_vera)
    run_refreshes()
    with django_assert_num_queries(1):
        row = standing(as_alice.identity)
    assert (row.score, row.tier) == (0.269831, "new") and row.alpha == 2.0  # 1 / (1 + z²) for one success
    with django_assert_num_queries(1):
        assert standing(as_alice.identity, "rm_99") is None


def test_the_periodic_job_stores_again_the_records_time_changed(as_alice, as_bob, run_refreshes):
    thread = as_alice.ask("Is it so?")
    claim = assert_claim(as_alice, thread)
    claim_act(as_bob, "refute", claim, thread)
    run_refreshes()
    row = Standing.objects.get(identity=as_alice.identity, scope="global")
    # The next change by time alone: the line leaves `new` after 7 days, before the hold's 14 end.
    assert row.outcomes == {} and row.changes_at > timezone.now() + timedelta(days=6)
    assert "reputation.tasks.refresh_due" in settings.PARLEY_PERIODIC_TASKS
    Standing.objects.filter(pk=row.pk).update(changes_at=timezone.now() - timedelta(seconds=1))
    refresh_due.call()
    assert Standing.objects.get(pk=row.pk).changes_at > timezone.now()  # recomputed: still waiting for its hold


def test_proposals_count_only_once_the_operator_turns_the_input_on(as_alice, as_mod, settings, run_refreshes):
    thread = as_alice.ask("Done?")
    as_mod.say("answer", "Yes.", thread=thread)
    as_alice.say("decide", "Done.", thread=thread)  # a proposal: alice holds no lock
    assert as_mod.post("/api/v1/threads/{}/confirm".format(thread)).status_code == 200
    assert refresh_jobs().count() == 0  # the input is off: a confirm queues nothing
    settings.PARLEY_REPUTATION = {**settings.PARLEY_REPUTATION, "proposals": True}
    other = as_alice.ask("Done too?")
    as_mod.say("answer", "No.", thread=other)
    as_alice.say("decide", "Done.", thread=other)
    assert as_mod.post("/api/v1/threads/{}/dismiss".format(other), {"reason": "Not yet."}).status_code == 200
    run_refreshes()
    answer = as_alice.get("/api/v1/reputation/me").json()["global"]
    assert answer["outcomes"] == {"confirmed": 1, "dismissed": 1}
