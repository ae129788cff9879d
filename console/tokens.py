"""Agent tokens in the console (§3): create (the secret is shown once, on the answer to the creating
request, and never stored or shown again), set rights and label, revoke. Django's own token permissions
decide who may manage them."""
from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.utils.html import format_html

from console.forms import TokenCreateForm, TokenForm
from forum.actors import Actor
from forum.tokens import token_create, token_revoke, token_update

TOKEN_RECORD_FIELDS = ["identity", "handle", "created_at", "last_used_at", "write_count", "revoked_at"]


@admin.action(description="Revoke the selected tokens", permissions=["change"])
def revoke(modeladmin, request, queryset):
    actor = Actor.for_user(request.user)
    for token in queryset.order_by("pk"):
        if not token_revoke(actor, token.pk):
            modeladmin.message_user(request, f"{token.identity}: already revoked", messages.WARNING)
            continue
        modeladmin.message_user(request, f"{token.identity}: revoked; its requests now get token_invalid",
                                messages.SUCCESS)


class TokenAdmin(admin.ModelAdmin):
    list_display = ["identity", "label", "rights_column", "status", "last_used_at", "write_count", "created_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["identity", "label"]
    ordering = ["identity"]
    actions = [revoke]

    def has_delete_permission(self, request, obj=None):
        return False  # messages keep pointing at their token; a line is revoked, never erased

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = TokenForm if obj else TokenCreateForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["handle", "label", "rights"]
        return ["label", "rights", *TOKEN_RECORD_FIELDS]

    def get_readonly_fields(self, request, obj=None):
        return TOKEN_RECORD_FIELDS if obj else []

    @admin.display(description="rights")
    def rights_column(self, token):
        return ", ".join(sorted(token.rights))

    @admin.display(description="status", ordering="revoked_at")
    def status(self, token):
        badge, text = ("rejected", "revoked") if token.revoked_at else ("open", "active")
        return format_html('<span class="parley-badge parley-{}">{}</span>', badge, text)

    def save_model(self, request, obj, form, change):
        rights, label = set(form.cleaned_data["rights"]), form.cleaned_data["label"]
        actor = Actor.for_user(request.user)
        if change:
            token_update(actor, obj.pk, rights, label)
            return
        token, secret = token_create(actor, form.cleaned_data["handle"], rights, label)
        obj.pk = token.pk
        obj.refresh_from_db()
        # Handed straight to response_add: never in the session, a message cookie or the log.
        request.parley_token_secret = secret

    def response_add(self, request, obj, post_url_continue=None):
        response = TemplateResponse(request, "admin/forum/token/created.html", {
            **self.admin_site.each_context(request), "opts": self.opts, "token": obj,
            "rights": self.rights_column(obj), "secret": request.parley_token_secret,
            "title": f"Token created: {obj.identity}",
        })
        response["Cache-Control"] = "no-store"
        return response
