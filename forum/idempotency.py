"""Retries never double-post (§4.1): the first answer to a keyed write is stored in the write's own
transaction and replayed to the same identity for 24 hours."""
import hashlib
import json
import re
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from forum.envelope import IDEMPOTENCY_KEY_PATTERN
from forum.models import IdempotencyRecord
from parley_site.errors import IdempotencyConflict, InvalidBody

KEY_FIELD = "Idempotency-Key"
RETENTION = timedelta(hours=24)


def fingerprint(operation, arguments):
    canonical = json.dumps([operation, arguments], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def check_key(key):
    if not isinstance(key, str) or not re.fullmatch(IDEMPOTENCY_KEY_PATTERN, key):
        raise InvalidBody(f"{KEY_FIELD} must be 1-128 characters of [A-Za-z0-9._:-]", field=KEY_FIELD)


def _replay(identity, key, print_):
    record = IdempotencyRecord.objects.filter(identity=identity, key=key).first()
    if record is None:
        return None
    if record.created_at < timezone.now() - RETENTION:
        record.delete()
        return None
    if record.fingerprint != print_:
        raise IdempotencyConflict(key=key)
    return record.status, record.response


def run_idempotent(actor, key, operation, arguments, write):
    """Run `write()` -> (status, body) once per (identity, key). Only accepted writes are remembered: a
    refused one stored nothing, so its retry is judged afresh."""
    check_key(key)
    print_ = fingerprint(operation, arguments)
    replayed = _replay(actor.identity, key, print_)
    if replayed is not None:
        return replayed
    try:
        with transaction.atomic():
            status, body = write()
            IdempotencyRecord.objects.create(identity=actor.identity, key=key, fingerprint=print_,
                                             status=status, response=body, created_at=timezone.now())
    except IntegrityError:
        # A concurrent retry with the same key won the race; its write stands and ours was rolled back.
        replayed = _replay(actor.identity, key, print_)
        if replayed is None:
            raise
        return replayed
    return status, body
