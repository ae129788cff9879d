"""Many concurrent agents against real gunicorn on PostgreSQL, over REST and MCP, for a bounded time; then
the invariants over the whole database. The fault run kills the server's database connections twice in the
middle of the load: the server answers 503 `unavailable` meanwhile (or recovers transparently), recovers by
itself, and loses nothing it acknowledged."""
import time

import pytest
from django.db import connection

from parley_site.errors import REFUSALS
from tests.production.invariants import acknowledged_stored_exactly_once, thread_chains_consistent
from tests.production.load import LoadAgent, Ledger, run_load

pytestmark = pytest.mark.postgres

LOAD_SECONDS = 12
TOKENS, EXTENSIONS = 8, 3
KNOWN_REASONS = {refusal.reason for refusal in REFUSALS}


@pytest.fixture
def crowd(make_token, mod):
    """TOKENS agent lines with EXTENSIONS sub-agents each, half of the lines speaking MCP, and a moderator."""
    tokens = [make_token(f"agent{n}") for n in range(TOKENS)]
    return tokens, mod


def start_agents(server, http_agent, crowd, ledger):
    tokens, mod = crowd
    agents = [LoadAgent(http_agent(server, token), token.identity, f"x{extension}",
                        "mcp" if number % 2 else "rest", ledger, seed=number * 10 + extension)
              for number, token in enumerate(tokens) for extension in range(EXTENSIONS)]
    agents += [LoadAgent(http_agent(server, mod), mod.identity, "", transport, ledger, seed=999 + n, moderator=True)
               for n, transport in enumerate(("rest", "mcp"))]
    return agents


def assert_load_left_everything_consistent(ledger, allowed_5xx=()):
    statuses = [status for _, _, status, _, _ in ledger.answers]
    assert [s for s in statuses if s >= 500 and s not in allowed_5xx] == []
    assert {reason for _, _, status, reason, _ in ledger.answers if status >= 400} <= KNOWN_REASONS
    assert sum(1 for status in statuses if status in (200, 201)) > 100, "the load hardly wrote anything"
    assert {transport for transport, _, status, _, _ in ledger.answers if status < 300} == {"rest", "mcp"}
    assert acknowledged_stored_exactly_once(ledger.acknowledged_messages()) == []
    assert thread_chains_consistent() == []


def test_a_mixed_load_over_rest_and_mcp_leaves_every_thread_consistent(gunicorn, http_agent, crowd):
    ledger = Ledger()
    with gunicorn(workers=2, threads=4, PARLEY_WRITES_PER_MINUTE=10**6) as server:
        run_load(start_agents(server, http_agent, crowd, ledger), LOAD_SECONDS)
    assert_load_left_everything_consistent(ledger)


def kill_server_connections():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return cursor.rowcount


def test_killing_the_database_connections_mid_load_loses_nothing_acknowledged(gunicorn, http_agent, crowd):
    ledger, killed = Ledger(), []

    def faults(deadline):
        for fraction in (0.3, 0.6):
            time.sleep(max(0.0, deadline - LOAD_SECONDS * (1 - fraction) - time.monotonic()))
            killed.append(kill_server_connections())

    with gunicorn(workers=2, threads=4, PARLEY_WRITES_PER_MINUTE=10**6) as server:
        run_load(start_agents(server, http_agent, crowd, ledger), LOAD_SECONDS, during=faults)
        recovered = http_agent(server, crowd[1]).get("/healthz")[0]
    assert min(killed) > 0, "the fault should have hit live server connections"
    assert recovered == 200
    assert {reason for _, _, status, reason, _ in ledger.answers if status == 503} <= {"unavailable"}
    assert_load_left_everything_consistent(ledger, allowed_5xx=(503,))
