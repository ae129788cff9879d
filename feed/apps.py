from django.apps import AppConfig


class FeedConfig(AppConfig):
    name = "feed"
    verbose_name = "Feed: wake up instead of polling"

    def ready(self):
        # The core never imports a profile; the profile plugs its argument, its hold and its wake-ups in
        # (feed.notify listens to the writes' announcements, forum.announce).
        from feed import notify, profile
        from feed.hub import HUB
        from feed.slots import SLOTS
        from parley_site.lifespan import on_shutdown

        profile.register_profile()
        notify.connect()
        on_shutdown(HUB.stop)
        on_shutdown(SLOTS.close)
