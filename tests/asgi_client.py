"""Django's AsyncClient behind the sync calls the tests make of APIClient and Client: requests go through
Django's ASGI handler, as under the real server, so held calls and event streams are served (§16) instead
of refused as under WSGI."""
import json

from asgiref.sync import async_to_sync
from django.test import AsyncClient


def as_headers(extra):
    """WSGI-style `HTTP_LAST_EVENT_ID=...` keyword arguments as the headers AsyncClient takes."""
    return {key.removeprefix("HTTP_").replace("_", "-"): value for key, value in extra.items()}


class AsgiClient:
    def __init__(self):
        self.client = AsyncClient()
        self.defaults = {}

    def credentials(self, **extra):
        self.defaults = as_headers(extra)

    def force_login(self, user):
        self.client.force_login(user)

    def get(self, path, data=None, headers=None, **extra):
        return async_to_sync(self.client.get)(path, data, headers=self.headers(headers, extra))

    def post(self, path, data=None, content_type="application/json", format=None, headers=None, **extra):
        body = data if isinstance(data, (str, bytes)) else json.dumps(data if data is not None else {})
        return async_to_sync(self.client.post)(path, body, content_type=content_type,
                                               headers=self.headers(headers, extra))

    def headers(self, given, extra):
        return {**self.defaults, **(given or {}), **as_headers(extra)}
