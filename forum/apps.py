from django.apps import AppConfig


class ForumConfig(AppConfig):
    name = "forum"

    def ready(self):
        from forum.api import schema  # noqa: F401  registers the OpenAPI authentication extensions
