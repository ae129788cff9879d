"""`/healthz` for load balancers: 200 when this process can reach the database, 503 when it cannot.

It is answered by a middleware placed first, before the host check and the HTTPS redirect, because load
balancers probe by IP address over plain HTTP and must still get an honest answer."""
import logging

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.db import DatabaseError, connection
from django.http import JsonResponse

HEALTH_PATH = "/healthz"

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
    if database_reachable():
        return JsonResponse({"status": "ok", "checks": {"database": "ok"}})
    return JsonResponse({"status": "unavailable", "checks": {"database": "unreachable"}}, status=503,
                        headers={"Retry-After": "5", "Cache-Control": "no-store"})


def healthz_off_requests(request):
    """healthz() on a thread no request's end tidies up (ASGI: asyncio's own executor), so its connection
    is closed here: one kept would outlive a database restart, broken."""
    try:
        return healthz(request)
    finally:
        connection.close()


def is_probe(request):
    return request.path_info == HEALTH_PATH and request.method in ("GET", "HEAD")


class HealthCheckMiddleware:
    """Sync and async alike: under ASGI it stays on the event loop, and only the probe's query takes a thread."""

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
            return await sync_to_async(healthz_off_requests, thread_sensitive=False)(request)
        return await self.get_response(request)
