"""The authorization server's routes, in django-oauth-toolkit's namespace (its metadata view finds the
endpoints by these names), and the discovery documents at the root (RFC 8414, RFC 9728)."""
from django.urls import path
from oauth2_provider import views as toolkit

from oauth.door import OAUTH_MCP_PATH
from oauth.metadata import ResourceMetadataView, ServerMetadataView
from oauth.views import ConsentView
from parley_site.errors import RESOURCE_METADATA_PATH

app_name = "oauth2_provider"

RESOURCE_METADATA = RESOURCE_METADATA_PATH.lstrip("/")  # the address every 401's challenge names

urlpatterns = [
    path(".well-known/oauth-authorization-server", ServerMetadataView.as_view(), name="oauth-server-metadata"),
    path(RESOURCE_METADATA, ResourceMetadataView.as_view(), name="oauth-resource-metadata"),
    path(f"{RESOURCE_METADATA}/mcp", ResourceMetadataView.as_view(path="/mcp")),
    path(f"{RESOURCE_METADATA}{OAUTH_MCP_PATH}", ResourceMetadataView.as_view(path=OAUTH_MCP_PATH)),
    path("oauth/authorize", ConsentView.as_view(), name="authorize"),
    path("oauth/token", toolkit.TokenView.as_view(), name="token"),
    path("oauth/revoke", toolkit.RevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/register", toolkit.DynamicClientRegistrationView.as_view(), name="dcr-register"),
    path("oauth/register/<str:client_id>", toolkit.DynamicClientRegistrationManagementView.as_view(),
         name="dcr-register-management"),
]
