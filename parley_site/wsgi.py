import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley_site.settings")
application = get_wsgi_application()

# The URL configuration, and with it every view (the MCP SDK's server among them), is loaded now, when the
# worker starts, not by its first request, which would otherwise wait a second or more for the imports.
from django.urls import get_resolver  # noqa: E402

get_resolver().url_patterns
