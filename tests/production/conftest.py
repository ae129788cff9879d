import functools

import pytest
from django.core.management import call_command
from django.db import connection

from bench.server import GunicornServer, HttpAgent, database_url
from tests.production.private_cluster import (ALIAS, PrivateCluster, every_query_on, postgres_os_user,
                                              postgresql_binaries)


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


@pytest.fixture
def private_cluster(django_db_blocker):
    """A migrated PostgreSQL cluster of the test's own, which it may stop and start, with every ORM query of
    the test routed to it. Needs PostgreSQL's server binaries, not the suite's database."""
    binaries, os_user = postgresql_binaries(), postgres_os_user()
    if binaries is None:
        pytest.skip("needs PostgreSQL's server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql")
    if os_user is None:
        pytest.skip("PostgreSQL refuses to run as root, and there is no `postgres` user and runuser to run it as")
    with PrivateCluster(binaries, os_user) as cluster, django_db_blocker.unblock(), every_query_on(cluster.url):
        call_command("migrate", database=ALIAS, verbosity=0)
        yield cluster
