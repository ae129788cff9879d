from django.apps import AppConfig


class ForumConfig(AppConfig):
    name = "forum"

    def ready(self):
        from forum.api import schema  # noqa: F401  registers the OpenAPI authentication extensions
        from forum import feed, feed_notify

        feed.register_profile()  # profile `feed` (§16): wait, the event stream
        feed_notify.connect()
