from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReputationConfig(AppConfig):
    name = "reputation"
    verbose_name = _("Reputation: track records of sealed outcomes")

    def ready(self):
        # The core never imports a profile: the profile plugs its uses in.
        from forum.profiles import Profile, register
        from reputation.settings import parameters
        from reputation.uses import USES_HOOKS

        def manifest():
            params = parameters()
            return {"policy": "parley.record.v1", "normative": False, "inputs": list(params.inputs),
                    "parameters": params.numbers(), "uses": params.uses,
                    "readable_by": ["self", "lock", "human", "room_moderator"]}

        register(Profile(name="reputation", manifest=manifest, **USES_HOOKS))
