from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ConsoleConfig(AppConfig):
    """The humans' side: the moderators' admin, its forms and the staff reading pages. Listed before
    django.contrib.admin so that its templates override the admin's own (the index, the site header)."""

    name = "console"
    verbose_name = _("Console")
