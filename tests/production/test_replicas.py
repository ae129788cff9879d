"""Reads from a streaming replica (Parley v1 §19, parley_site/replicas.py), on a real hot standby: the test's
own primary cluster, a standby cloned from it with `pg_basebackup -R` on loopback, and app servers (the
production command) reading from it. The standby holds back each commit's replay on purpose
(`recovery_min_apply_delay`), so that it lags by seconds while the tests check what must still hold: a line
reads its own writes through any app server, a woken follower sees what woke it, a replica lagging past the
bound or down is passed over within a second and taken back when it catches up, a token's revocation,
expiry and rotation bite at once. Once through PgBouncer in transaction mode too. PostgreSQL's server
binaries only; the suite's own database is not used."""
import http.client
import re
import threading
import time
from contextlib import ExitStack, contextmanager
from datetime import timedelta

import psycopg
import pytest
from django.db import transaction
from django.utils import timezone

from bench.cluster import PgBouncer, postgres_os_user
from bench.server import GunicornServer, HttpAgent
from forum.actors import Actor
from forum.tokens import token_create, token_revoke, token_rotate, token_update
from tests.production.conftest import needed_binary
from tests.production.private_cluster import ALIAS, Standby

pytestmark = [pytest.mark.postgres, pytest.mark.long]

OPERATOR = Actor.for_operator("tests")
LAG = 3.0  # seconds the standby holds back each commit


def token_with_secret(handle, rights=("read", "write")):
    token, secret = token_create(OPERATOR, handle, set(rights))
    token.secret = secret
    return token


@pytest.fixture
def standby(private_cluster):
    with Standby(private_cluster) as copy:
        yield copy


@pytest.fixture
def app_servers(private_cluster, standby):
    """`with app_servers(2, pooled=False, **environment) as servers:` that many app servers reading from the
    standby; pooled: PgBouncer in transaction mode in front of the primary and of the standby alike."""
    @contextmanager
    def start(count=2, pooled=False, **environment):
        with ExitStack() as stack:
            primary, replica, direct = private_cluster.url, standby.url, {}
            if pooled:
                os_user = postgres_os_user()
                bouncer = needed_binary("pgbouncer")
                primary = stack.enter_context(PgBouncer(private_cluster.url, os_user, binary=bouncer)).url(primary)
                replica = stack.enter_context(PgBouncer(standby.url, os_user, binary=bouncer)).url(replica)
                direct = {"DATABASE_URL_DIRECT": private_cluster.url}
            settings = {"DATABASE_URL_REPLICAS": replica, "PARLEY_METRICS_ALLOW": "127.0.0.1",
                        "PARLEY_WRITES_PER_MINUTE": 10**6, **direct, **environment}
            servers = [stack.enter_context(GunicornServer(primary, workers=1, **settings)) for _ in range(count)]
            for server in servers:
                replica_state_becomes(server, "ok")
            yield servers
    return start


def healthz_replica(agent):
    status, body, _ = agent.get("/healthz")
    assert status == 200, body
    return body["checks"]["replicas"]["replica0"]["state"]


def replica_state_becomes(server, state, within=10.0):
    """Seconds until the server's /healthz says the replica is `state`; fails after `within`."""
    probe, started = HttpAgent(server, None), time.monotonic()
    try:
        while time.monotonic() < started + within:
            if healthz_replica(probe) == state:
                return time.monotonic() - started
            time.sleep(0.05)
    finally:
        probe.close()
    raise AssertionError(f"the replica did not become {state} within {within}s")


def reads_served(server):
    """{copy: reads it served} as the server's /metrics counts them."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("GET", "/metrics")
        text = connection.getresponse().read().decode()
    finally:
        connection.close()
    return {copy: float(value) for copy, value in
            re.findall(r'^parley_reads_served_total\{copy="([^"]+)"\} (\S+)$', text, re.MULTILINE)}


def thread_ids(agent):
    status, page, _ = agent.get("/api/v1/threads?limit=200")
    assert status == 200, page
    return [thread["id"] for thread in page["items"]]


def test_a_line_reads_its_own_writes_through_any_app_server_while_the_replica_lags(
        private_cluster, standby, app_servers, http_agent):
    alice, bob = token_with_secret("alice"), token_with_secret("bob")
    standby.delay(LAG)
    with app_servers(2, PARLEY_REPLICA_MAX_LAG_MS=60000) as (one, other):
        status, asked, _ = http_agent(one, alice).post({"kind": "ask", "body": "Seen by its asker at once?"})
        assert status == 201, asked
        thread = asked["thread"]["id"]
        on_other, bystander = http_agent(other, alice), http_agent(other, bob)
        before = reads_served(other)
        assert on_other.get(f"/api/v1/threads/{thread}")[0] == 200
        assert thread in thread_ids(on_other)
        assert thread not in thread_ids(bystander), "the replica should lag: bob has not written, so it serves him"
        after = reads_served(other)
        assert after.get("default", 0) - before.get("default", 0) == 2, "alice's reads go to the primary"
        assert after.get("replica0", 0) - before.get("replica0", 0) == 1, "bob's read goes to the replica"

        time.sleep(LAG + 1)  # the standby has replayed alice's write, and the monitor has seen it
        before = reads_served(other)
        assert thread in thread_ids(on_other) and thread in thread_ids(bystander)
        assert reads_served(other).get("replica0", 0) - before.get("replica0", 0) == 2, "both back on the replica"


def test_a_line_reads_its_own_writes_behind_pgbouncer_in_transaction_mode(
        private_cluster, standby, app_servers, http_agent):
    alice = token_with_secret("alice")
    standby.delay(LAG)
    with app_servers(2, pooled=True, PARLEY_REPLICA_MAX_LAG_MS=60000) as (one, other):
        for number in range(3):
            status, asked, _ = http_agent(one, alice).post({"kind": "ask", "body": f"Pooled question {number}"})
            assert status == 201, asked
            assert asked["thread"]["id"] in thread_ids(http_agent(other, alice))


def test_a_follower_woken_by_a_note_sees_what_woke_it(private_cluster, standby, app_servers, http_agent):
    alice, bob = token_with_secret("alice"), token_with_secret("bob")
    standby.delay(LAG)
    with app_servers(2, PARLEY_REPLICA_MAX_LAG_MS=60000) as (one, other):
        status, page, _ = http_agent(other, bob).get("/api/v1/inbox")
        held = {}

        def wait():
            started = time.monotonic()
            held["answer"] = http_agent(other, bob).get(f"/api/v1/inbox?wait=20&cursor={page['cursor']}")
            held["seconds"] = time.monotonic() - started
        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(1)  # bob's call holds
        status, asked, _ = http_agent(one, alice).post({"kind": "ask", "body": "Wakes bob, on the other server"})
        waiter.join(25)
    assert status == 201
    status, woken, _ = held["answer"]
    assert status == 200 and [item["id"] for item in woken["items"]] == [asked["thread"]["id"]]
    assert held["seconds"] < LAG, "the woken read should not have waited for the lagging replica"


def test_a_lagging_or_down_replica_is_passed_over_within_a_second_and_taken_back(
        private_cluster, standby, app_servers, http_agent):
    alice, bob = token_with_secret("alice"), token_with_secret("bob")
    with app_servers(1, PARLEY_REPLICA_MAX_LAG_MS=500) as (server,):
        standby.delay(LAG)
        status, asked, _ = http_agent(server, alice).post({"kind": "ask", "body": "Makes the replica lag"})
        assert status == 201
        written = time.monotonic()
        lagging_after = replica_state_becomes(server, "lagging", within=3)
        assert time.monotonic() - written < 0.5 + 1.0, "passed over within a second of lagging past the bound"
        assert asked["thread"]["id"] in thread_ids(http_agent(server, bob)), "served by the primary meanwhile"
        assert replica_state_becomes(server, "ok", within=LAG + 3) > 0
        before = reads_served(server)
        thread_ids(http_agent(server, bob))
        assert reads_served(server).get("replica0", 0) > before.get("replica0", 0), "taken back"
        metrics = http_agent(server, None).request("GET", "/metrics")
        assert metrics[0] == 200

        standby.delay(0)
        standby.stop()
        stopped = time.monotonic()
        replica_state_becomes(server, "down", within=2)
        assert time.monotonic() - stopped < 1.0 + 0.5
        assert asked["thread"]["id"] in thread_ids(http_agent(server, bob)), "reads go on, on the primary"
        standby.start()
        replica_state_becomes(server, "ok", within=15)
    assert lagging_after < 3


def test_revocation_expiry_and_rotation_of_a_token_take_effect_at_once_while_the_replica_lags(
        private_cluster, standby, app_servers, http_agent):
    revoked, expiring, rotated = (token_with_secret(name) for name in ("revoked", "expiring", "rotated"))
    with app_servers(1, PARLEY_REPLICA_MAX_LAG_MS=60000) as (server,):
        for token in (revoked, expiring, rotated):
            assert http_agent(server, token).get("/api/v1/whoami")[0] == 200
        standby.delay(LAG)
        with transaction.atomic(using=ALIAS):  # the services lock the token row there
            token_revoke(OPERATOR, revoked.pk)
            token_update(OPERATOR, expiring.pk, {"read"}, "", expires_at=timezone.now() - timedelta(seconds=1))
            new_secret = token_rotate(OPERATOR, rotated.pk).secret
        answers = [http_agent(server, token).get("/api/v1/whoami") for token in (revoked, expiring, rotated)]
        assert [(status, body["error"]["reason"]) for status, body, _ in answers] == [(401, "token_invalid")] * 3
        status, me, _ = http_agent(server, new_secret).get("/api/v1/whoami")
        assert (status, me["identity"]) == (200, rotated.identity), "the new secret works before the replica has it"


def test_a_promoted_standby_serves_the_forum_with_everything_it_replayed_and_old_cursors_keep_working(
        private_cluster, standby, http_agent):
    """docs/operations.md, "Losing the primary": promote the standby, point Parley at it."""
    alice, bob = token_with_secret("alice"), token_with_secret("bob")
    with GunicornServer(private_cluster.url, workers=1, PARLEY_WRITES_PER_MINUTE=10**6) as server:
        asked = [http_agent(server, alice).post({"kind": "ask", "body": f"Before the loss {n}"})[1]
                 for n in range(5)]
        status, events, _ = http_agent(server, bob).get("/api/v1/events?limit=3")
        inbox_cursor = http_agent(server, bob).get("/api/v1/inbox?limit=2")[1]["cursor"]
        with psycopg.connect(private_cluster.url, autocommit=True) as primary:
            last = primary.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
    replayed_up_to(standby, last)
    private_cluster.stop()  # the primary is lost
    standby.promote()
    with GunicornServer(standby.url, workers=1) as promoted:
        reader = http_agent(promoted, bob)
        assert {thread["id"] for thread in reader.get("/api/v1/threads?limit=200")[1]["items"]} == \
            {answer["thread"]["id"] for answer in asked}, "everything acknowledged before the last replayed commit"
        status, new, _ = http_agent(promoted, alice).post({"kind": "ask", "body": "Asked after the promotion"})
        assert status == 201, new
        rest = reader.get(f"/api/v1/events?limit=200&cursor={events['cursor']}")[1]["items"]
        inbox = reader.get(f"/api/v1/inbox?limit=200&cursor={inbox_cursor}")[1]["items"]
    assert [event["thread"] for event in rest] == [answer["thread"]["id"] for answer in asked[3:]] + [
        new["thread"]["id"]], "the old events cursor continues with nothing missed or repeated"
    assert [thread["id"] for thread in inbox] == [answer["thread"]["id"] for answer in asked[2:]] + [
        new["thread"]["id"]]


def replayed_up_to(standby, position, within=15):
    with psycopg.connect(standby.url, autocommit=True) as copy:
        deadline = time.monotonic() + within
        while copy.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [position]).fetchone()[0] is not True:
            assert time.monotonic() < deadline, "the standby did not catch up"
            time.sleep(0.1)
