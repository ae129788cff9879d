"""§11 list_threads `q`: a case-insensitive substring of a thread's title or of one of its messages' bodies,
served on PostgreSQL from the trigram indexes of the forum migration text_search_trigram."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.forum.expect import accepted, listing

TRIGRAM_INDEXES = {"message_body_trgm_idx", "thread_title_trgm_idx"}


def test_list_threads_searches_titles_and_bodies(thread_in, as_alice, as_bob, as_mallory):
    titled = as_alice.ask("Where is the flux capacitor?")
    in_body = thread_in("open")
    accepted(as_bob.say("note", "the FLUX is strong here", thread=in_body))
    thread_in("open")
    assert listing(as_mallory, q="flux") == [titled, in_body]


def test_a_thread_matching_in_title_and_bodies_is_listed_once_and_pages_by_cursor(as_alice, as_bob,
                                                                                  as_mallory):
    threads = [as_alice.ask(f"Flux question {n}?") for n in range(3)]
    for thread in threads:
        accepted(as_bob.say("note", "more flux", thread=thread))
    first = as_mallory.get("/api/v1/threads", q="flux", limit=2).json()
    second = as_mallory.get("/api/v1/threads", q="flux", limit=2, cursor=first["cursor"]).json()
    assert [t["id"] for t in first["items"] + second["items"]] == threads


def test_a_two_character_needle_still_matches_though_no_index_can_serve_it(as_alice, as_mallory):
    matching = as_alice.ask("Is Qx a name?")
    as_alice.ask("Something else?")
    assert listing(as_mallory, q="qX") == [matching]


@pytest.mark.parametrize("needle", ["100%", "rate_limit", "0%", "e_l"])
def test_percent_and_underscore_in_q_are_literal_characters_not_wildcards(needle, as_alice, as_mallory):
    literal = as_alice.ask("Is 100% of rate_limit used?")
    as_alice.ask("Is 1000 of rateXlimit used?")
    assert listing(as_mallory, q=needle) == [literal]


@pytest.fixture
def on_postgresql(db):
    if connection.vendor != "postgresql":
        pytest.skip("trigram indexes exist on PostgreSQL only (SQLite has none)")


@pytest.mark.postgres
def test_the_trigram_migration_indexes_title_and_body_with_trigrams_of_their_upper_case(on_postgresql):
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE indexname = ANY(%s)",
                       [list(TRIGRAM_INDEXES)])
        definitions = dict(cursor.fetchall())
    assert set(definitions) == TRIGRAM_INDEXES
    assert "USING gin (upper(body) gin_trgm_ops)" in definitions["message_body_trgm_idx"]
    assert "USING gin (upper((title)::text) gin_trgm_ops)" in definitions["thread_title_trgm_idx"]


def search_plan(agent, needle):
    """PostgreSQL's plan for the query list_threads runs for `q=needle`."""
    with CaptureQueriesContext(connection) as queries:
        listing(agent, q=needle)
    (search,) = [query["sql"] for query in queries if '"forum_message"' in query["sql"]]
    with connection.cursor() as cursor:
        # A table of a few rows is cheapest read whole, so the planner would rightly ignore any index here;
        # with sequential scans priced out, it picks an index exactly when one covers the expression.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {search}")
        return "\n".join(row for (row,) in cursor.fetchall())


@pytest.mark.postgres
def test_list_threads_q_is_answered_from_the_trigram_indexes(on_postgresql, as_alice, as_mallory):
    as_alice.ask("Where is the flux capacitor?")
    plan = search_plan(as_mallory, "capacitor")
    for index in TRIGRAM_INDEXES:
        assert f"Bitmap Index Scan on {index}" in plan, plan


@pytest.mark.postgres
@pytest.mark.parametrize("needle", ["qx", "a b", "%%%"])
def test_a_needle_without_three_letters_or_digits_in_a_row_never_reads_the_trigram_index(
        needle, on_postgresql, as_alice, as_mallory):
    as_alice.ask("Where is the flux capacitor?")
    plan = search_plan(as_mallory, needle)
    assert "trgm_idx" not in plan, plan
