"""Which tests a lane of CI runs. The SQLite lane runs every test; the PostgreSQL lane
(`--database-tests-only`) runs those that use the suite's test database, since a test that never touches it
checks the same thing on either database. Whether a test uses it is read from what it asks for (pytest-django
refuses every query of a test that asks for none of these), and checked while it runs: a test counted as
database-free that reaches the database anyway fails, so the split cannot drop a database test silently."""
import pytest
from django.db import connections

DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_reset_sequences",
                               "django_db_serialized_rollback", "live_server"})


# The files whose tests take longest (servers, subprocesses, browsers, clusters), longest first, as
# `--durations` shows them.
LONGEST_FILES = (
    "tests/test_readme.py", "tests/mcp_bridge/test_inspector.py", "tests/mcp_bridge/test_sdk.py",
    "tests/production/test_schemathesis.py", "tests/production/test_database_faults.py",
    "tests/webhooks/test_worker.py", "tests/forum/test_erasure.py", "tests/production/test_envelope_properties.py",
    "tests/bench/test_attestations.py", "tests/bench/test_floor.py", "tests/mcp_bridge/test_agents_demo.py",
    "tests/production/test_deploy.py", "tests/test_protocol_doc.py", "tests/console/test_live.py",
    "tests/production/test_make_run.py",
)


def started_first(item):
    """The longest files first, so that no test worker is left running one alone at the end; the others
    after them, in their order. A file missing from the list only costs time."""
    path = item.nodeid.split("::")[0]
    return LONGEST_FILES.index(path) if path in LONGEST_FILES else len(LONGEST_FILES)


def pytest_addoption(parser):
    parser.addoption("--database-tests-only", action="store_true",
                     help="run only the tests that use the suite's database (CI's PostgreSQL lane)")


def uses_the_database(item):
    return item.get_closest_marker("django_db") is not None or not DATABASE_FIXTURES.isdisjoint(item.fixturenames)


def pytest_collection_modifyitems(config, items):
    if config.getoption("--database-tests-only"):
        config.hook.pytest_deselected(items=[item for item in items if not uses_the_database(item)])
        items[:] = [item for item in items if uses_the_database(item)]
    items.sort(key=started_first)  # stable: each file keeps its order


@pytest.fixture(autouse=True)
def _database_free_tests_stay_free(request):
    """A test that asks for no database fixture must not query the suite's database after all: not through
    a fixture requested while it runs (request.getfixturevalue), nor through an unblocked connection."""
    if uses_the_database(request.node):
        yield
        return
    queries = []

    def record(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with connections["default"].execute_wrapper(record):
        yield
    requested = sorted(DATABASE_FIXTURES.intersection(request.fixturenames))
    assert not requested and not queries, (
        f"{request.node.nodeid} uses the suite's database ({requested or queries[0]}) without asking for it "
        "by name: name `db` (or `transactional_db`) among its arguments, so that the PostgreSQL lane runs it")
