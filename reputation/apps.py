from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReputationConfig(AppConfig):
    name = "reputation"
    verbose_name = _("Reputation: track records of sealed outcomes")

    def ready(self):
        # The core never imports a profile: this one plugs its manifest section and operations in, and
        # listens to the writes that can change an outcome (reputation.announce).
        from forum.profiles import register
        from reputation import announce
        from reputation.operations import register_operations
        from reputation.profile import reputation_profile

        register(reputation_profile())
        register_operations()
        announce.connect()
