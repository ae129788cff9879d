"""`/healthz` for load balancers: 200 when this process can reach the database, 503 when it cannot.

It is answered before the host check and the HTTPS redirect, because load balancers probe by IP address over
plain HTTP and must still get an honest answer: under ASGI by `answering_probes`, around Django's handler,
and on threads of its own (HEALTH_WORK), since Django's own steps around any request (its start and end
signals, closing the response) run on the requests' shared threads (parley_site.sync_threads), which may all
be busy; under WSGI by the middleware placed first."""
import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.db import DatabaseError, connection
from django.http import JsonResponse

from parley_site.replicas import MONITOR, replica_aliases

HEALTH_PATH = "/healthz"
HEALTH_WORK = ThreadPoolExecutor(max_workers=2, thread_name_prefix="parley-health")

logger = logging.getLogger("parley.health")


def database_reachable():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as problem:
        logger.warning("health check: database unreachable: %s", problem.__class__.__name__)
        return False
    return True


def healthz(request):
    """The primary decides: a replica down or lagging is passed over for it, so this server still serves
    (its state is shown under `replicas`, as this process sees it: ok, lagging, down or promoted)."""
    replicas = {"replicas": MONITOR.report()} if replica_aliases() else {}
    if database_reachable():
        return JsonResponse({"status": "ok", "checks": {"database": "ok", **replicas}})
    return JsonResponse({"status": "unavailable", "checks": {"database": "unreachable", **replicas}}, status=503,
                        headers={"Retry-After": "5", "Cache-Control": "no-store"})


def healthz_off_requests(request):
    """healthz() on a thread no request's end tidies up (ASGI: HEALTH_WORK), so its connection is closed
    here: one kept would outlive a database restart, broken."""
    try:
        return healthz(request)
    finally:
        connection.close()


def is_probe(request):
    return request.path_info == HEALTH_PATH and request.method in ("GET", "HEAD")


def answering_probes(app):
    """The ASGI application `app` with /healthz answered in front of it, its query on HEALTH_WORK."""
    async def application(scope, receive, send):
        if scope["type"] != "http" or scope["path"] != HEALTH_PATH or scope["method"] not in ("GET", "HEAD"):
            return await app(scope, receive, send)
        response = await asyncio.get_running_loop().run_in_executor(HEALTH_WORK, healthz_off_requests, None)
        headers = [*response.items(), ("Content-Length", str(len(response.content)))]
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else response.content})
    return application


class HealthCheckMiddleware:
    """Sync and async alike (Django's own ASGI handler, as its test client runs it): on the event loop, only the
    probe's query takes a thread, one of HEALTH_WORK."""

    sync_capable = async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request):
        if iscoroutinefunction(self):
            return self.__acall__(request)
        return healthz(request) if is_probe(request) else self.get_response(request)

    async def __acall__(self, request):
        if is_probe(request):
            # Not on the requests' shared threads: a probe must answer while they are all busy.
            return await asyncio.get_running_loop().run_in_executor(HEALTH_WORK, healthz_off_requests, request)
        return await self.get_response(request)
