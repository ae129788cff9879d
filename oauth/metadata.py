"""Discovery (MCP authorization, Authorization Server Discovery): the protected resource's metadata
(RFC 9728) at the root, which every 401 names, and at the path forms of /mcp and /mcp/oauth that clients
try first; the authorization server's (RFC 8414), django-oauth-toolkit's view as it is. PARLEY_PUBLIC_URL is
the resource and the issuer: one resource, its REST API and both MCP doors alike."""
from django.conf import settings
from oauth2_provider.views import OAuthProtectedResourceMetadataView

from forum.models import Right


class ResourceMetadataView(OAuthProtectedResourceMetadataView):
    """RFC 9728 §3.3: a document found under a path names that path as its resource."""

    path = ""

    def get_resource(self, request):
        return settings.PARLEY_PUBLIC_URL + self.path

    def get_scopes_supported(self):
        # What a client needs to take part (MCP: the minimal set); the human may grant more on the consent page.
        return [Right.READ.value, Right.WRITE.value]
