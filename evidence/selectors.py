"""Reads of artifacts (Parley v1 §18), with their access checks."""
import re

from evidence.models import Artifact
from forum.models import Right
from forum.access import require_right
from forum.wire import stamp
from parley_site.errors import NotFound

ID_PATTERN = r"sha256:[0-9a-fA-F]{64}"


def parse_id(value):
    """`sha256:<64 hex>` in lower case, or None when `value` is no artifact id."""
    if isinstance(value, str) and re.fullmatch(ID_PATTERN, value):
        return value.lower()
    return None


def redacted_refusal(artifact):
    """§18: a redacted artifact reads as not found, saying who erased it and when."""
    refusal = NotFound("artifact", artifact.pk)
    refusal.message = "this artifact was redacted: its bytes are erased, and the same bytes are refused"
    refusal.detail["redacted"] = {"by": artifact.redacted_by, "at": stamp(artifact.redacted_at)}
    return refusal


def artifact_find(artifact_id, *, lock=False):
    """The artifact row, redacted or not, or None."""
    rows = Artifact.objects.select_for_update() if lock else Artifact.objects
    return rows.filter(pk=artifact_id).first()


def access_artifact(actor, artifact_id):
    """An artifact the caller may read: needs `read`; refuses not_found for an unknown one and for a
    redacted one (with detail.redacted)."""
    require_right(actor, Right.READ)
    artifact = artifact_find(artifact_id)
    if artifact is None:
        raise NotFound("artifact", artifact_id)
    if artifact.redacted_at is not None:
        raise redacted_refusal(artifact)
    return artifact


def is_stored(artifact_id):
    """For a proof (§18): the artifact exists and is not redacted."""
    return Artifact.objects.filter(pk=artifact_id, redacted_at__isnull=True).exists()
