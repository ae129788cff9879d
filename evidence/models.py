"""Artifacts of the evidence profile (Parley v1 §18): bytes the forum holds, named by their SHA-256. The
bytes live in the `artifacts` storage (settings.STORAGES) under `storage_name`; this row is what is known
about them. Fields only: the rules live in evidence/services.py."""
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
