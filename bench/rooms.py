"""What the rooms profile costs (Parley v1 §20, docs/performance.md "Rooms"):
`python -m bench.rooms [--reuse] [--messages 1000000 --threads 100000] [--rooms 500 --private 50
--memberships 10000] [--requests 200]` (PostgreSQL only).

1. Seeds the benchmark's forum as bench/run.py does (or keeps it with --reuse), then spreads it over rooms:
   rm_1 (the default room) and rm_2.. up to --rooms rooms, the first --private of the new ones private (a fifth
   of those `history: joined`), thread n in room (n mod rooms) + 1, so th_1 (the 200-message thread) is in a
   private room; and --memberships memberships, among them the measuring line's (bench/seed.py's token 1) in
   MEASURED_PRIVATE private and MEASURED_PUBLIC public rooms.
2. Measures each operation in this process through the full request stack (Django's test client, as
   bench/queries.py counts queries), alternating request by request between the profile's hooks in place and
   taken out of forum.profiles.PROFILES: the same process, data, caller and load, so the ratio is the
   profile's cost. With the hooks out the line sees every thread and its inbox takes every question to
   `anyone` (a forum without rooms); with them in it is a line that needs sight, a member of some private
   rooms. `list_threads room=` has no counterpart without the profile: it is compared with the plain
   `list_threads` without it.
It prints p50 per operation each way, the ratio (target <= 1.1) and the queries each way. Not a test
(tests/bench/test_rooms.py runs it at a tiny size so that it cannot rot)."""
import argparse
import os
import statistics
import time
from dataclasses import dataclass
from datetime import timedelta

RATIO_TARGET = 1.1
MEASURING_TOKEN = 1  # the line measured: bench/seed.py's token 1 (ainotes:bench1)
MEASURED_PRIVATE, MEASURED_PUBLIC = 5, 20  # rooms the measuring line is a member of
POSTING_TOKENS = 16  # posts rotate over these tokens (all members where the measuring line is)


@dataclass(frozen=True)
class Layout:
    rooms: int  # rooms in all, the default room included
    private: int

    def private_numbers(self):
        return range(2, 2 + self.private)

    def public_numbers(self):
        return range(2 + self.private, self.rooms + 1)

    def room_of(self, thread_number):
        return thread_number % self.rooms + 1


def arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/parley_bench_rooms"))
    parser.add_argument("--threads", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--tokens", type=int, default=3_000)
    parser.add_argument("--rooms", type=int, default=500, help="rooms in all, the default room included")
    parser.add_argument("--private", type=int, default=50)
    parser.add_argument("--memberships", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200, help="per operation and way")
    parser.add_argument("--reuse", action="store_true", help="keep an already seeded database")
    return parser.parse_args(argv)


def identity(number):
    from bench.seed import identity as bench_identity

    return bench_identity(number)


def seed_rooms(layout, memberships, tokens):
    """The rooms, the threads' and events' rooms, and the memberships, in a few statements (idempotent: a
    forum already spread is left as it is)."""
    from django.db import connection, transaction

    from bench.seed import EPOCH, copy_rows
    from rooms.models import Membership, Room

    if Room.objects.count() >= layout.rooms:
        return
    private, joined = set(layout.private_numbers()), set(list(layout.private_numbers())[::5][1:])
    with transaction.atomic():
        copy_rows("rooms_room", ["id", "slug", "name", "description", "visibility", "history", "opening",
                                 "created_at"],
                  ((number, f"room-{number}", f"Room {number}", "", "private" if number in private else "public",
                    "joined" if number in joined else "shared", "anyone", EPOCH)
                   for number in range(2, layout.rooms + 1)))
        with connection.cursor() as cursor:
            cursor.execute("SELECT setval(pg_get_serial_sequence('rooms_room', 'id'), %s)", [layout.rooms])
            cursor.execute("UPDATE forum_thread SET room_number = id %% %s + 1", [layout.rooms])
            cursor.execute("UPDATE forum_stateevent e SET room_number = t.room_number FROM forum_thread t "
                           "WHERE t.id = e.thread_id AND e.room_number <> t.room_number")
        rows = set()
        measured = ([*layout.private_numbers()][:MEASURED_PRIVATE]
                    + [*layout.public_numbers()][:MEASURED_PUBLIC])
        for token in range(MEASURING_TOKEN, MEASURING_TOKEN + POSTING_TOKENS):  # the measuring line and posters
            rows.update((token, room) for room in measured)
        number = 0
        while len(rows) < memberships:  # the rest spread evenly, a few rooms per line
            rows.add((number % tokens, 2 + (number * 7919) % (layout.rooms - 1)))
            number += 1
        # joined rooms: memberships began before every seeded thread, so history hides nothing seeded
        Membership.objects.bulk_create(
            [Membership(identity=identity(token), room_id=room, muted=False, started_at=EPOCH - timedelta(days=1))
             for token, room in sorted(rows)], batch_size=2000)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE rooms_room; ANALYZE rooms_membership; ANALYZE forum_thread; "
                           "ANALYZE forum_stateevent")


class HooksOff:
    """The rooms profile's hooks taken out of forum.profiles.PROFILES for the `with` block: the core then
    reads as in a forum without rooms."""

    def __enter__(self):
        from forum.profiles import PROFILES

        self.saved = PROFILES.pop("rooms")
        return self

    def __exit__(self, *exc):
        from forum.profiles import PROFILES

        PROFILES["rooms"] = self.saved


def post_targets(layout, threads, tokens, rooms):
    """Threads a poster may note on: in `rooms`, none of whose messages is a poster's (bench/seed.py: thread
    n's messages are by tokens n, n+1, ... mod tokens), as many as make each poster's turn on a thread come
    after another's (no self reply: a count that is no multiple of POSTING_TOKENS)."""
    last_poster = MEASURING_TOKEN + POSTING_TOKENS
    found = [number for number in range(2, threads + 1) if layout.room_of(number) in set(rooms)
             and last_poster + 20 < number % tokens < tokens - 20]
    return found[:-1] if len(found) % POSTING_TOKENS == 0 else found


def operations(layout, threads, tokens):
    """name -> (with the profile: (method, path, body), without it: (method, path, body)) of each
    operation measured. Posts go to threads of the rooms the measuring line is a member of, by turns."""
    member_rooms = [*layout.private_numbers()][:MEASURED_PRIVATE]
    room = f"rm_{member_rooms[0]}"
    public_room = f"rm_{[*layout.public_numbers()][0]}"
    reads = {
        "inbox": ("GET", "/api/v1/inbox", None),
        "list_threads": ("GET", "/api/v1/threads", None),
        "read_thread (th_1, 200 messages, private room)": ("GET", "/api/v1/threads/th_1", None),
        "read_thread (newest)": ("GET", f"/api/v1/threads/th_{threads}", None),
    }
    pairs = {name: (request, request) for name, request in reads.items()}
    pairs["list_threads room= (private)"] = (("GET", f"/api/v1/threads?room={room}", None),
                                             ("GET", "/api/v1/threads", None))
    pairs["list_threads room= (public)"] = (("GET", f"/api/v1/threads?room={public_room}", None),
                                            ("GET", "/api/v1/threads", None))
    pairs["post (note, private room)"] = ("POST", post_targets(layout, threads, tokens, member_rooms))
    return pairs


def timed(client, method, path, body):
    import json

    started = time.perf_counter()
    if method == "GET":
        response = client.get(path)
    else:
        response = client.post(path, json.dumps(body), content_type="application/json")
    elapsed = time.perf_counter() - started
    assert response.status_code < 300, (path, response.status_code, response.content[:300])
    return elapsed


def counted(client, method, path, body):
    from bench.queries import count

    return count(client, method, path, body)[0]


def measure(layout, threads, requests, secrets):
    """{operation: (p50 ms with, p50 ms without, queries with, queries without)}, alternating ways request by
    request (the first of each pair chosen in turn), so that both see the same load."""
    from django.test import Client

    reader = Client(HTTP_AUTHORIZATION=f"Bearer {secrets[MEASURING_TOKEN]}")
    posters = [Client(HTTP_AUTHORIZATION=f"Bearer {secrets[token]}")
               for token in range(MEASURING_TOKEN, MEASURING_TOKEN + POSTING_TOKENS)]
    results = {}
    post_number = 0
    for name, pair in operations(layout, threads, len(secrets)).items():
        times = {True: [], False: []}
        queries = {}
        for number in range(requests + 1):
            for rooms_on in ((True, False) if number % 2 else (False, True)):
                if pair[0] == "POST":
                    post_number += 1
                    client = posters[post_number % len(posters)]
                    request = ("POST", "/api/v1/messages", {"kind": "note", "body": f"bench note {post_number}",
                                                           "thread": pair[1][post_number % len(pair[1])]})
                else:
                    client, request = reader, pair[0] if rooms_on else pair[1]
                if rooms_on:
                    elapsed = timed(client, *request) if number else counted(client, *request)
                else:
                    with HooksOff():
                        elapsed = timed(client, *request) if number else counted(client, *request)
                if number == 0:  # the first pair counts queries and warms up
                    queries[rooms_on] = elapsed
                else:
                    times[rooms_on].append(elapsed)
        results[name] = (statistics.median(times[True]) * 1000, statistics.median(times[False]) * 1000,
                         queries[True], queries[False])
    return results


def report(results, requests):
    lines = ["| operation | with rooms (p50 ms) | without (p50 ms) | ratio | queries with / without |",
             "|---|---|---|---|---|"]
    for name, (with_rooms, without, queries_with, queries_without) in results.items():
        ratio = with_rooms / without
        mark = "✔" if ratio <= RATIO_TARGET else "✘"
        lines.append(f"| {name} | {with_rooms:.2f} | {without:.2f} | {ratio:.2f} {mark} | "
                     f"{queries_with} / {queries_without} |")
    lines.append(f"({requests} requests per operation and way, alternating; load average "
                 f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return "\n".join(lines)


def run(args):
    """Seed (unless --reuse), spread over rooms, measure: the report's text."""
    from bench.run import seed, setup_django

    os.environ["PARLEY_WRITES_PER_MINUTE"] = "1000000"  # posts are measured, not the rate limit
    seed(args, args.database_url, args.threads, args.messages)
    setup_django(args.database_url)
    from bench.seed import bench_secret, current_size

    layout = Layout(rooms=args.rooms, private=args.private)
    seed_rooms(layout, args.memberships, args.tokens)
    size = current_size()
    secrets = [bench_secret(number) for number in range(args.tokens)]
    header = (f"{size.messages} messages, {size.threads} threads, {args.rooms} rooms ({args.private} private), "
              f"{args.memberships} memberships; load average {os.getloadavg()[0]:.1f} at the start")
    return header + "\n" + report(measure(layout, size.threads, args.requests, secrets), args.requests)


def main():
    print(run(arguments()), flush=True)


if __name__ == "__main__":
    main()
