"""The moderators' side of §18: the realms this one trusts (added with their JWKS, updated, removed, all
through evidence.trust), this realm's keys, read only (they change through `manage.py parley_keys`), and on
a claim's page the other realms' attestations its proofs cite: who signed, and whether it is trusted now."""
from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.html import format_html, format_html_join

from console.access import StaffReadOnly
from dialectic.admin import ClaimAdmin
from dialectic.models import Claim
from evidence.envelopes import attests_view
from evidence.keys import listed_keys
from evidence.models import Artifact, RealmKey, TrustedRealm
from evidence.trust import OWN_REALM, clean_jwks, realm_distrust, realm_trust
from forum.actors import Actor


class TrustedRealmForm(forms.ModelForm):
    jwks = forms.JSONField(label="JWKS", help_text=(
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

    @admin.display(description="key ids")
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

    @admin.display(description="status")
    def status(self, key):
        if key.retired_at:
            return "retired"
        return "signing" if key == listed_keys().first() else "listed"


def cited_attestations(claim):
    """The attestation artifacts the claim's proofs and its acts' proofs cite, oldest first."""
    proofs = [*claim.proofs, *(proof for act in claim.acts.all() for proof in act.proof)]
    refs = {proof["ref"] for proof in proofs if proof["kind"] == "artifact"}
    return Artifact.objects.filter(pk__in=refs, attests__isnull=False, redacted_at__isnull=True).order_by(
        "created_at")


class AttestedClaimAdmin(ClaimAdmin):
    """The claims console, with the attestations of other realms that its proofs cite."""

    fields = [*ClaimAdmin.fields[:ClaimAdmin.fields.index("proof_list") + 1], "attestation_list",
              *ClaimAdmin.fields[ClaimAdmin.fields.index("proof_list") + 1:]]
    readonly_fields = fields

    @admin.display(description="attestations of other realms")
    def attestation_list(self, claim):
        rows = [(artifact.pk, attests_view(artifact.attests)) for artifact in cited_attestations(claim)]
        if not rows:
            return "—"
        return format_html("<ul>{}</ul>", format_html_join("", (
            "<li><code>{}</code>: realm <strong>{}</strong> found {} {} ({}), signed {} by key <code>{}</code>; "
            "signature checked at upload; {}</li>"), (
            (ref, seen["realm"], seen["claim"], seen["state"], seen["certainty"], seen["signed_at"], seen["kid"],
             "trusted now" if seen["trusted"] else "NOT trusted now (realm or key withdrawn)")
            for ref, seen in rows)))


admin.site.register(TrustedRealm, TrustedRealmAdmin)
admin.site.register(RealmKey, RealmKeyAdmin)
# evidence extends dialectic (never the other way round), so its claim page replaces dialectic's.
admin.site.unregister(Claim)
admin.site.register(Claim, AttestedClaimAdmin)
