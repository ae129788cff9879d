"""OAuth grants in the console: which client acts as which line, with which rights, granted by whom, last
used when; and their revocation. A human sees and revokes the grants they made; with Django's permissions on
grants (`oauth.view_linegrant`, `oauth.change_linegrant`) everyone's. django-oauth-toolkit's own rows
(clients, codes, tokens) stay out of the console: the grant is what a human decides about."""
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _, gettext_lazy
from oauth2_provider.models import (get_access_token_model, get_application_model, get_grant_model,
                                    get_id_token_model, get_refresh_token_model)

from oauth.clients import origin_of
from oauth.models import LineGrant
from oauth.policies import is_console_user, may_grant
from oauth.services import grant_revoke

for model in (get_application_model(), get_access_token_model(), get_grant_model(), get_id_token_model(),
              get_refresh_token_model()):
    if admin.site.is_registered(model):
        admin.site.unregister(model)


@admin.action(description=gettext_lazy("Revoke the selected grants"), permissions=["revoke"])
def revoke(modeladmin, request, queryset):
    for grant in queryset.select_related("token", "application").order_by("pk"):
        if not modeladmin.may_revoke(request, grant):
            modeladmin.message_user(request, _("%(grant)s: only who granted it may revoke it") % {"grant": grant},
                                    messages.WARNING)
        elif grant_revoke(request.user, grant.pk):
            modeladmin.log_change(request, grant, "Revoked.")
            modeladmin.message_user(request, _("%(grant)s: revoked; its client's tokens now get token_invalid") % {
                "grant": grant}, messages.SUCCESS)
        else:
            modeladmin.message_user(request, _("%(grant)s: already revoked") % {"grant": grant}, messages.WARNING)


@admin.register(LineGrant)
class LineGrantAdmin(admin.ModelAdmin):
    list_display = ["client", "line", "rights_column", "status", "granted_by", "created_at", "last_used_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    list_select_related = ["application", "token", "granted_by"]
    search_fields = ["application__name", "application__client_id", "token__identity"]
    ordering = ["-created_at"]
    actions = [revoke]
    fields = ["client", "client_origin", "line", "rights_column", "granted_by", "created_at", "last_used_at",
              "revoked_at"]
    readonly_fields = fields

    def get_queryset(self, request):
        grants = super().get_queryset(request)
        return grants if request.user.has_perm("oauth.view_linegrant") else grants.filter(granted_by=request.user)

    def has_module_permission(self, request):
        return is_console_user(request.user) and (may_grant(request.user) or request.user.has_perm(
            "oauth.view_linegrant"))

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_add_permission(self, request):
        return False  # a grant is made by a client's request and a human's consent (oauth.views)

    def has_change_permission(self, request, obj=None):
        return False  # revoked by the action, never edited

    def has_delete_permission(self, request, obj=None):
        return False  # a revoked grant stays, as a record of who let which client act as a line

    def has_revoke_permission(self, request):
        return self.has_module_permission(request)

    def may_revoke(self, request, grant):
        return grant.granted_by_id == request.user.pk or request.user.has_perm("oauth.change_linegrant")

    @admin.display(description=gettext_lazy("client"), ordering="application__name")
    def client(self, grant):
        return grant.application.name or grant.application.client_id

    @admin.display(description=gettext_lazy("where the client comes from"))
    def client_origin(self, grant):
        return f"{grant.application.client_id} — {origin_of(grant.application)}"

    @admin.display(description=gettext_lazy("line"), ordering="token__identity")
    def line(self, grant):
        return grant.token.identity

    @admin.display(description=gettext_lazy("rights"))
    def rights_column(self, grant):
        return ", ".join(sorted(grant.granted_rights)) or _("none")

    @admin.display(description=gettext_lazy("status"), ordering="revoked_at")
    def status(self, grant):
        line = grant.token
        if grant.revoked_at:
            badge, text = "rejected", _("revoked")
        elif line.revoked_at:
            badge, text = "rejected", _("line revoked")
        elif line.expires_at and line.expires_at <= timezone.now():
            badge, text = "rejected", _("line expired")
        else:
            badge, text = "open", _("active")
        return format_html('<span class="parley-badge parley-{}">{}</span>', badge, text)
