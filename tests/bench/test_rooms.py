"""The rooms cost benchmark (bench/rooms.py) at a tiny size, so that its code cannot rot: it spreads a seeded
forum over rooms as it says, measures every operation both ways, and the profile adds no query to the reads
it measures (one to a `room=` list, the room's lookup, and to a post, its room's). PostgreSQL only: the
benchmark seeds with COPY."""
import pytest
from django.db import connection

from bench import rooms as bench_rooms
from bench.seed import bench_secret, grow_to
from forum.actors import Actor
from forum.access import visible_threads
from forum.models import Thread, Token
from forum.profiles import PROFILES
from rooms.models import Membership, Room

TOKENS, THREADS, MESSAGES = 80, 200, 1_000
LAYOUT = bench_rooms.Layout(rooms=6, private=2)


@pytest.fixture
def spread(db, settings):
    if connection.vendor != "postgresql":
        pytest.skip("the benchmark seeds with COPY: PostgreSQL only")
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 10**6}
    grow_to(THREADS, MESSAGES, TOKENS)
    bench_rooms.seed_rooms(LAYOUT, 120, TOKENS)


def test_the_forum_is_spread_over_rooms_as_the_benchmark_says(spread):
    assert Room.objects.count() == LAYOUT.rooms
    assert set(Room.objects.filter(visibility="private").values_list("pk", flat=True)) == {2, 3}
    assert Thread.objects.get(pk=1).room_number == 2  # the long thread, in a private room
    assert Membership.objects.count() == 120
    measuring = Actor.for_token(Token.objects.get(handle=f"bench{bench_rooms.MEASURING_TOKEN}"))
    outsider = Actor.for_token(Token.objects.get(handle=f"bench{TOKENS - 1}"))
    in_private = Thread.objects.filter(room_number__in=[2, 3]).count()
    assert visible_threads(measuring).count() == THREADS  # a member of both private rooms
    assert visible_threads(outsider).count() == THREADS - in_private + outsider_sees_private(outsider)


def outsider_sees_private(actor):
    rooms = set(Membership.objects.filter(identity=actor.identity, room__visibility="private")
                .values_list("room_id", flat=True))
    return Thread.objects.filter(room_number__in=rooms).count()


def test_every_operation_is_measured_both_ways_with_todays_query_counts(spread):
    results = bench_rooms.measure(LAYOUT, THREADS, 2, [bench_secret(number) for number in range(TOKENS)])
    assert set(results) == set(bench_rooms.operations(LAYOUT, THREADS, TOKENS))
    for name, (with_rooms, without, queries_with, queries_without) in results.items():
        assert with_rooms > 0 and without > 0
        extra = 1 if "room=" in name or name.startswith("post") else 0
        assert queries_with <= queries_without + extra, name
    assert "rooms" in PROFILES  # the hooks are back after every measurement
    report = bench_rooms.report(results, 2)
    assert report.count("\n| ") == len(results)  # a row per operation under the header
