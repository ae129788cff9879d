"""A read that fails on a replica runs again on the primary at once, and that replica is passed over until the
monitor finds it well (parley_site.replicas, §19); the real standby's tests are test_replicas.py."""
import dj_database_url
import pytest
from django.db import connection, connections
from django.test import override_settings

from bench.server import free_port
from forum.models import Thread
from parley_site import replicas
from parley_site.replicas import MONITOR, PRIMARY, ReplicaRouter, ReplicaState, read_on_copy

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]  # outside a test's transaction


@pytest.fixture
def gone_replica(monkeypatch, django_db_blocker):
    """replica0: a standby nobody listens for any more."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    url = f"postgres://postgres@127.0.0.1:{free_port()}/gone"
    connections.settings["replica0"] = connections.configure_settings(
        {"default": {**dj_database_url.parse(url), "OPTIONS": {"connect_timeout": 1}}})["default"]
    monkeypatch.setattr(replicas, "replica_aliases", lambda: ["replica0"])
    monkeypatch.setattr(MONITOR, "states", {"replica0": ReplicaState("replica0")})
    monkeypatch.setattr(MONITOR, "choose", lambda *args, **kwargs: next(
        (alias for alias, state in MONITOR.states.items() if state.passed_over_until < 0), PRIMARY))
    try:
        with django_db_blocker.unblock(), override_settings(DATABASE_ROUTERS=[ReplicaRouter()]):
            yield
    finally:
        connections["replica0"].close()
        del connections["replica0"]
        del connections.settings["replica0"]


def test_a_read_a_gone_replica_fails_runs_again_on_the_primary_and_the_replica_is_passed_over(gone_replica):
    before = replicas.metrics.READS_SERVED.labels(PRIMARY)._value.get()
    assert read_on_copy(lambda: Thread.objects.count()) == 0
    assert replicas.metrics.READS_SERVED.labels(PRIMARY)._value.get() == before + 1
    assert MONITOR.states["replica0"].passed_over_until > 0, "passed over until the next polls"
