from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OAuthConfig(AppConfig):
    name = "oauth"
    verbose_name = _("OAuth clients")

    def ready(self):
        # The core never imports this app: its access tokens join the core's authentication here.
        from forum import credentials
        from oauth.authentication import ACCESS_TOKENS

        credentials.register(ACCESS_TOKENS)
