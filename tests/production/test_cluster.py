"""Parley on more than one app server: two production servers (gunicorn -c gunicorn.conf.py, each its own
processes, port and database connections) behind HAProxy, directly on PostgreSQL or through PgBouncer in
transaction pooling mode. Nothing is shared between the servers but the database (docs/deploy.md §6-7), so
a waiter on one is woken by a write on the other, one rate limit counts the writes of both, a cursor taken
on one continues on the other, and the production load through the balancer loses and doubles nothing."""
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import psycopg
import pytest

from forum.models import StateEvent, Thread
from tests.production.invariants import assert_the_load_left_everything_consistent
from tests.production.load import Ledger, make_crowd, run_load, start_agents

pytestmark = pytest.mark.postgres

DATABASE_PATHS = pytest.mark.parametrize("pooled", [False, True], ids=["direct", "pgbouncer"])
LOAD_SECONDS = 12


def get(agent, path, **query):
    status, body, headers = agent.request("GET", f"{path}?{urlencode(query)}" if query else path)
    assert status == 200, body
    return body, headers


def say(agent, kind, body, **fields):
    status, answer, headers = agent.post({"kind": kind, "body": body, **fields})
    assert status == 201, answer
    return answer, headers


def held_wait(pool, agent, cursor):
    """GET inbox?wait=20 from `cursor` on a pool thread: a future of (page, time.monotonic() it answered)."""
    return pool.submit(lambda: (get(agent, "/api/v1/inbox", wait=20, since=cursor)[0], time.monotonic()))


@DATABASE_PATHS
def test_a_waiter_on_one_server_is_woken_by_a_write_on_the_other(app_cluster, http_agent, alice, bob, pooled):
    with app_cluster(pooled=pooled) as cluster:
        first, second = cluster.servers
        waiter, writer = http_agent(first, bob), http_agent(second, alice)
        with ThreadPoolExecutor(1) as pool:
            waiting = held_wait(pool, waiter, get(waiter, "/api/v1/inbox")[0]["cursor"])
            time.sleep(1)  # the waiter is held on the first server
            posted = time.monotonic()
            thread = say(writer, "ask", "Which server hears this?")[0]["thread"]["id"]
            page, woken = waiting.result(timeout=40)
    assert [item["id"] for item in page["items"]] == [thread]
    assert woken - posted < 5, "woken by the note, not by the end of the wait"


@DATABASE_PATHS
def test_one_rate_limit_counts_the_writes_of_both_servers(app_cluster, http_agent, alice, pooled):
    with app_cluster(pooled=pooled) as cluster:
        agents = [http_agent(cluster.balancer, alice) for _ in range(8)]
        with ThreadPoolExecutor(len(agents)) as pool:  # 10 asks per connection, one after the other
            posted = pool.map(lambda n: [agents[n].post({"kind": "ask", "body": f"question {n}.{m}"})
                                         for m in range(10)], range(len(agents)))
            answers = [answer for answers in posted for answer in answers]
    outcomes = sorted((status, (body.get("error") or {}).get("reason")) for status, body, _ in answers)
    assert outcomes == [(201, None)] * 60 + [(429, "rate_limited")] * 20
    assert {headers["X-Served-By"] for status, _, headers in answers if status == 201} == {"app0", "app1"}
    assert Thread.objects.filter(creator_identity=alice.identity).count() == 60


@DATABASE_PATHS
def test_a_cursor_taken_on_one_server_continues_on_the_other(app_cluster, http_agent, alice, bob, pooled):
    with app_cluster(pooled=pooled) as cluster:
        readers = [http_agent(server, bob) for server in cluster.servers]
        writer = http_agent(cluster.balancer, alice)
        for n in range(5):
            say(writer, "ask", f"question {n}")
        seen, cursor = [], None
        for page_number in range(4):  # pages of 2 from alternating servers: 5 events, then an empty page
            page = get(readers[page_number % 2], "/api/v1/events", limit=2, **({"cursor": cursor} if cursor else {}))[0]
            seen += [event["id"] for event in page["items"]]
            cursor = page["cursor"]
        later = say(writer, "ask", "after the cursor")[0]["thread"]["id"]
        continued = get(readers[0], "/api/v1/events", cursor=cursor)[0]["items"]
    assert seen == [f"ev_{pk}" for pk in StateEvent.objects.order_by("id").values_list("id", flat=True)][:5]
    assert [(event["thread"], event["label"]) for event in continued] == [(later, "ask")]


def test_through_pgbouncer_requests_are_pooled_and_the_feeds_session_connects_directly(
        app_cluster, http_agent, alice, bob):
    with app_cluster(pooled=True) as cluster:
        waiter = http_agent(cluster.servers[0], bob)
        with ThreadPoolExecutor(1) as pool:
            waiting = held_wait(pool, waiter, get(waiter, "/api/v1/inbox")[0]["cursor"])
            time.sleep(1)
            say(http_agent(cluster.servers[1], alice), "ask", "Pooled?")
            waiting.result(timeout=40)
        database_name = cluster.database.rsplit("/", 1)[1]
        pooled = [row for row in cluster.bouncer.admin("SHOW STATS") if row["database"] == database_name]
        pooler_clients = {row["application_name"] for row in cluster.bouncer.admin("SHOW CLIENTS")}
        with psycopg.connect(cluster.database, autocommit=True) as primary:
            listening = primary.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                        " AND application_name = 'parley-feed' AND query LIKE 'LISTEN %'").fetchone()[0]
    assert pooled and pooled[0]["total_xact_count"] > 0, "the requests' transactions should pass through PgBouncer"
    assert "parley-feed" not in pooler_clients
    assert listening >= 1, "the feed's listener should hold its own session on the primary"


@pytest.mark.long
@DATABASE_PATHS
def test_the_production_load_through_the_balancer_leaves_everything_consistent(app_cluster, http_agent, make_token,
                                                                               pooled):
    ledger = Ledger()
    with app_cluster(pooled=pooled, workers=2, PARLEY_WRITES_PER_MINUTE=10**6) as cluster:
        run_load(start_agents(cluster.balancer, http_agent, make_crowd(make_token), ledger), LOAD_SECONDS)
        served = [{entry["path"] for entry in server.log_entries() if entry.get("status") in (200, 201)}
                  for server in cluster.servers]
    assert all({"/api/v1/messages", "/mcp"} <= paths for paths in served), "both servers should serve both doors"
    # On an overloaded machine a hot thread's row lock may be waited on past the statement timeout: the
    # server answers 503 `unavailable` and the agent retries with its key. A 503 of the balancer's own (it
    # took every server out) would carry no §13 body.
    assert {a.reason for a in ledger.answers if a.status == 503} <= {"unavailable"}
    assert_the_load_left_everything_consistent(ledger, allowed_5xx=(503,))
