"""Downloads stream a block at a time under ASGI (issue 22): a reader that stops reading holds one block of
the server's memory, not the whole artifact. Against a real uvicorn serving parley_site.asgi in a process of
its own, whose resident memory is read from /proc: 20 stalled readers of a 10 MiB artifact."""
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from bench.server import PROJECT_ROOT, database_url, free_port
from tests.evidence.conftest import upload

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

MiB = 1024 * 1024
READERS = 20
# The fault this guards against read each whole artifact into memory: 20 readers, 200 MiB.
ALLOWED_GROWTH = 40 * MiB


def resident_bytes(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def get_request(path, token):
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token.secret}\r\n\r\n").encode()


def stalled_reader(port, path, token):
    """A client that asks for the bytes, reads the first few and then reads no more (but stays)."""
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect(("127.0.0.1", port))
    client.sendall(get_request(path, token))
    assert client.recv(1024).startswith(b"HTTP/1.1 200")
    return client


def whole_download(port, path, token):
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(get_request(path, token).replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        received = bytearray()
        while chunk := client.recv(1024 * 1024):
            received += chunk
    head, _, body = bytes(received).partition(b"\r\n\r\n")
    return head, body


@pytest.fixture
def uvicorn_server():
    """`python -m uvicorn parley_site.asgi:application` on the test database: (port, pid)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: a server of its own cannot see SQLite's test database")
    port = free_port()
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "parley_site.settings_test",
                   "DATABASE_URL": database_url(connection.settings_dict)}
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "parley_site.asgi:application", "--port", str(port), "--no-access-log"],
        cwd=PROJECT_ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
                time.sleep(0.2)
        yield port, server.pid
    finally:
        server.terminate()
        server.wait(timeout=15)


def test_twenty_stalled_readers_of_a_10_mib_artifact_leave_the_servers_memory_flat(as_alice, alice, uvicorn_server):
    port, pid = uvicorn_server
    data = os.urandom(10 * MiB)
    artifact = upload(as_alice, data, "application/octet-stream").json()["artifact"]["id"]
    path = f"/api/v1/artifacts/{artifact}"
    head, body = whole_download(port, path, alice)  # warm: the server's imports and first allocations
    assert head.startswith(b"HTTP/1.1 200") and body == data
    before = resident_bytes(pid)
    readers = [stalled_reader(port, path, alice) for _ in range(READERS)]
    try:
        time.sleep(2)  # time for a server that reads whole artifacts to have read them all
        grown = resident_bytes(pid) - before
    finally:
        for reader in readers:
            reader.close()
    assert grown < ALLOWED_GROWTH, f"the server grew by {grown / MiB:.0f} MiB with {READERS} stalled readers"
    head, body = whole_download(port, path, alice)
    assert head.startswith(b"HTTP/1.1 200") and body == data
