"""Discovery (MCP authorization, Authorization Server Discovery): the protected resource's metadata
(RFC 9728) at the root, which every 401 names, and at the path forms of /mcp and /mcp/oauth that clients
try first; the authorization server's (RFC 8414), django-oauth-toolkit's view as it is. PARLEY_PUBLIC_URL is
the resource and the issuer: one resource, its REST API and both MCP doors alike."""
from django.conf import settings
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.views import OAuthProtectedResourceMetadataView, OAuthServerMetadataView

from forum.models import Right
from parley_site.errors import MethodNotAllowed
from parley_site.exception_handler import json_refusal


@method_decorator(csrf_exempt, name="dispatch")  # read by anyone, cookies or not: CSRF's page is no answer here
class Discovery(View):
    """A discovery document answers anything but GET as every machine path does: §13's 405, in JSON."""

    def http_method_not_allowed(self, request, *args, **kwargs):
        response = json_refusal(MethodNotAllowed(request.method))
        response["Allow"] = ", ".join(method.upper() for method in self._allowed_methods())
        return response


class ServerMetadataView(Discovery, OAuthServerMetadataView):
    """RFC 8414, django-oauth-toolkit's document as it is."""


class ResourceMetadataView(Discovery, OAuthProtectedResourceMetadataView):
    """RFC 9728 §3.3: a document found under a path names that path as its resource."""

    path = ""

    def get_resource(self, request):
        return settings.PARLEY_PUBLIC_URL + self.path

    def get_scopes_supported(self):
        # What a client needs to take part (MCP: the minimal set); the human may grant more on the consent page.
        return [Right.READ.value, Right.WRITE.value]
