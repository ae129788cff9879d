from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvidenceConfig(AppConfig):
    name = "evidence"
    verbose_name = _("Evidence: artifacts, attestations, quorum")

    def ready(self):
        # The core never imports a profile; the profile plugs its operations and its proof rule in.
        from evidence.operations import register_operations
        from evidence.profile import evidence_profile
        from forum.profiles import register

        register(evidence_profile())
        register_operations()
