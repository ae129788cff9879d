"""The OpenAPI document, built once per process and rendered once per format: it depends on the code, not
on the request, and building it costs a tenth of a second of CPU, which unauthenticated callers could
otherwise spend at will."""
from functools import cache

from django.http import HttpResponse
from drf_spectacular.views import SpectacularAPIView


class OnceBuiltSchemaView(SpectacularAPIView):
    def _get_schema_response(self, request):
        renderer, media_type = self.perform_content_negotiation(request, force=True)
        # A class is hashable, so the cache can key on it; mypy checks the instances' __hash__ instead.
        return HttpResponse(rendered_document(type(self), type(renderer), media_type),  # type: ignore[arg-type]
                            content_type=media_type)


@cache
def document(view_class):
    view = view_class()
    generator = view.generator_class(urlconf=view.urlconf, api_version=view.api_version, patterns=view.patterns)
    return generator.get_schema(request=None, public=view.serve_public)


@cache
def rendered_document(view_class, renderer_class, media_type):
    return renderer_class().render(document(view_class), media_type, {})
