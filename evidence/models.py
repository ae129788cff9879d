"""The evidence profile (Parley v1 §18). Artifacts: bytes the forum holds, named by their SHA-256. The bytes
live in the `artifacts` storage (settings.STORAGES) under `storage_name`; this row is what is known about
them. And this realm's signing keys and the realms it trusts. Fields only: the rules live in
evidence/services.py, evidence/keys.py and evidence/trust.py."""
from django.db import models

from forum.models import Origin


class Artifact(models.Model):
    id = models.CharField(primary_key=True, max_length=71)  # "sha256:<64 hex>", lower case
    size = models.PositiveBigIntegerField()
    media_type = models.CharField(max_length=255)
    storage_name = models.CharField(max_length=200)
    uploaded_identity = models.CharField(max_length=160)
    uploaded_kind = models.CharField(max_length=8, choices=Origin.choices)
    created_at = models.DateTimeField()
    # What evidence.envelopes.inspect found: the record of a signed attestation, or null.
    attests = models.JSONField(null=True, blank=True)
    redacted_by = models.CharField(max_length=160, blank=True)
    redacted_at = models.DateTimeField(null=True, blank=True)
    redacted_reason = models.CharField(max_length=500, blank=True)

    def __str__(self):
        return self.id


class RealmKey(models.Model):
    """One Ed25519 key of this realm. The newest one not retired signs; every one not retired is listed in
    the JWKS. In the database, so every process sees a rotation at once; the private half only sealed
    (parley_site.sealing), so a dump alone cannot sign."""

    kid = models.CharField(max_length=16, unique=True)  # §18: the first 16 hex of SHA-256 of the public key
    public_key = models.BinaryField(max_length=32)  # raw
    sealed_private_key = models.TextField()
    created_at = models.DateTimeField()
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["retired_at", "created_at"], name="realmkey_current_idx")]

    def __str__(self):
        return self.kid


class TrustedRealm(models.Model):
    """Another realm whose attestations this one accepts, with the JWKS its keys are checked against."""

    realm = models.CharField(max_length=64, unique=True)
    jwks = models.JSONField()
    added_at = models.DateTimeField()
    added_by = models.CharField(max_length=160)

    def __str__(self):
        return self.realm
