"""§17: creating a webhook resolves its URL's host at most RESOLVE_SECONDS, on resolver threads of its own, at
most RESOLVERS at once in a process, so creations naming a host whose resolver never answers hold neither
/healthz nor another client's requests; served by the ASGI application itself, with its shared pool of
request threads (parley_site.sync_threads)."""
import asyncio
import socket
import threading
from collections import Counter

import pytest
from django.db import connection

from tests.asgi_client import timed_request
from webhooks import addresses

SILENT = ".silent.example"


@pytest.fixture
def silent_resolver(monkeypatch):
    """Names under .silent.example resolve never (until the test ends). Patched at getaddrinfo, the call
    that waits on the network, under all of our code: the machine's resolver is every process's to use."""
    real, released = socket.getaddrinfo, threading.Event()

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.endswith(SILENT):
            released.wait(60)
            raise socket.gaierror(socket.EAI_AGAIN, "the resolver never answered")
        return real(host, *args, **kwargs)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield released
    released.set()


def test_creations_waiting_on_a_silent_resolver_leave_healthz_and_another_clients_read_fast(
        transactional_db, make_token, silent_resolver, settings):
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers on the shared threads: SQLite's in-memory test database locks its tables")
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "webhook_creates_per_minute": 20}
    mallory, reader = make_token("mallory", ("read",)), make_token("reader", ("read",))

    async def meanwhile():
        creating = [asyncio.create_task(timed_request("POST", "/api/v1/webhooks", mallory.secret, {
            "url": f"https://hook{number}{SILENT}/", "topics": ["inbox"]})) for number in range(8)]
        try:
            await asyncio.sleep(0.5)  # every creation is in, waiting or refused
            health = await asyncio.wait_for(timed_request("GET", "/healthz"), 10)
            read = await asyncio.wait_for(timed_request("GET", "/api/v1/whoami", reader.secret), 10)
            return health, read, await asyncio.wait_for(asyncio.gather(*creating), 10)
        finally:
            silent_resolver.set()  # before the old code's waits could hold the test for good

    health, read, created = asyncio.run(meanwhile())
    assert (health.status, read.status) == (200, 200)
    assert health.seconds < 1 and read.seconds < 1
    assert Counter(answer.status for answer in created) == {400: addresses.RESOLVERS, 503: 8 - addresses.RESOLVERS}
    assert all(answer.seconds < addresses.RESOLVE_SECONDS + 1 for answer in created)
    timed_out = next(answer.body["error"] for answer in created if answer.status == 400)
    assert timed_out["detail"]["field"] == "url" and "does not resolve within 2 s" in timed_out["message"]
