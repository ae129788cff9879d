from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self):
        # The core never imports webhooks: they listen to the rows its writes save.
        from webhooks import announce

        announce.connect()
