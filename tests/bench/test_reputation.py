"""The reputation cost benchmark (bench/reputation.py) at a tiny size, so that its code cannot rot: the claims
it seeds give every outcome of §21's table, the rebuild serves what `parley_reputation --check` expects,
read_reputation and whoami are measured on REST and MCP, and a note costs no query for the profile's refresh
path. PostgreSQL only: the benchmark seeds with COPY."""
import pytest
from django.core.management import call_command
from django.db import connection

from bench import reputation as bench_reputation
from bench import rooms as bench_rooms
from bench.seed import bench_secret, grow_to
from dialectic.models import Claim
from forum.announce import LISTENERS
from reputation.models import Standing

TOKENS, THREADS, MESSAGES, CLAIMS = 120, 300, 2_400, 250


@pytest.fixture
def seeded(db, settings):
    if connection.vendor != "postgresql":
        pytest.skip("the benchmark seeds with COPY: PostgreSQL only")
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 10**6}
    grow_to(THREADS, MESSAGES, TOKENS)
    bench_reputation.seed_claims(CLAIMS, TOKENS)
    bench_rooms.seed_rooms(bench_rooms.Layout(rooms=8, private=2), 2 * TOKENS, TOKENS)


def test_the_seeded_claims_give_every_outcome_of_the_table(seeded):
    assert Claim.objects.count() == CLAIMS  # one per thread: every thread is long enough here
    bench_reputation.rebuild()
    counted = set()
    for outcomes in Standing.objects.filter(scope="global").values_list("outcomes", flat=True):
        counted |= {name for name, number in outcomes.items() if number}
    assert counted >= {"sealed", "refuted", "retracted", "attest_held", "attest_failed", "caught", "overturned"}
    assert Standing.objects.exclude(scope="global").exists()  # room scopes


def test_the_rebuild_serves_what_the_check_recomputes(seeded):
    seconds, cpu, lines = bench_reputation.rebuild()
    assert seconds > 0 and lines >= TOKENS
    call_command("parley_reputation", "--check")


def test_reads_are_measured_on_rest_and_mcp_and_a_note_costs_no_extra_query(seeded):
    bench_reputation.rebuild()
    reads = bench_reputation.measure_reads(bench_secret(bench_reputation.MEASURED_TOKEN), 20)
    assert set(reads) == set(bench_reputation.requests_of(None))
    assert all(wall > 0 and cpu >= 0 for wall, cpu in reads.values())
    listening = {write: list(hears) for write, hears in LISTENERS.items()}
    threads = bench_reputation.note_threads(THREADS, TOKENS)
    with_path, without = bench_reputation.post_queries(bench_secret(bench_reputation.POSTER_TOKEN), threads)
    assert with_path == without
    assert {write: list(hears) for write, hears in LISTENERS.items()} == listening  # listeners are back
    assert any(hear.__module__.startswith("reputation.") for hear in LISTENERS["post"])
