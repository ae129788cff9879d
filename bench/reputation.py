"""What the reputation profile costs (Parley v1 §21, docs/performance.md "Reputation"):
`python -m bench.reputation [--reuse] [--messages 1000000 --threads 100000 --claims 100000] [--requests 200]`
(PostgreSQL only).

1. Seeds the benchmark's forum as bench/run.py does (or keeps it with --reuse), then the claims of §10 and
   their acts (seed_claims): one claim per thread on the first --claims threads, asserted, attested, sealed
   by lines with `verify`, refuted by ordinary lines and by sealers, retracted, left pending, and sealed
   again under a refuted claim's statement (an overturn), by lines spread over every token; then spreads the
   threads over rooms as bench/rooms.py does, so records have room scopes.
2. Rebuilds every served record from scratch (reputation.records.refresh_lines over every line, what
   `manage.py parley_reputation --rebuild` runs), timed (target: at most REBUILD_TARGET seconds).
3. Measures `read_reputation` against `whoami` through the full request stack in this process (Django's
   test client), REST and MCP, alternating batch by batch: wall clock p50 per request, and CPU per request
   (this process, which is the server here, plus its PostgreSQL backend, read from /proc); target: at most
   READ_TARGET x whoami. The measured line is an ordinary member (it may not see every thread, so its
   record is computed from the facts it may see at each read), or with --reader-lock a lock holder (it sees
   every thread: the stored record is served).
4. Counts the queries of a plain `post` (a note: it touches no claim) with the profile's listeners in
   forum.announce and with them taken out: the refresh path must add none.
It prints the figures and verdicts; it is not a test (tests/bench/test_reputation.py runs it at a tiny size
so that it cannot rot)."""
import argparse
import hashlib
import json
import os
import statistics
import time
from datetime import timedelta
from pathlib import Path

READ_TARGET = 2.0
REBUILD_TARGET = 60.0
SEALER_EVERY = 50  # bench token n has `verify` when n % SEALER_EVERY == 0
MEASURED_TOKEN = 10  # the line whose record is read (asserter, attester and refuter of many claims)
POSTER_TOKEN = 11
BATCH = 10  # requests per batch: CPU is read per batch (the kernel counts it in ticks)
PATTERNS = 10  # claim n follows pattern n % PATTERNS (see claim_rows)
AGAIN_AT = 4  # a pattern 9 claim is asserted at this position + 1 of claim number - 4's thread


def arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/parley_bench_reputation"))
    parser.add_argument("--threads", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--claims", type=int, default=100_000, help="one per thread, at most --threads")
    parser.add_argument("--tokens", type=int, default=3_000)
    parser.add_argument("--rooms", type=int, default=100, help="rooms in all, the default room included")
    parser.add_argument("--requests", type=int, default=200, help="per operation (a multiple of 10)")
    parser.add_argument("--reader-lock", action="store_true",
                        help="the measured line holds `lock` (it sees every thread: its record is served as stored)")
    parser.add_argument("--reuse", action="store_true", help="keep an already seeded database")
    return parser.parse_args(argv)


def line(number, tokens):
    from bench.seed import identity

    return identity(number % tokens)


def sealer(number, tokens):
    """A line with `verify`, chosen by `number`."""
    return line(SEALER_EVERY * (number % max(1, tokens // SEALER_EVERY)), tokens)


def digest(statement):
    return hashlib.sha256(statement.encode()).hexdigest()


def claim_rows(number, first_message, length, tokens):
    """(claim, [acts], [events]) of thread `number`'s claim, on the thread's own messages (position 1 asserts,
    the next ones act), or None when the thread is too short. Pattern by number % 10:
    0-3 attested then sealed (verified); 4 attested, sealed, then refuted by a sealer (held at once: caught);
    5 attested, refuted by an ordinary line (held after hold_days, long past); 6 refuted by its asserter
    (retracted); 7 attested (supported, pending); 8 asserted only (pending); 9 sealed with the statement of
    claim number - 4 (a pattern 5 claim), asserted again in that claim's thread (so in its room), on its
    later messages (`first_message` and `length` are then that thread's): that refutation is overturned."""
    from bench.seed import EPOCH

    pattern = number % PATTERNS
    asserter = number * 7 + 3
    if asserter % SEALER_EVERY == 0:
        asserter += 1
    attester, refuter = asserter + 1, asserter + 2
    acts = {0: ["attest", "verify"], 4: ["attest", "verify", "refute_sealer"], 5: ["attest", "refute"],
            6: ["retract"], 7: ["attest"], 8: [], 9: ["verify"]}.get(pattern, ["attest", "verify"])
    shift = AGAIN_AT if pattern == 9 else 0  # the messages after those of claim number - 4
    if length < 2 + shift + len(acts):
        return None
    at = EPOCH + timedelta(seconds=number)
    statement = f"statement {number - 4 if pattern == 9 and number > 4 else number}"
    state, events, rows = "unverified", [("assert", None, "unverified", line(asserter, tokens),
                                       first_message + shift + 1)], []
    for offset, act in enumerate(acts, start=2 + shift):
        message = first_message + offset
        kind, by, seals, by_sealer = {
            "attest": ("attest", line(attester, tokens), False, False),
            "verify": ("verify", sealer(number, tokens), True, True),
            "refute_sealer": ("refute", sealer(number + 1, tokens), False, True),
            "refute": ("refute", line(refuter, tokens), False, False),
            "retract": ("refute", line(asserter, tokens), False, False),
        }[act]
        after = {"attest": "supported", "verify": "verified", "refute": "refuted"}[kind]
        after = "verified" if state == "verified" and kind == "attest" else after
        rows.append((message, kind, by, seals, by_sealer, at))
        events.append((kind, state, after, by, message))
        state = after
    claim = (number, first_message + shift + 1, statement, digest(statement), line(asserter, tokens), state, at)
    return claim, rows, events


def seed_claims(claims, tokens):
    """The claims, their acts and their events, in a few COPY statements (idempotent: a forum that already
    holds claims is left as it is); lines whose number is a multiple of SEALER_EVERY get `verify`."""
    from django.db import connection, transaction

    from bench.seed import copy_rows
    from dialectic.models import Claim

    if Claim.objects.exists():
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, first_message_id, message_count FROM forum_thread WHERE id <= %s ORDER BY id",
                       [claims])
        threads = {number: (first_message, length) for number, first_message, length in cursor.fetchall()}
    claim_table, act_table, event_table = [], [], []
    for number in threads:
        home = number - 4 if number % PATTERNS == 9 and number - 4 in threads else number
        found = claim_rows(number, *threads[home], tokens)
        if found is None:
            continue
        claim, acts, events = found
        claim_table.append((home, *claim))
        act_table.extend((number, *act) for act in acts)
        event_table.extend((home, number, *event, claim[-1]) for event in events)
    with transaction.atomic():
        copy_rows("dialectic_claim", ["thread_id", "message_id", "statement", "statement_sha256",
                                      "asserted_identity", "asserted_extension", "state", "proofs", "quorum_need",
                                      "created_at", "updated_at", "id"],
                  ((thread, message, statement, sha, asserter, "", state, "[]", 1, at, at, number)
                   for thread, number, message, statement, sha, asserter, state, at in claim_table))
        copy_rows("dialectic_claimact", ["claim_id", "message_id", "kind", "identity", "extension", "proof",
                                         "seals", "by_sealer", "at"],
                  ((claim, message, kind, by, "", "[]", seals, by_sealer, at)
                   for claim, message, kind, by, seals, by_sealer, at in act_table))
        copy_rows("forum_stateevent", ["thread_id", "message_id", "claim_number", "from_state", "to_state", "label",
                                       "origin", "actor", "at", "confirmed_at", "confirmed_by", "note"],
                  ((thread, message, claim, before, after, label, "llm", by, at, at, by, "")
                   for thread, claim, label, before, after, by, message, at in event_table))
        with connection.cursor() as cursor:
            for table in ("dialectic_claim", "dialectic_claimact", "forum_stateevent"):
                cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                               f"(SELECT COALESCE(max(id), 1) FROM {table}))")
            cursor.execute("UPDATE forum_token SET can_verify = true WHERE handle LIKE 'bench%%' "
                           "AND substring(handle from 6)::int %% %s = 0", [SEALER_EVERY])
            cursor.execute("ANALYZE dialectic_claim; ANALYZE dialectic_claimact; ANALYZE forum_stateevent")


def rebuild():
    """(seconds of wall clock, CPU seconds of this process, lines) to recompute and store every record from
    scratch, as `parley_reputation --rebuild` does."""
    from reputation import records
    from reputation.models import Standing

    Standing.objects.all().delete()
    started, cpu = time.perf_counter(), time.process_time()
    lines = records.all_lines()
    records.refresh_lines(lines)
    return time.perf_counter() - started, time.process_time() - cpu, len(lines)


def backend_ticks():
    """CPU ticks so far of this connection's PostgreSQL backend (same machine: /proc)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def requests_of(identity):
    """operation -> (method, path, body): read_reputation and whoami, on REST and on MCP."""
    def mcp(name, arguments):
        return ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                 "params": {"name": name, "arguments": arguments}})
    return {"REST read_reputation": ("GET", "/api/v1/reputation/me", None),
            "REST whoami": ("GET", "/api/v1/whoami", None),
            "MCP read_reputation": mcp("read_reputation", {}),
            "MCP whoami": mcp("whoami", {})}


def send(client, method, path, body):
    response = client.get(path) if method == "GET" else client.post(path, json.dumps(body),
                                                                    content_type="application/json")
    assert response.status_code < 300, (path, response.status_code, response.content[:300])
    assert b'"isError": true' not in response.content and b'"isError":true' not in response.content, \
        response.content[:300]
    return response


def measure_reads(secret, requests):
    """{operation: (p50 wall ms, CPU ms per request)}, batches of BATCH requests alternating between the
    operations, so every one sees the same load."""
    from django.db import connection
    from django.test import Client

    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    operations = requests_of(None)
    for request in operations.values():  # warm up
        send(client, *request)
    connection.ensure_connection()
    ticks = os.sysconf("SC_CLK_TCK")
    walls = {name: [] for name in operations}
    cpu = dict.fromkeys(operations, 0.0)
    for batch in range(max(1, requests // BATCH)):
        names = list(operations) if batch % 2 == 0 else list(reversed(operations))
        for name in names:
            started_ticks, started_cpu = backend_ticks(), time.process_time()
            for _ in range(BATCH):
                started = time.perf_counter()
                send(client, *operations[name])
                walls[name].append(time.perf_counter() - started)
            cpu[name] += time.process_time() - started_cpu + (backend_ticks() - started_ticks) / ticks
    return {name: (statistics.median(walls[name]) * 1000, cpu[name] * 1000 / len(walls[name]))
            for name in operations}


class ListenersOff:
    """The reputation profile's listeners taken out of forum.announce for the `with` block: a write then runs
    as in a forum without the profile's refresh path."""

    def __enter__(self):
        from forum.announce import LISTENERS

        self.saved = {write: list(hears) for write, hears in LISTENERS.items()}
        for hears in LISTENERS.values():
            hears[:] = [hear for hear in hears if not hear.__module__.startswith("reputation.")]
        return self

    def __exit__(self, *exc):
        from forum.announce import LISTENERS

        for write, hears in self.saved.items():
            LISTENERS[write][:] = hears


def post_queries(secret, threads):
    """(queries of a note with the profile's listeners, without them): a first note warms up (the token's
    first use of the run stamps it once), then a note on each of the next two threads, one each way."""
    from django.test import Client

    from bench.queries import count

    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    bodies = [{"kind": "note", "body": f"a note that touches no claim ({number})", "thread": thread}
              for number, thread in enumerate(threads)]
    count(client, "POST", "/api/v1/messages", bodies[0])
    listening = count(client, "POST", "/api/v1/messages", bodies[1])[0]
    with ListenersOff():
        without = count(client, "POST", "/api/v1/messages", bodies[2])[0]
    return listening, without


def note_threads(threads, tokens):
    """Three threads POSTER_TOKEN did not open (bench/seed.py: thread n is opened by token n mod tokens), so a
    note on them is no self reply. A note records no claim event, whether or not its thread holds claims."""
    return [number for number in range(threads, 0, -1) if number % tokens != POSTER_TOKEN % tokens][:3]


def report(size, claims, rebuilt, reads, posts):
    seconds, cpu, lines = rebuilt
    rest = reads["REST read_reputation"], reads["REST whoami"]
    mcp = reads["MCP read_reputation"], reads["MCP whoami"]
    rows = [f"{size.messages} messages, {size.threads} threads, {claims} claims, {size.tokens} lines; load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
            f"rebuild of every record ({lines} lines): {seconds:.1f} s wall, {cpu:.1f} s CPU of this process "
            f"{'✔' if seconds <= REBUILD_TARGET else '✘'} (target <= {REBUILD_TARGET:.0f} s)",
            "| operation | p50 wall ms | CPU ms per request |", "|---|---|---|"]
    rows += [f"| {name} | {wall:.2f} | {cpu_ms:.2f} |" for name, (wall, cpu_ms) in reads.items()]
    for transport, (read, whoami) in (("REST", rest), ("MCP", mcp)):
        for what, index in (("wall", 0), ("CPU", 1)):
            ratio = read[index] / whoami[index] if whoami[index] else float("inf")
            rows.append(f"{transport} read_reputation / whoami ({what}): {ratio:.2f} "
                        f"{'✔' if ratio <= READ_TARGET else '✘'} (target <= {READ_TARGET:.0f})")
    rows.append(f"post of a note (touches no claim): {posts[0]} queries with the profile's refresh path, "
                f"{posts[1]} without {'✔' if posts[0] == posts[1] else '✘'} (target: none extra)")
    return "\n".join(rows)


def run(args):
    """Seed (unless --reuse), add claims and rooms, rebuild, measure: the report's text."""
    from bench.run import seed, setup_django

    os.environ["PARLEY_WRITES_PER_MINUTE"] = "1000000"  # posts are measured, not the rate limit
    seed(args, args.database_url, args.threads, args.messages)
    setup_django(args.database_url)
    from bench import rooms as bench_rooms
    from bench.seed import bench_secret, current_size
    from forum.models import Token

    started = time.perf_counter()
    seed_claims(args.claims, args.tokens)
    bench_rooms.seed_rooms(bench_rooms.Layout(rooms=args.rooms, private=args.rooms // 10),
                           args.tokens * 2, args.tokens)
    print(f"claims and rooms seeded in {time.perf_counter() - started:.1f} s", flush=True)
    size = current_size()
    rebuilt = rebuild()
    Token.objects.filter(handle=f"bench{MEASURED_TOKEN}").update(can_lock=args.reader_lock)
    reads = measure_reads(bench_secret(MEASURED_TOKEN), args.requests)
    posts = post_queries(bench_secret(POSTER_TOKEN), note_threads(size.threads, args.tokens))
    return report(size, args.claims, rebuilt, reads, posts)


def main():
    print(run(arguments()), flush=True)


if __name__ == "__main__":
    main()
