"""Which database copy serves a read (parley_site.replicas, Parley v1 §19), decided from each replica's
state as the monitor last saw it; the real standby's tests are tests/production/test_replicas.py."""
import time

import pytest

from parley_site.replicas import PRIMARY, Monitor, ReplicaRouter, ReplicaState, READ_FROM
from tests.test_settings import settings_read


@pytest.fixture
def monitor(settings):
    settings.PARLEY_REPLICA_MAX_LAG_MS = 1000
    watching = Monitor()
    watching._thread = object()  # no polling thread: each test sets what the polls would have found
    watching.samples.extend([(time.monotonic() - 1, 100, 110), (time.monotonic(), 200, 210)])
    watching.states = {"replica0": ReplicaState("replica0")}
    return watching


def polled(monitor, replayed, xmin=50, standby=True):
    monitor._update(monitor.states["replica0"], None if replayed is None else (standby, replayed, xmin),
                    time.monotonic())
    return monitor.states["replica0"]


def test_a_caught_up_replica_serves_a_line_that_never_wrote(monitor):
    assert polled(monitor, 210).name == "ok"
    assert monitor.choose() == "replica0"


def test_a_replica_serves_a_line_only_once_it_has_replayed_the_lines_last_write(monitor):
    polled(monitor, 210, xmin=50)
    assert monitor.choose(need_xid=49) == "replica0"
    assert monitor.choose(need_xid=50) == PRIMARY, "transaction 50 may still be running there"


def test_a_woken_read_goes_to_a_replica_only_when_it_has_replayed_what_the_primary_had_when_the_note_came(monitor):
    polled(monitor, 200)  # written, not yet every insert of the newest sample
    newest = monitor.samples[-1][0]
    assert monitor.choose(woken_at=newest - 1.5) == "replica0"
    assert monitor.choose(woken_at=newest) == PRIMARY
    polled(monitor, 210)
    assert monitor.choose(woken_at=newest) == "replica0"


def test_a_replica_lagging_past_the_bound_is_passed_over_and_taken_back_when_it_catches_up(monitor, settings):
    settings.PARLEY_REPLICA_MAX_LAG_MS = 500
    assert polled(monitor, 150).name == "lagging"  # replayed the older sample only, a second old
    assert monitor.choose() == PRIMARY
    assert polled(monitor, 200).name == "ok"
    assert monitor.choose() == "replica0"


def test_a_replica_down_or_promoted_is_passed_over(monitor):
    assert polled(monitor, None).name == "down"
    assert monitor.choose() == PRIMARY
    assert polled(monitor, 210, standby=False).name == "promoted"
    assert monitor.choose() == PRIMARY


def test_a_replica_a_read_failed_on_is_passed_over_until_the_next_polls(monitor):
    polled(monitor, 210)
    monitor.pass_over("replica0")
    assert monitor.choose() == PRIMARY


def test_only_a_chosen_read_goes_to_a_replica_and_every_write_to_the_primary():
    router = ReplicaRouter()
    assert router.db_for_read(None) == PRIMARY
    token = READ_FROM.set("replica0")
    try:
        assert (router.db_for_read(None), router.db_for_write(None)) == ("replica0", PRIMARY)
    finally:
        READ_FROM.reset(token)
    assert router.allow_migrate("replica0", "forum") is False


def test_replica_urls_become_database_aliases_in_order_with_the_router():
    started = settings_read("DATABASE_URL_REPLICAS", "postgres://a/p, postgres://b/p",
                            "[(a, DATABASES[a]['HOST']) for a in DATABASES if a != 'default'], DATABASE_ROUTERS")
    assert started.returncode != 0 and "DATABASE_URL_REPLICAS names PostgreSQL standbys" in started.stderr, \
        "the demo's SQLite primary has no standbys"


def test_a_note_is_told_a_client_once_every_serving_replica_shows_what_it_announced(monitor):
    newest = monitor.samples[-1][0]
    polled(monitor, 200)
    assert not monitor.all_serving_show(newest)
    polled(monitor, 210)
    assert monitor.all_serving_show(newest)
    polled(monitor, None)  # down: passed over, so no client reads there
    assert monitor.all_serving_show(time.monotonic() + 1)
