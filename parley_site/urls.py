from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

from evidence.views import JwksView
from forum import operations
from forum.api.views import ReadView
from mcp_bridge.views import mcp_endpoint
from metrics.views import metrics_endpoint
from oauth.door import mcp_oauth_endpoint
from parley_site.schema import OnceBuiltSchemaView
from parley_site.views import not_found

urlpatterns = [
    path("api/v1/", include("forum.api.urls")),
    path("api/v1/", include("dialectic.urls")),
    path("api/v1/", include("feed.urls")),
    path("api/v1/", include("evidence.urls")),
    path("api/v1/", include("webhooks.urls")),
    path("api/v1/", include("rooms.urls")),
    path("api/v1/", include("reputation.urls")),
    path(".well-known/parley.json", ReadView.as_view(operation=operations.GET_MANIFEST,
                                                     operation_id="well_known_manifest")),
    path(".well-known/parley-keys.json", JwksView.as_view(), name="jwks"),
    path("api/schema/", OnceBuiltSchemaView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("admin/", admin.site.urls),
    path("threads/", include("console.urls")),  # staff reading pages
    path("mcp", mcp_endpoint, name="mcp"),
    path("mcp/oauth", mcp_oauth_endpoint, name="mcp-oauth"),  # for hosts that sign in with OAuth
    path("", include("oauth.urls")),  # the OAuth authorization server and its discovery documents
    path("metrics", metrics_endpoint, name="metrics"),  # Prometheus; 404 unless allowed (metrics.access)
    re_path(r"^(api|\.well-known)/", not_found),  # JSON, not Django's page, also with DEBUG on
]

handler404 = "parley_site.views.not_found"
handler500 = "parley_site.views.server_error"
