"""Error pages: JSON under the machine paths (/api/, /mcp, /.well-known/), Django's pages elsewhere."""
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt

from parley_site import metrics
from parley_site.exception_handler import json_not_found, json_server_error

MACHINE_PREFIXES = ("/api/", "/mcp", "/.well-known/")
CONSOLE_PREFIXES = ("/admin/", "/threads/")


def is_machine_path(request):
    return request.path.startswith(MACHINE_PREFIXES)


def door_of_path(path):
    """The door a route that names no operation was knocked at, for its count."""
    if path.startswith("/mcp"):
        return "mcp"
    if path.startswith(CONSOLE_PREFIXES):
        return "admin"
    return "rest"


# Exempt: it changes nothing, and CSRF's check would answer a token-bearing POST to an unknown route with
# Django's HTML 403 page before this view could say 404 in JSON.
@csrf_exempt
def not_found(request, exception=None):
    metrics.observe(metrics.UNKNOWN_OPERATION, door_of_path(request.path), "not_found")
    if is_machine_path(request):
        return json_not_found(request, exception)
    return defaults.page_not_found(request, exception)


def server_error(request):
    if is_machine_path(request):
        return json_server_error(request)
    return defaults.server_error(request)
