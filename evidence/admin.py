"""The evidence profile in the moderators' console (§18). Artifacts: listed and read by staff, redacted by
the human (a button on the artifact's page, and an action on the list), through the one service. A claim's
page shows the artifacts its proofs name: text inline and escaped, anything else as a download, and for
another realm's attestation who signed it and whether it is trusted now. The realms this one trusts:
added with their JWKS, updated and removed by moderators, through evidence.trust. This realm's keys, read
only: they change through `manage.py parley_keys`."""
from django import forms
from django.contrib import admin
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _, gettext_lazy

from console.access import StaffReadOnly
from console.door import act
from dialectic.admin import show_proofs_of
from evidence import media, storage
from evidence.envelopes import attests_view
from evidence.keys import listed_keys
from evidence.models import Artifact, RealmKey, TrustedRealm
from evidence.operations import redact_input
from evidence.selectors import artifact_find, parse_id
from evidence.services import artifact_redact
from evidence.trust import OWN_REALM, clean_jwks, realm_distrust, realm_trust
from forum.actors import Actor

INLINE_MAX_BYTES = 16384  # the text a claim page shows of one artifact; the download has the rest


def bytes_url(artifact):
    return f"/api/v1/artifacts/{artifact.pk}"


def download_link(artifact):
    return format_html('<a href="{}" download>{}</a>', bytes_url(artifact), _("download"))


def page_url(artifact):
    return reverse("admin:evidence_artifact_change", args=[quote(artifact.pk)])


def artifact_proof(proof, note):
    """An artifact proof on a claim's page: what it names, as the console may show it."""
    artifact = artifact_find(parse_id(proof["ref"]) or "")
    if artifact is None:
        return format_html(_("artifact: <code>{}</code> (not stored){}"), proof["ref"], note)
    heading = format_html(_('artifact: <a href="{}"><code>{}</code></a> ({} bytes, {}){}{}'), page_url(artifact),
                          artifact.pk, artifact.size, artifact.media_type, note, attested(artifact))
    if artifact.redacted_at is not None:
        return format_html(_("{} — redacted by {} at {}"), heading, artifact.redacted_by, artifact.redacted_at)
    download = download_link(artifact)
    if not media.is_textual(artifact.media_type):
        return format_html("{} {}", heading, download)
    text = storage.head(artifact.storage_name, INLINE_MAX_BYTES).decode("utf-8", errors="replace")
    more = "…" if artifact.size > INLINE_MAX_BYTES else ""
    return format_html('{} {}<pre class="artifact-text">{}{}</pre>', heading, download, text, more)


def attestation(artifact):
    """What another realm's signed attestation says, its signature checked at upload, trusted now or not;
    None for an artifact that is no attestation."""
    seen = attests_view(artifact.attests)
    if seen is None:
        return None
    trusted = _("trusted now") if seen["trusted"] else _("NOT trusted now (realm or key withdrawn)")
    return format_html(
        _("realm <strong>{}</strong> found {} {} ({}), signed {} by key <code>{}</code>; signature checked at "
          "upload; {}"), seen["realm"], seen["claim"], seen["state"], seen["certainty"], seen["signed_at"],
        seen["kid"], trusted)


def attested(artifact):
    found = attestation(artifact)
    return format_html(_(" — attestation: {}"), found) if found else ""


show_proofs_of("artifact", artifact_proof)


class ArtifactAdmin(StaffReadOnly, admin.ModelAdmin):
    list_display = ["id", "size", "media_type", "uploaded_identity", "created_at", "redacted"]
    list_filter = ["media_type", ("redacted_at", admin.EmptyFieldListFilter)]
    search_fields = ["id", "uploaded_identity"]
    ordering = ["-created_at"]
    fields = ["id", "size", "media_type", "uploaded_identity", "uploaded_kind", "created_at", "attests_now",
              "download", "redacted_by", "redacted_at", "redacted_reason"]
    readonly_fields = fields
    actions = ["redact"]
    change_form_template = "admin/evidence/artifact/change_form.html"

    @admin.display(boolean=True, description=gettext_lazy("redacted"), ordering="redacted_at")
    def redacted(self, artifact):
        return artifact.redacted_at is not None

    @admin.display(description=gettext_lazy("attests"))
    def attests_now(self, artifact):
        return attestation(artifact) or "—"

    @admin.display(description=gettext_lazy("bytes"))
    def download(self, artifact):
        if artifact.redacted_at is not None:
            return _("erased")
        return format_html(_("{} (served as {})"), download_link(artifact), media.served(artifact.media_type))

    @admin.action(description=gettext_lazy("Redact the selected artifacts (erase their bytes)"),
                  permissions=["moderate"])
    def redact(self, request, queryset):
        for artifact in queryset.order_by("pk"):
            self.redact_one(request, artifact.pk)

    def redact_one(self, request, artifact_id):
        reason = request.POST.get("reason", "").strip()

        def run():
            if reason:  # checked as the operation checks it (evidence.operations)
                redact_input().validate({"artifact": artifact_id, "reason": reason})
            return artifact_redact(Actor.for_user(request.user), artifact_id, reason)
        act(self, request, "redact_artifact", artifact_id, run, lambda _artifact: _("redacted; its bytes are erased"))

    def get_urls(self):
        redact_url = path("<path:object_id>/redact/", self.admin_site.admin_view(self.redact_view),
                          name="evidence_artifact_redact")
        return [redact_url, *super().get_urls()]

    def redact_view(self, request, object_id):
        """The artifact page's button (POST): redact this one artifact."""
        if request.method != "POST" or not self.has_moderate_permission(request):
            raise PermissionDenied
        artifact = self.get_object(request, unquote(object_id))
        if artifact is None:
            raise PermissionDenied
        self.redact_one(request, artifact.pk)
        return redirect(page_url(artifact))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = {"can_moderate": self.has_moderate_permission(request), **(extra_context or {})}
        return super().change_view(request, object_id, form_url, extra_context)


class TrustedRealmForm(forms.ModelForm):
    jwks = forms.JSONField(label="JWKS", help_text=gettext_lazy(
        "The realm's /.well-known/parley-keys.json: its Ed25519 keys, each naming this realm"))

    class Meta:
        model = TrustedRealm
        fields = ["realm", "jwks"]

    def clean(self):
        cleaned = super().clean()
        if "realm" in cleaned and "jwks" in cleaned:
            try:
                clean_jwks(cleaned["realm"], cleaned["jwks"])
            except ValidationError as problem:
                self.add_error("realm" if problem.code == OWN_REALM else "jwks", problem)
        return cleaned


class TrustedRealmAdmin(StaffReadOnly, admin.ModelAdmin):
    form = TrustedRealmForm
    list_display = ["realm", "key_ids", "added_at", "added_by"]
    ordering = ["realm"]
    readonly_fields = ["added_at", "added_by"]

    def has_add_permission(self, request):
        return self.has_moderate_permission(request)

    def has_change_permission(self, request, obj=None):
        return self.has_moderate_permission(request)

    def has_delete_permission(self, request, obj=None):
        return self.has_moderate_permission(request)

    def get_readonly_fields(self, request, obj=None):
        # A realm's name is what its attestations are checked against: change its keys, not its name.
        return ["realm", *self.readonly_fields] if obj else self.readonly_fields

    @admin.display(description=gettext_lazy("key ids"))
    def key_ids(self, trusted):
        return ", ".join(key["kid"] for key in trusted.jwks["keys"])

    def save_model(self, request, obj, form, change):
        trusted, _ = realm_trust(Actor.for_user(request.user), obj.realm, form.cleaned_data["jwks"])
        obj.pk, obj.added_at, obj.added_by = trusted.pk, trusted.added_at, trusted.added_by

    def delete_model(self, request, obj):
        realm_distrust(obj.realm)

    def delete_queryset(self, request, queryset):
        for trusted in queryset:
            realm_distrust(trusted.realm)


class RealmKeyAdmin(StaffReadOnly, admin.ModelAdmin):
    list_display = ["kid", "status", "created_at", "retired_at"]
    fields = list_display
    readonly_fields = list_display
    ordering = ["-created_at"]

    @admin.display(description=gettext_lazy("status"))
    def status(self, key):
        if key.retired_at:
            return _("retired")
        return _("signing") if key == listed_keys().first() else _("listed")


admin.site.register(Artifact, ArtifactAdmin)
admin.site.register(TrustedRealm, TrustedRealmAdmin)
admin.site.register(RealmKey, RealmKeyAdmin)
