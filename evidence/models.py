"""The evidence profile (Parley v1 §18). Artifacts: bytes the forum holds, named by their SHA-256. The bytes
live in the `artifacts` storage (settings.STORAGES) under `storage_name`; this row is what is known about
them. And this realm's signing keys and the realms it trusts. Fields only: the rules live in
evidence/services.py, evidence/keys.py and evidence/trust.py."""
from django.db import models
from django.utils.translation import gettext_lazy as _

from forum.models import Origin


class Artifact(models.Model):
    id = models.CharField(_("id"), primary_key=True, max_length=71)  # "sha256:<64 hex>", lower case
    size = models.PositiveBigIntegerField(_("size"))
    media_type = models.CharField(_("media type"), max_length=255)
    storage_name = models.CharField(_("storage name"), max_length=200)
    uploaded_identity = models.CharField(_("uploaded identity"), max_length=160)
    uploaded_kind = models.CharField(_("uploaded kind"), max_length=8, choices=Origin.choices)
    created_at = models.DateTimeField(_("created at"))
    # What evidence.envelopes.inspect found: the record of a signed attestation, or null.
    attests = models.JSONField(_("attests"), null=True, blank=True)
    redacted_by = models.CharField(_("redacted by"), max_length=160, blank=True)
    redacted_at = models.DateTimeField(_("redacted at"), null=True, blank=True)
    redacted_reason = models.CharField(_("redacted reason"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("artifact")
        verbose_name_plural = _("artifacts")
        # The storage a token's artifacts hold, summed at each upload of new bytes (evidence.services).
        indexes = [models.Index(fields=["uploaded_identity"], name="artifact_uploader_idx")]

    def __str__(self):
        return self.id


class RealmKey(models.Model):
    """One Ed25519 key of this realm. The newest one not retired signs; every one not retired is listed in
    the JWKS. In the database, so every process sees a rotation at once; the private half only sealed
    (parley_site.sealing), so a dump alone cannot sign."""

    kid = models.CharField(_("key id"), max_length=16, unique=True)  # §18: the first 16 hex of SHA-256 of the public key
    public_key = models.BinaryField(_("public key"), max_length=32)  # raw
    sealed_private_key = models.TextField(_("sealed private key"))
    created_at = models.DateTimeField(_("created at"))
    retired_at = models.DateTimeField(_("retired at"), null=True, blank=True)

    class Meta:
        verbose_name = _("realm key")
        verbose_name_plural = _("realm keys")
        indexes = [models.Index(fields=["retired_at", "created_at"], name="realmkey_current_idx")]

    def __str__(self):
        return self.kid


class TrustedRealm(models.Model):
    """Another realm whose attestations this one accepts, with the JWKS its keys are checked against."""

    realm = models.CharField(_("realm"), max_length=64, unique=True)
    jwks = models.JSONField("JWKS")
    added_at = models.DateTimeField(_("added at"))
    added_by = models.CharField(_("added by"), max_length=160)

    class Meta:
        verbose_name = _("trusted realm")
        verbose_name_plural = _("trusted realms")

    def __str__(self):
        return self.realm
