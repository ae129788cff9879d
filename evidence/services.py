"""Writes of artifacts (Parley v1 §18): storing uploaded bytes once, and erasing them (redaction)."""
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from evidence import envelopes, storage
from evidence.models import Artifact
from evidence.selectors import artifact_find, redacted_refusal
from forum.access import require_right
from forum.models import Right, Token
from forum.own_writes import mark_written
from forum.services import count_write
from parley_site.errors import InvalidTransition, LimitExceeded, NotFound

STORAGE_LIMIT = "artifact_bytes_per_token_max"


@transaction.atomic
def artifact_upload_attempted(actor):
    """Count an upload against its token's `writes_per_minute` whatever comes of it (a refused one, bytes
    stored already, a replay: each had its body read and hashed), in a transaction of its own before the
    upload's (the operation's `admit`, forum.dispatch), so that a refusal, which rolls back, still counts.
    Refuses rate_limited; takes the token row alone; humans are not rate limited."""
    count_write(actor)


def artifact_put(actor, staged, media_type):
    """Store the staged bytes (evidence.uploads.Staged) as an artifact, or find them stored already.
    Returns (artifact, created). Counted against the rate limit before (artifact_upload_attempted). Checks in
    §13's order: what evidence.envelopes.inspect refuses (invalid_body naming `signatures`), the `write`
    right, a redacted artifact with these bytes (not_found with detail.redacted), then the token's storage
    quota (limit_exceeded naming `artifact_bytes_per_token_max`), for new bytes only. The first upload's
    media type and uploader stay."""
    with staged.contents() as data:
        attests = envelopes.inspect(data)
    require_right(actor, Right.WRITE)
    with transaction.atomic():
        artifact = artifact_find(staged.id)
        if artifact is not None:
            if artifact.redacted_at is not None:
                raise redacted_refusal(artifact)
            return artifact, False
        if actor.token is not None:
            require_storage_left(actor.token, staged.size)
        now, name = timezone.now(), storage.storage_name(staged.id)
        try:
            with transaction.atomic():  # a savepoint, so that losing the race below undoes the row too
                storage.store(name, staged.file)
                artifact = Artifact.objects.create(
                    id=staged.id, size=staged.size, media_type=media_type, storage_name=name,
                    uploaded_identity=actor.identity, uploaded_kind=actor.origin, created_at=now,
                    attests=attests)
        except IntegrityError:
            # Another request stored the same bytes meanwhile (under the same name): they are stored.
            return Artifact.objects.get(pk=staged.id), False
    return artifact, True


def require_storage_left(token, size):
    """limit_exceeded unless `size` more bytes keep the token's stored artifacts (redacted ones hold none)
    within `artifact_bytes_per_token_max`. Locks the token row, so that two uploads of one token at once
    cannot both pass on the same sum."""
    Token.objects.select_for_update().filter(pk=token.pk).first()
    quota = settings.PARLEY_EVIDENCE[STORAGE_LIMIT]
    held = Artifact.objects.filter(uploaded_identity=token.identity, redacted_at__isnull=True).aggregate(
        held=Sum("size"))["held"] or 0
    if held + size > quota:
        raise LimitExceeded(STORAGE_LIMIT, quota)


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
    mark_written(actor)
    # Last, so that a storage that fails leaves the artifact as it was: the row's change rolls back.
    storage.erase(artifact.storage_name)
    return artifact
