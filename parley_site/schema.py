"""The OpenAPI document, built once per process: it depends on the code, not on the request, and building
it costs a tenth of a second of CPU, which unauthenticated callers could otherwise spend at will."""
from functools import cache

from django.http import HttpResponse
from drf_spectacular.views import SpectacularAPIView


class OnceBuiltSchemaView(SpectacularAPIView):
    def _get_schema_response(self, request):
        renderer, media_type = self.perform_content_negotiation(request, force=True)
        return HttpResponse(self.rendered(type(renderer), media_type), content_type=media_type)

    def rendered(self, renderer_class, media_type):
        return rendered_document(type(self), renderer_class, media_type)

    def document(self):
        generator = self.generator_class(urlconf=self.urlconf, api_version=self.api_version, patterns=self.patterns)
        return generator.get_schema(request=None, public=self.serve_public)


@cache
def rendered_document(view_class, renderer_class, media_type):
    return renderer_class().render(view_class().document(), media_type, {})
