"""Writes of artifacts (Parley v1 §18): storing uploaded bytes once, and erasing them (redaction)."""
from django.db import IntegrityError, transaction
from django.utils import timezone

from evidence import envelopes, storage
from evidence.models import Artifact
from evidence.selectors import artifact_find, redacted_refusal
from forum.models import Right
from forum.access import require_right
from forum.services import count_write
from parley_site.errors import InvalidTransition, NotFound


def artifact_put(actor, staged, media_type):
    """Store the staged bytes (evidence.uploads.Staged) as an artifact, or find them stored already.
    Returns (artifact, created). Checks in §13's order: what evidence.envelopes.inspect refuses
    (invalid_body naming `signatures`), the `write` right, a redacted artifact with these bytes (not_found
    with detail.redacted), then the rate limit, which counts only an upload that stores new bytes (§14).
    The first upload's media type and uploader stay."""
    attests = envelopes.inspect(staged.inspected_bytes())
    require_right(actor, Right.WRITE)
    with transaction.atomic():
        artifact = artifact_find(staged.id)
        if artifact is not None:
            if artifact.redacted_at is not None:
                raise redacted_refusal(artifact)
            return artifact, False
        now, name = timezone.now(), storage.storage_name(staged.id)
        try:
            with transaction.atomic():  # a savepoint, so that losing the race below undoes the count too
                count_write(actor)
                storage.store(name, staged.file)
                artifact = Artifact.objects.create(
                    id=staged.id, size=staged.size, media_type=media_type, storage_name=name,
                    uploaded_identity=actor.identity, uploaded_kind=actor.origin, created_at=now,
                    attests=attests)
        except IntegrityError:
            # Another request stored the same bytes meanwhile (under the same name): they are stored.
            return Artifact.objects.get(pk=staged.id), False
    return artifact, True


@transaction.atomic
def artifact_redact(actor, artifact_id, reason=""):
    """Erase an artifact's bytes from storage (§18); the row stays, saying who erased it and when. Needs
    `lock` (or a human); locks the artifact's row. Refuses token_right_missing, not_found,
    invalid_transition (redacted already)."""
    require_right(actor, Right.LOCK)
    artifact = artifact_find(artifact_id, lock=True)
    if artifact is None:
        raise NotFound("artifact", artifact_id)
    if artifact.redacted_at is not None:
        raise InvalidTransition("this artifact is redacted already", artifact=artifact.pk)
    artifact.redacted_by, artifact.redacted_at, artifact.redacted_reason = actor.identity, timezone.now(), reason
    artifact.save(update_fields=["redacted_by", "redacted_at", "redacted_reason"])
    # Last, so that a storage that fails leaves the artifact as it was: the row's change rolls back.
    storage.erase(artifact.storage_name)
    return artifact
