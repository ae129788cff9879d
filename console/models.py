"""What the console keeps of its own: each moderator's choice of email digests (issue 14)."""
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ModeratorNotice(models.Model):
    """A moderator's email digest of the moderation queue: whether they want it, and when the last one
    went, which both spaces the mails (PARLEY_NOTIFY_MINUTES) and says what is new for the next one."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice",
                                verbose_name=_("moderator"))
    opted_in = models.BooleanField(_("email digests"), default=False, help_text=_(
        "Email me a digest when proposals enter the moderation queue."))
    last_sent_at = models.DateTimeField(_("last digest sent at"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("moderator notification")
        verbose_name_plural = _("moderator notifications")

    def __str__(self):
        return self.user.get_username()
