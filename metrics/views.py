"""`GET /metrics`: the Prometheus text format, for the callers metrics.access lets in; to everyone else
it does not exist (the JSON 404 of any unknown route, counted as one)."""
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from prometheus_client import CONTENT_TYPE_LATEST

from metrics.access import may_read_metrics
from metrics.collectors import ForumCollector
from parley_site import metrics
from parley_site.exception_handler import json_not_found, method_not_allowed_body
from parley_site.replicas import ReplicaCollector


@csrf_exempt  # a token-bearing POST is answered 405 in JSON, not with Django's CSRF page
def metrics_endpoint(request):
    if not may_read_metrics(request):
        metrics.observe(metrics.UNKNOWN_OPERATION, "rest", "not_found")
        return json_not_found(request)
    if request.method not in ("GET", "HEAD"):
        return JsonResponse(method_not_allowed_body(request.method), status=405, headers={"Allow": "GET, HEAD"})
    return HttpResponse(metrics.exposition(ForumCollector(), ReplicaCollector()), content_type=CONTENT_TYPE_LATEST)
