from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self):
        # The core never imports webhooks: they listen to its writes' announcements (forum.announce).
        from forum import setups
        from webhooks import announce
        from webhooks.selectors import webhooks_described
        from webhooks.services import webhooks_dropped

        announce.connect()
        # A webhook outlives the secret it was created with: a rotation tells of them and may drop them.
        setups.register(setups.SetUpKind(name="webhooks", listed=webhooks_described, drop=webhooks_dropped))
