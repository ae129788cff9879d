import functools

import pytest
from django.db import connection

from bench.server import GunicornServer, HttpAgent, database_url


@pytest.fixture
def on_postgresql(transactional_db):
    """Real servers need a database other processes can see: PostgreSQL, with committed test data."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: a real server cannot see SQLite's in-transaction test data")


@pytest.fixture
def gunicorn(on_postgresql):
    """Start gunicorn on the test database: `with gunicorn(workers=2, PARLEY_WRITES_PER_MINUTE=...) as server:`.
    With `transactional_db` the test's data is committed, so the server's workers see it and vice versa."""
    return functools.partial(GunicornServer, database_url(connection.settings_dict))


@pytest.fixture
def http_agent():
    agents = []

    def make(server, token):
        agents.append(HttpAgent(server, token))
        return agents[-1]

    yield make
    for agent in agents:
        agent.close()
