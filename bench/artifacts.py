"""Artifact throughput (§18): uploads and downloads of 1 KiB and 10 MiB artifacts through the production
command, against plain file copying (`shutil.copyfile`) on the same disk, where the artifacts store is.

Starts gunicorn (gunicorn.conf.py) on 127.0.0.1 against a PostgreSQL database of its own, with the
artifacts store in a directory of its own beside the copies; uploads --small-count 1 KiB and --large-count
10 MiB distinct artifacts (each stores new bytes), downloads each back, and copies a file of each size as
often. One client, requests in sequence on one connection. Prints MiB/s and requests per second, and for
scale the rate of `whoami`, the cheapest authenticated request. Not a test: it prints figures
(docs/performance.md records them).

    .venv/bin/python bench/artifacts.py
"""
import argparse
import http.client
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.server import GunicornServer  # noqa: E402

MiB = 1024 * 1024
SIZES = {"1 KiB": 1024, "10 MiB": 10 * MiB}


def options():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/parley_artifacts_bench")
    parser.add_argument("--small-count", type=int, default=500, help="1 KiB artifacts")
    parser.add_argument("--large-count", type=int, default=20, help="10 MiB artifacts")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dir", default=str(ROOT), help="where the store and the copies go (one disk)")
    return parser.parse_args()


def prepare(database):
    """A fresh database and a writer's token secret."""
    import psycopg

    name = database.rsplit("/", 1)[1]
    with psycopg.connect(database.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    os.environ.update(DATABASE_URL=database, DJANGO_SETTINGS_MODULE="parley_site.settings_test")
    import django
    from django.core.management import call_command
    django.setup()
    call_command("migrate", verbosity=0)
    from forum import tokens
    from forum.actors import Actor
    return tokens.token_create(Actor.for_operator("bench"), "uploader", {"read", "write"})[1]


def payloads(size, count):
    """`count` distinct payloads of `size` bytes: each upload stores new bytes."""
    block = os.urandom(size)
    return [n.to_bytes(8, "big") + block[8:] for n in range(count)]


def upload_all(connection, secret, datas):
    ids = []
    for data in datas:
        connection.request("POST", "/api/v1/artifacts", body=data, headers={
            "Authorization": f"Bearer {secret}", "Content-Type": "application/octet-stream"})
        response = connection.getresponse()
        body = response.read()
        assert response.status == 201, body
        ids.append(body.split(b'"id":"', 1)[1].split(b'"', 1)[0].decode())
    return ids


def download_all(connection, secret, ids, size):
    for artifact in ids:
        connection.request("GET", f"/api/v1/artifacts/{artifact}", headers={"Authorization": f"Bearer {secret}"})
        response = connection.getresponse()
        assert response.status == 200 and len(response.read()) == size


def whoami_all(connection, secret, count):
    """The cheapest authenticated request of this stack, for scale: what any request costs here."""
    for _ in range(count):
        connection.request("GET", "/api/v1/whoami", headers={"Authorization": f"Bearer {secret}"})
        response = connection.getresponse()
        assert response.status == 200 and response.read()


def copy_all(source, target_dir, count):
    for n in range(count):
        shutil.copyfile(source, target_dir / f"copy-{n}")


def timed(run):
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def line(what, size, count, seconds):
    rate = size * count / MiB / seconds
    print(f"  {what:<9} {rate:9.1f} MiB/s  {count / seconds:8.1f} per second")
    return rate


def main():
    args = options()
    secret = prepare(args.database)
    base = Path(tempfile.mkdtemp(prefix=".bench-artifacts-", dir=args.dir))
    try:
        store, copies = base / "store", base / "copies"
        copies.mkdir()
        with GunicornServer(args.database, workers=args.workers, PARLEY_ARTIFACTS_DIR=store,
                            PARLEY_WRITES_PER_MINUTE=10**9, LOG_LEVEL="WARNING") as server:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
            print(f"artifacts through gunicorn ({args.workers} workers) vs shutil.copyfile, store in {base}")
            seconds = timed(lambda: whoami_all(connection, secret, args.small_count))
            print(f"whoami x {args.small_count} (any request's cost here): {args.small_count / seconds:.1f} per second")
            for label, size in SIZES.items():
                count = args.small_count if size < MiB else args.large_count
                datas = payloads(size, count)
                ids = []
                up = timed(lambda: ids.extend(upload_all(connection, secret, datas)))
                down = timed(lambda: download_all(connection, secret, ids, size))
                source = copies / "source"
                source.write_bytes(datas[0])
                copy = timed(lambda: copy_all(source, copies, count))
                for leftover in copies.iterdir():
                    leftover.unlink()
                print(f"{label} x {count}:")
                copied = line("copy", size, count, copy)
                uploaded, downloaded = line("upload", size, count, up), line("download", size, count, down)
                print(f"  upload {uploaded / copied:.2f}x copy, download {downloaded / copied:.2f}x copy")
            connection.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
