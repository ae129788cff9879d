from django.apps import AppConfig


class EvidenceConfig(AppConfig):
    name = "evidence"
    verbose_name = "Evidence: artifacts, attestations, quorum"

    def ready(self):
        # The core never imports a profile; the profile plugs its operations and its proof rule in.
        from evidence.operations import register_operations
        from evidence.profile import evidence_profile
        from forum.profiles import register

        register(evidence_profile())
        register_operations()
