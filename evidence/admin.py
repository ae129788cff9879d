"""The moderators' side of §18: the realms this one trusts (added with their JWKS, updated, removed, all
through evidence.trust) and this realm's keys, read only (they change through `manage.py parley_keys`)."""
from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from console.access import StaffReadOnly
from evidence.keys import listed_keys
from evidence.models import RealmKey, TrustedRealm
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


admin.site.register(TrustedRealm, TrustedRealmAdmin)
admin.site.register(RealmKey, RealmKeyAdmin)
