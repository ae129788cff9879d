import functools
import shutil
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from bench.cluster import HAProxy, PgBouncer, postgres_os_user
from bench.server import GunicornServer, HttpAgent, database_url
from tests.production.private_cluster import ALIAS, PrivateCluster, every_query_on, postgresql_binaries

# The load runs' invariant checks live in a helper module: rewritten, a failure there shows its values.
pytest.register_assert_rewrite("tests.production.invariants")


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
def private_cluster(transactional_db, django_db_blocker):
    """A migrated PostgreSQL cluster of the test's own, which it may stop and start, with every ORM query of
    the test routed to it. Needs PostgreSQL's server binaries, not the suite's database; but a service's
    transaction.atomic() still begins on the suite's database (committed, as outside tests)."""
    binaries, os_user = postgresql_binaries(), postgres_os_user()
    if binaries is None:
        pytest.skip("needs PostgreSQL's server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql")
    if os_user is None:
        pytest.skip("PostgreSQL refuses to run as root, and there is no `postgres` user and runuser to run it as")
    with PrivateCluster(binaries, os_user) as cluster, django_db_blocker.unblock(), every_query_on(cluster.url):
        call_command("migrate", database=ALIAS, verbosity=0)
        yield cluster


@dataclass
class Cluster:
    balancer: HAProxy
    servers: list  # GunicornServer, one per app server
    bouncer: PgBouncer | None
    database: str  # the direct URL of the database they serve


def needed_binary(name):
    path = shutil.which(name) or shutil.which(f"/usr/sbin/{name}")
    if path is None:
        pytest.skip(f"needs Debian's {name} (.ci/run installs it): not found on PATH or in /usr/sbin")
    return path


@pytest.fixture
def app_cluster(on_postgresql):
    """`with app_cluster(servers=2, pooled=False, workers=1, **environment) as cluster:` that many app
    servers (the production command, each its own processes, port and connections) on the test database,
    HAProxy in front of them, and with `pooled` PgBouncer in transaction mode between them and PostgreSQL,
    the feed's session connecting directly (DATABASE_URL_DIRECT)."""
    haproxy = needed_binary("haproxy")

    @contextmanager
    def start(servers=2, pooled=False, workers=1, **environment):
        direct = database_url(connection.settings_dict)
        with ExitStack() as stack:
            bouncer, url = None, direct
            if pooled:
                os_user = postgres_os_user()
                if os_user is None:
                    pytest.skip("PgBouncer refuses to run as root, and there is no `postgres` user to run it as")
                bouncer = stack.enter_context(PgBouncer(direct, os_user, binary=needed_binary("pgbouncer")))
                url, environment = bouncer.url(direct), {"DATABASE_URL_DIRECT": direct, **environment}
            apps = [stack.enter_context(GunicornServer(url, workers=workers, **environment))
                    for _ in range(servers)]
            yield Cluster(stack.enter_context(HAProxy(apps, binary=haproxy)), apps, bouncer, direct)

    return start


@pytest.fixture
def scratch_database(on_postgresql):
    """The URL of a fresh, empty database beside the test database on the same server (dropped afterwards),
    for what needs a database of its own: a restore, migrations run back to zero."""
    direct = database_url(connection.settings_dict)
    name = f"{connection.settings_dict['NAME']}_scratch"
    with psycopg.connect(direct.rsplit("/", 1)[0] + "/postgres", autocommit=True) as maintenance:
        maintenance.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        maintenance.execute(f'CREATE DATABASE "{name}"')
        try:
            yield direct.rsplit("/", 1)[0] + f"/{name}"
        finally:
            maintenance.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
