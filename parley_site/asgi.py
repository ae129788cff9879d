"""The ASGI entry point: what serves profile `feed` (docs/feed.md), so that an open event stream is a
coroutine, not a worker. Every other view runs as under WSGI, in a thread of its own."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley_site.settings")
application = get_asgi_application()
