"""How many waiting agents one machine holds while posts keep flowing, and how fast they wake (§16).

Starts the production command (`gunicorn -c gunicorn.conf.py`, --workers processes) on 127.0.0.1 against a
PostgreSQL database of its own, opens --waiters waiting agents (each its own token), each following the events of one of --threads
threads (so a post wakes about waiters/threads of them) by SSE, by long-poll (`wait=30`) or by an MCP
listen stream (`subscriptions/listen` on `parley://threads/{id}`, the modern era, §2), then posts
re-decisions at --rate per second for --seconds and prints how many waiters stayed connected and the
wake-up latency: from the event's own time `at` (taken inside the write, before its commit) to the moment
the waiter has read it (for MCP, whose notification names only the resource: from the moment the post was
sent, so a bound from above), and what the held waiters cost the workers (threads, memory, database
connections). Not a test: it prints figures (docs/performance.md records them).

    .venv/bin/python bench/feed_waiters.py --waiters 1000 --mode sse
    .venv/bin/python bench/feed_waiters.py --waiters 1000 --mode mcp --rate 5
"""
import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cpu import CpuMeter, children  # noqa: E402


def options():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--waiters", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=100, help="threads the waiters spread over")
    parser.add_argument("--mode", choices=["sse", "longpoll", "mcp"], default="sse")
    parser.add_argument("--rate", type=float, default=10.0, help="posts per second")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long posts flow")
    parser.add_argument("--workers", type=int, default=2, help="server processes")
    parser.add_argument("--arrivals", type=float, default=100.0, help="waiters arriving per second")
    parser.add_argument("--room", choices=["default", "private"], default="default",
                        help="private: the threads are in a private room (rooms, §20) whose members the waiters "
                             "are, so every read and wake-up carries the room's sight")
    parser.add_argument("--port", type=int, default=18471)
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/parley_feed_bench")
    return parser.parse_args()


def prepare(args):
    """A fresh database with a writer, the threads, and one token per waiter."""
    import psycopg

    name = args.database.rsplit("/", 1)[1]
    with psycopg.connect(args.database.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from forum import services, tokens
    from forum.actors import Actor
    from forum.envelope import clean_envelope

    operator = Actor.for_operator("bench")
    writer, writer_secret = tokens.token_create(operator, "writer", {"read", "write", "lock"})
    room = {}
    if args.room == "private":
        from rooms.services import room_create

        room = {"room": f"rm_{room_create(operator, {'slug': 'waiters', 'name': 'Waiters', 'visibility': 'private'}).pk}"}
    threads = [services.message_post(Actor.for_token(writer), clean_envelope(
        {"kind": "ask", "body": f"Thread {n}", **room}))[1].pk for n in range(args.threads)]
    waiters = [tokens.token_create(operator, f"waiter-{n}", {"read"}) for n in range(args.waiters)]
    if room:  # members of the private room, so each sees its threads through sight (not as a lock holder)
        from rooms.models import Membership
        from django.utils import timezone

        Membership.objects.bulk_create([Membership(room_id=int(room["room"][3:]), identity=token.identity,
                                                   started_at=timezone.now()) for token, _ in waiters])
    return writer_secret, threads, [secret for _, secret in waiters]


def start_server(args):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "parley_site.settings", "DATABASE_URL": args.database,
           "SECRET_KEY": "bench-only", "PARLEY_WRITES_PER_MINUTE": "1000000", "LOG_LEVEL": "WARNING",
           "LOG_FORMAT": "text", "ALLOWED_HOSTS": "127.0.0.1", "GUNICORN_WORKERS": str(args.workers),
           "GUNICORN_BIND": f"127.0.0.1:{args.port}", "GUNICORN_LOG_LEVEL": "warning"}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--backlog", "4096"],
                              cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("the server exited at start")
        if len(children(server.pid)) == args.workers:
            try:
                socket.create_connection(("127.0.0.1", args.port), timeout=1).close()
                return server
            except OSError:
                pass
        time.sleep(0.2)
    server.terminate()
    raise SystemExit("the server did not start")


def footprint(server_pid):
    """(threads, resident MiB) of the server's workers together."""
    threads = rss_kib = 0
    for worker in children(server_pid):
        status = dict(line.split(":", 1) for line in Path(f"/proc/{worker}/status").read_text().splitlines())
        threads += int(status["Threads"])
        rss_kib += int(status["VmRSS"].split()[0])
    return threads, rss_kib / 1024


async def http_get(port, path, secret, timeout=40):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {secret}\r\n"
                 f"Connection: close\r\n\r\n".encode())
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), timeout)
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def arrival(event, lags):
    lags.append(time.time() - datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp())


async def follow(port, request, state, on_line):
    """Open one held response (an event stream, an MCP listen) with `request`, count it as connected while
    it lasts, and hand each line it sends to on_line."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
    writer.write(request)
    await writer.drain()
    status = (await reader.readline()).split()[1]
    if status != b"200":
        state["refused"] += 1
        return
    state["connected"] += 1
    try:
        while line := await reader.readline():
            on_line(line)
    finally:
        state["connected"] -= 1
        writer.close()


async def sse_waiter(port, secret, thread, state):
    def on_line(line):
        if line.startswith(b"data: {"):
            arrival(json.loads(line[6:]), state["lags"])
    await follow(port, f"GET /api/v1/events/stream?thread={thread} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       f"Authorization: Bearer {secret}\r\nAccept: text/event-stream\r\n\r\n".encode(), state, on_line)


async def longpoll_waiter(port, secret, thread, state):
    path = f"/api/v1/threads/{thread}/events"
    try:
        status, body = await http_get(port, path, secret)
        cursor = json.loads(body[body.index(b"{"):body.rindex(b"}") + 1])["cursor"]
        state["connected"] += 1
        try:
            while True:
                status, body = await http_get(port, f"{path}?wait=30&cursor={cursor}", secret)
                if status != 200:
                    state["refused"] += 1
                    return
                page = json.loads(body[body.index(b"{"):body.rindex(b"}") + 1])  # chunked framing aside
                for event in page["items"]:
                    arrival(event, state["lags"])
                cursor = page["cursor"]
        finally:
            state["connected"] -= 1
    except (TimeoutError, OSError):  # no answer within 40 s, or the connection failed
        state["lost"] += 1


MODERN = "2026-07-28"


def listen_request(thread):
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": [f"parley://threads/{thread}"]},
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                  "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()


async def mcp_listener(port, secret, thread, state):
    """An MCP agent of the modern era listening to one thread: each `notifications/resources/updated` is
    one delivery, timed from when the post to that thread was sent (state["posted"])."""
    def on_line(line):
        if line.startswith(b"data: {") and b"notifications/resources/updated" in line:
            if thread in state["posted"]:  # not the wake-up everyone gets when the feed's listener starts
                state["lags"].append(time.time() - state["posted"][thread])
    body = listen_request(thread)
    await follow(port, f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {secret}\r\n"
                       f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                       f"MCP-Protocol-Version: {MODERN}\r\nMcp-Method: subscriptions/listen\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n".encode() + body, state, on_line)


async def post(port, secret, thread, state=None):
    body = json.dumps({"kind": "decide", "body": "re-decided", "thread": thread}).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST /api/v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {secret}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                 .encode() + body)
    if state is not None:
        state["posted"][thread] = time.time()
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    writer.close()
    return status


def database_connections(database_url):
    """The server's connections to its database right now, by state (this query's own excluded)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as admin:
        return dict(admin.execute(
            "SELECT coalesce(state, 'none'), count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() GROUP BY 1").fetchall())


async def sample_connections(database_url, samples):
    """Appends database_connections() twice a second until cancelled."""
    while True:
        samples.append(await asyncio.to_thread(database_connections, database_url))
        await asyncio.sleep(0.5)


def most_connections(samples):
    busiest = max(samples, key=lambda sample: sum(sample.values()), default={})
    return f"{sum(busiest.values())} ({', '.join(f'{n} {state}' for state, n in sorted(busiest.items()))})"


async def run(args, server, writer_secret, threads, secrets):
    state = {"connected": 0, "refused": 0, "lost": 0, "lags": [], "posted": {}}
    waiter = {"sse": sse_waiter, "longpoll": longpoll_waiter, "mcp": mcp_listener}[args.mode]
    await asyncio.sleep(2)  # the workers settle after start
    empty = footprint(server.pid)
    opening = time.monotonic()
    tasks = []
    for n, secret in enumerate(secrets):  # agents arrive over time, not in one burst
        tasks.append(asyncio.create_task(waiter(args.port, secret, threads[n % len(threads)], state)))
        await asyncio.sleep(1 / args.arrivals)
    while state["connected"] + state["refused"] + state["lost"] < len(secrets) and time.monotonic() - opening < 180:
        await asyncio.sleep(0.1)
    opened_in = time.monotonic() - opening
    await asyncio.sleep(1)
    held = footprint(server.pid)
    meter = CpuMeter(server.pid, args.database)
    idle_cpu, idle_connections = meter.seconds(), []
    sampler = asyncio.create_task(sample_connections(args.database, idle_connections))
    await asyncio.sleep(10)
    sampler.cancel()
    idle_cpu = (meter.seconds() - idle_cpu) / 10
    held_at_start = state["connected"]
    flowing_cpu = meter.seconds()
    posts, started, flowing_connections = [], time.monotonic(), []
    sampler = asyncio.create_task(sample_connections(args.database, flowing_connections))
    while time.monotonic() - started < args.seconds:
        posts.append(asyncio.create_task(post(args.port, writer_secret, random.choice(threads), state)))
        await asyncio.sleep(max(0.0, len(posts) / args.rate - (time.monotonic() - started)))
    statuses = await asyncio.gather(*posts)
    await asyncio.sleep(2)
    sampler.cancel()
    flowing_cpu = (meter.seconds() - flowing_cpu) / (time.monotonic() - started)
    report(args, state, held_at_start, opened_in, statuses)
    print(f"workers' threads {empty[0]} -> {held[0]}, resident memory {empty[1]:.0f} -> {held[1]:.0f} MiB with "
          f"{held_at_start} held: {(held[1] - empty[1]) * 1024 / max(held_at_start, 1):.1f} KiB per held waiter")
    print(f"server CPU (workers and their database backends): {idle_cpu:.2f} cores while the waiters idle, "
          f"{flowing_cpu:.2f} cores while posts flow "
          f"(machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"server's database connections, most seen: {most_connections(idle_connections)} while the waiters "
          f"idle, {most_connections(flowing_connections)} while posts flow")
    for task in tasks:
        task.cancel()


def report(args, state, held_at_start, opened_in, statuses):
    lags = sorted(state["lags"])
    posted, failed = len(statuses), sum(status != 201 for status in statuses)
    print(f"mode={args.mode} room={args.room} workers={args.workers} waiters={args.waiters} threads={args.threads} "
          f"rate={args.rate}/s seconds={args.seconds}")
    print(f"waiters connected: {held_at_start} after opening ({opened_in:.1f} s to open them all), "
          f"{state['connected']} at the end; refused {state['refused']}, lost {state['lost']} (no answer in 40 s)")
    print(f"posts: {posted} ({failed} failed); deliveries: {len(lags)} "
          f"(expected {(posted - failed) * args.waiters / args.threads:.0f})")
    if lags:
        p50, p99 = lags[len(lags) // 2], lags[min(len(lags) - 1, int(len(lags) * 0.99))]
        print(f"wake-up latency: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms, "
              f"mean {statistics.mean(lags) * 1000:.0f} ms")


def main():
    args = options()
    os.environ["DATABASE_URL"] = args.database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley_site.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ["PARLEY_WRITES_PER_MINUTE"] = "1000000"
    writer_secret, threads, secrets = prepare(args)
    server = start_server(args)
    try:
        asyncio.run(run(args, server, writer_secret, [f"th_{pk}" for pk in threads], secrets))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:  # workers end open waiters only after a while; the figures are taken
            os.killpg(server.pid, signal.SIGKILL)  # the server and its workers, none left behind
            server.wait()


if __name__ == "__main__":
    main()
