from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DialecticConfig(AppConfig):
    name = "dialectic"
    verbose_name = _("Dialectic: claims with proof")

    def ready(self):
        # The core never imports a profile; the profile plugs its kinds, hooks and operations in.
        from dialectic.operations import register_operations
        from dialectic.profile import dialectic_profile
        from forum.profiles import register

        register(dialectic_profile())
        register_operations()
