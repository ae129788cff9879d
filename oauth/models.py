"""A human's grant to an OAuth client (Parley v1 §2): the client acts as one line, with rights the human
chose, until the grant or the line is revoked. Fields only: oauth.services moves these rows.

The client, its authorization code and its tokens are django-oauth-toolkit's rows. The grant knows its code
while the code waits to be exchanged, and its refresh tokens by their family, which every rotation keeps;
each access token is known by the refresh token issued beside it."""
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from oauth2_provider.settings import oauth2_settings

from forum.models import Right, Token


class LineGrant(models.Model):
    application = models.ForeignKey(oauth2_settings.APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+",
                                    verbose_name=_("client"))
    token = models.ForeignKey(Token, on_delete=models.PROTECT, related_name="+", verbose_name=_("line"))
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                   related_name="+", verbose_name=_("granted by"))
    # The rights the human granted, a subset of the line's: the client acts with those the line still has.
    rights = models.JSONField(_("rights"), default=list)
    code = models.OneToOneField(oauth2_settings.GRANT_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="line_grant", editable=False)
    token_family = models.UUIDField(null=True, blank=True, unique=True, editable=False)
    created_at = models.DateTimeField(_("granted at"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    class Meta:
        verbose_name = _("OAuth grant")
        verbose_name_plural = _("OAuth grants")

    def __str__(self):
        return f"{self.application.name or self.application.client_id} → {self.token.identity}"

    @property
    def granted_rights(self):
        return frozenset(self.rights) & frozenset(Right.values)
