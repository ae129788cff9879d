from django.apps import AppConfig


class ForumConfig(AppConfig):
    name = "forum"

    def ready(self):
        from forum import operations  # noqa: F401  registers the core's operations, before any profile's
        from forum.api import schema  # noqa: F401  registers the OpenAPI authentication extensions
