"""The reads' plans on PostgreSQL (issue 26): on a freshly migrated database with autovacuum off, once the
forum holds about 10k rows loaded in bulk, the inbox, list_threads, list_events, list_claims and read_thread
walk their ordered index and stop after the page (a Limit over an Index Scan, no Sort of every matching row), the
plans they have at 1M rows (docs/performance.md, "Plans").

Without statistics PostgreSQL takes an equality on an indexed column for a few rows whatever the table
holds, and reads and sorts all of them: the periodic job jobs.statistics.keep_planner_statistics keeps the
statistics current where autovacuum does not. These tests run it as the worker would, after the load."""
import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobs.statistics import analyze_stale_tables, stale_tables

TABLES = ("forum_thread", "forum_message", "forum_stateevent", "dialectic_claim")
THREADS = 10_000


@pytest.fixture
def loaded_forum(transactional_db, alice):
    """A migrated database with autovacuum off for the forum's tables and no statistics on them (as a new
    deployment has: none gathered, or those of the migrations' empty tables), then THREADS threads of three
    messages, one event and one claim each, half of them awaiting an answer from anyone, loaded in bulk SQL."""
    if connection.vendor != "postgresql":
        pytest.skip("the plans of PostgreSQL")
    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = off)")
        cursor.execute(
            "INSERT INTO forum_thread (title, state, state_origin, state_confirmed_at, state_confirmed_by,"
            " creator_identity, creator_extension, created_at, updated_at, message_count, awaiting_act,"
            " awaiting_from, awaiting_by_identity, awaiting_by_extension, awaiting_seq, loop_last, loop_prev,"
            " loop_run)"
            " SELECT 'Question ' || n, CASE WHEN mod(n, 2) = 0 THEN 'open' ELSE 'answered' END, 'llm', now(), '',"
            " 'ainotes:asker' || mod(n, 50), '', now(), now(), 3, CASE WHEN mod(n, 2) = 0 THEN 'answer' ELSE 'decision' END,"
            " CASE WHEN mod(n, 2) = 0 THEN 'anyone' ELSE 'ainotes:asker' || mod(n, 50) END, 'ainotes:asker' || mod(n, 50), '',"
            " n, '', '', 0 FROM generate_series(1, %s) AS n", [THREADS])
        cursor.execute(
            "INSERT INTO forum_message (thread_id, depth, kind, body, author_identity, author_extension,"
            " author_kind, author_label, created_at, redacted_by)"
            " SELECT t.id, 0, 'note', 'message ' || m || ' of ' || t.id, t.creator_identity, '', 'llm', '', now(), ''"
            " FROM forum_thread t, generate_series(1, 3) AS m ORDER BY t.id, m")
        cursor.execute(
            "INSERT INTO forum_stateevent (thread_id, to_state, label, origin, actor, at, confirmed_by, note)"
            " SELECT id, 'open', 'ask', 'llm', creator_identity, now(), '', '' FROM forum_thread ORDER BY id")
        cursor.execute(
            "INSERT INTO dialectic_claim (statement, statement_sha256, asserted_identity, asserted_extension,"
            " state, proofs, created_at, updated_at, message_id, thread_id, quorum_need)"
            " SELECT 'claim of ' || thread_id, encode(sha256(convert_to('claim of ' || thread_id, 'UTF8')), 'hex'),"
            " 'ainotes:asker', '', 'unverified', '[]', now(), now(), min(id), thread_id, 0"
            " FROM forum_message GROUP BY thread_id ORDER BY thread_id")
        cursor.execute("SELECT pg_stat_force_next_flush()")  # the counts the job reads, as after a second
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            for table in TABLES:
                cursor.execute(f"ALTER TABLE {table} RESET (autovacuum_enabled)")


def plan_of(agent, path, table):
    """PostgreSQL's plan (EXPLAIN's JSON tree) of the query on `table` that GET `path` runs."""
    with CaptureQueriesContext(connection) as queries:
        assert agent.get(path).status_code == 200
    # The first such query: the page's own (a claim's prefetched acts and superseded claims follow it).
    sql = [query["sql"] for query in queries if f'FROM "{table}"' in query["sql"]][0]
    # A read outside a transaction carries the statement timeout in its own message
    # (parley_site.statement_timeout); the plan is the statement's after it.
    sql = sql.removeprefix(f"SET LOCAL statement_timeout = {settings.PARLEY_STATEMENT_TIMEOUT_MS}; ")
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}")
        return cursor.fetchone()[0][0]["Plan"]


def outer_scan(node):
    """The scan that gives a join its rows in order: a profile's sight (rooms, §20) joins each row with a
    semi-join probe of what the caller may see, which keeps the outer scan's order and its early stop."""
    while node["Node Type"] == "Nested Loop":
        (node,) = [child for child in node["Plans"] if child.get("Parent Relationship") == "Outer"]
    return node


def nodes(plan):
    yield plan
    for child in plan.get("Plans", ()):
        yield from nodes(child)


@pytest.mark.postgres
def test_the_statistics_job_analyzes_every_table_a_bulk_load_changed(loaded_forum):
    assert set(TABLES) <= set(stale_tables())
    assert set(TABLES) <= set(analyze_stale_tables())
    assert not set(TABLES) & set(stale_tables())


@pytest.mark.postgres
@pytest.mark.parametrize("path,table,indexes", [
    ("/api/v1/inbox", "forum_thread", {"thread_awaiting_idx"}),
    ("/api/v1/inbox?awaiting=decision", "forum_thread", {"thread_awaiting_from_idx"}),
    ("/api/v1/threads", "forum_thread", {"thread_order_idx"}),
    # Half the threads are open: walking the list's order and skipping the others is as good.
    ("/api/v1/threads?state=open", "forum_thread", {"thread_state_idx", "thread_order_idx"}),
    # Sight (rooms, §20) is checked per event as the scan reaches it (forum.access.visible_q), so no plan
    # joins every visible event and sorts it.
    ("/api/v1/events", "forum_stateevent", {"event_order_idx"}),
    ("/api/v1/claims", "dialectic_claim", {"claim_order_idx"}),
    ("/api/v1/threads/{middle}/events", "forum_stateevent", {"event_thread_idx"}),
])
def test_a_page_walks_its_ordered_index_and_stops_after_the_page(path, table, indexes, loaded_forum, as_alice):
    analyze_stale_tables()
    plan = plan_of(as_alice, path.format(middle=middle_thread()), table)
    assert plan["Node Type"] == "Limit", plan
    # Beside the scan: the horizon's subqueries, run once before it (forum.commit_order).
    (scan,) = [outer_scan(child) for child in plan["Plans"] if child.get("Parent Relationship") != "InitPlan"]
    assert (scan["Node Type"], scan["Scan Direction"]) == ("Index Scan", "Forward"), plan
    assert scan["Index Name"] in indexes, plan
    assert not [node for node in nodes(plan) if node["Node Type"] == "Sort"], plan


@pytest.mark.postgres
def test_read_thread_walks_the_threads_message_index_in_order(loaded_forum, as_alice):
    analyze_stale_tables()
    plan = plan_of(as_alice, f"/api/v1/threads/{middle_thread()}", "forum_message")
    scan = outer_scan(plan)
    assert (scan["Node Type"], scan.get("Index Name")) == ("Index Scan", "message_thread_idx"), plan
    assert not [node for node in nodes(plan) if node["Node Type"] == "Sort"], plan


def middle_thread():
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id) + %s FROM forum_thread", [THREADS // 2])
        return f"th_{cursor.fetchone()[0]}"
