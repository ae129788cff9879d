"""Many concurrent agents (tests/production/load.py: 50 tokens × 3 extensions, half of them over MCP, and
moderators) against real gunicorn on PostgreSQL for a bounded time; then the invariants over the whole
database. The fault run, PostgreSQL restarted mid-load, is in test_database_faults.py."""
import pytest

from tests.production.invariants import assert_the_load_left_everything_consistent
from tests.production.load import Ledger, make_crowd, run_load, start_agents

pytestmark = pytest.mark.postgres

LOAD_SECONDS = 12


def test_a_mixed_load_over_rest_and_mcp_leaves_every_thread_consistent(gunicorn, http_agent, make_token):
    ledger = Ledger()
    with gunicorn(workers=2, threads=4, PARLEY_WRITES_PER_MINUTE=10**6) as server:
        run_load(start_agents(server, http_agent, make_crowd(make_token), ledger), LOAD_SECONDS)
    assert_the_load_left_everything_consistent(ledger)
