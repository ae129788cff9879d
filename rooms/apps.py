from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RoomsConfig(AppConfig):
    name = "rooms"
    verbose_name = _("Rooms")

    def ready(self):
        # The core never imports a profile; the profile plugs its sight, its room field and its operations in.
        from forum.profiles import register
        from rooms.operations import register_operations
        from rooms.profile import rooms_profile

        register(rooms_profile())
        register_operations()
