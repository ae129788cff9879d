from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self):
        # The core never imports webhooks: they listen to its writes' announcements (forum.announce).
        from webhooks import announce

        announce.connect()
