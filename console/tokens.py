"""Agent tokens in the console (§3): create (the secret is shown once, on the answer to the creating
request, and never stored or shown again), set rights, label and expiry, rotate the secret (the new one
shown once likewise), revoke. Django's own token permissions decide who may manage them; every change a
human makes here is in the admin's log (LogEntry), saying what changed, and never holds a secret."""
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _, gettext_lazy

from console.forms import TokenCreateForm, TokenForm, TokenRotateForm
from forum import setups
from forum.actors import Actor
from forum.tokens import token_create, token_revoke, token_rotate, token_update
from parley_site.errors import ParleyError

TOKEN_RECORD_FIELDS = ["identity", "handle", "created_at", "last_used_at", "write_count", "revoked_at",
                       "previous_secret_ends_at"]


@admin.action(description=gettext_lazy("Revoke the selected tokens"), permissions=["change"])
def revoke(modeladmin, request, queryset):
    actor = Actor.for_user(request.user)
    for token in queryset.order_by("pk"):
        if not token_revoke(actor, token.pk):
            modeladmin.message_user(request, _("%(identity)s: already revoked") % {"identity": token.identity},
                                    messages.WARNING)
            continue
        modeladmin.log_change(request, token, "Revoked.")
        modeladmin.message_user(request, _("%(identity)s: revoked; its requests now get token_invalid") % {
            "identity": token.identity}, messages.SUCCESS)


@admin.action(description=gettext_lazy("Rotate secret"), permissions=["change"])
def rotate(modeladmin, request, queryset):
    """First a page that asks for the grace period and whether the tokens' webhooks go too, listing them;
    its answer rotates, and shows each new secret once with what was deleted and what stays."""
    tokens = list(queryset.order_by("pk"))
    form = TokenRotateForm(request.POST if "apply" in request.POST else None)
    if not form.is_valid():
        return _no_store(TemplateResponse(request, "admin/forum/token/rotate.html", {
            **modeladmin.admin_site.each_context(request), "opts": modeladmin.opts, "form": form,
            "tokens": [(token, setups.set_ups_of(token.pk)) for token in tokens],
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME, "title": _("Rotate secrets"),
        }))
    actor, grace, rotated = Actor.for_user(request.user), form.cleaned_data["grace"], []
    for token in tokens:
        try:
            rotation = token_rotate(actor, token.pk, grace, form.dropped())
        except ParleyError as problem:
            modeladmin.message_user(request, problem.message, messages.WARNING)
            continue
        modeladmin.log_change(request, rotation.token, rotation_message(rotation))
        rotated.append(rotation)
    # The secrets are handed straight to this answer: never in the session, a message cookie or the log.
    return _no_store(TemplateResponse(request, "admin/forum/token/rotated.html", {
        **modeladmin.admin_site.each_context(request), "opts": modeladmin.opts, "rotated": rotated,
        "title": _("Secrets rotated"),
    }))


# The admin's log is a record every moderator reads, whatever their language: its entries are written in
# English, as the values in them (rights, ISO times) are.
def rotation_message(rotation):
    # How many it deleted, not their urls: a receiver's url may carry its credentials in its path.
    token, dropped = rotation.token, "".join(
        f" Deleted its {name} ({len(items)})." for name, items in rotation.dropped.items())
    if token.previous_secret_ends_at:
        return (f"Rotated the secret; the old one works until {token.previous_secret_ends_at.isoformat()}."
                f"{dropped}")
    return f"Rotated the secret; the old one stopped at once.{dropped}"


def _no_store(response):
    response["Cache-Control"] = "no-store"
    return response


class TokenAdmin(admin.ModelAdmin):
    list_display = ["identity", "label", "rights_column", "status", "expires_at", "last_used_at", "write_count",
                    "created_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["identity", "label"]
    ordering = ["identity"]
    actions = [rotate, revoke]

    def has_delete_permission(self, request, obj=None):
        return False  # messages keep pointing at their token; a line is revoked, never erased

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = TokenForm if obj else TokenCreateForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["handle", "label", "rights", "expires_at"]
        return ["label", "rights", "expires_at", *TOKEN_RECORD_FIELDS]

    def get_readonly_fields(self, request, obj=None):
        return TOKEN_RECORD_FIELDS if obj else []

    @admin.display(description=gettext_lazy("rights"))
    def rights_column(self, token):
        return ", ".join(sorted(token.rights))

    @admin.display(description=gettext_lazy("status"), ordering="revoked_at")
    def status(self, token):
        if token.revoked_at:
            badge, text = "rejected", _("revoked")
        elif token.expires_at and token.expires_at <= timezone.now():
            badge, text = "rejected", _("expired")
        else:
            badge, text = "open", _("active")
        return format_html('<span class="parley-badge parley-{}">{}</span>', badge, text)

    def save_model(self, request, obj, form, change):
        rights, label = set(form.cleaned_data["rights"]), form.cleaned_data["label"]
        expires_at, actor = form.cleaned_data["expires_at"], Actor.for_user(request.user)
        if change:
            token_update(actor, obj.pk, rights, label, expires_at)
            return
        token, secret = token_create(actor, form.cleaned_data["handle"], rights, label, expires_at)
        obj.pk = token.pk
        obj.refresh_from_db()
        # Handed straight to response_add: never in the session, a message cookie or the log.
        request.parley_token_secret = secret

    def construct_change_message(self, request, form, formsets, add=False):
        """What the admin's log says of a create or change: the values themselves (never a secret), which
        a reader of the history needs more than the names of the fields."""
        data = form.cleaned_data
        expiry = data["expires_at"].isoformat() if data.get("expires_at") else "never"
        rights = ",".join(sorted(data["rights"])) or "none"
        if add:
            return f"Created with rights {rights}, label {data['label'] or data['handle']!r}, expiring {expiry}."
        changed = {"label": f"label to {data['label']!r}", "rights": f"rights to {rights}",
                   "expires_at": f"expiry to {expiry}"}
        parts = [text for field, text in changed.items() if field in form.changed_data]
        return f"Changed {'; '.join(parts)}." if parts else "No fields changed."

    def response_add(self, request, obj, post_url_continue=None):
        return _no_store(TemplateResponse(request, "admin/forum/token/created.html", {
            **self.admin_site.each_context(request), "opts": self.opts, "token": obj,
            "rights": self.rights_column(obj), "secret": request.parley_token_secret,
            "title": _("Token created: %(identity)s") % {"identity": obj.identity},
        }))
