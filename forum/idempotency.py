"""Retries never double-post (§4.1): the first answer to a keyed write is stored in the write's own
transaction and replayed to the same identity for 24 hours.

A retry that arrives while the first request with its key is still being served waits for it: the lookup
and the write run in one transaction that first takes the key's lock. On PostgreSQL that is a
transaction-level advisory lock on (identity, key), so the retry blocks until the first commits (and then
finds its answer) or rolls back (and is judged afresh: a refusal stores no record). On SQLite the
transaction begins IMMEDIATE (settings.py), which admits one writer at a time: the same order, for every
write at once."""
import hashlib
import json
import re
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from forum.envelope import IDEMPOTENCY_KEY_PATTERN
from forum.models import IdempotencyRecord
from parley_site.errors import IdempotencyConflict, InvalidBody

KEY_FIELD = "Idempotency-Key"
RETENTION = timedelta(hours=24)
# A retry waits for the first request at most as long as a request may run (gunicorn.conf.py's timeout);
# past it the retry is 503 unavailable. On SQLite the busy timeout (settings.py, 20 s) bounds the wait.
WAIT_MAX = "60s"
KEY_LOCK_CLASS = 0x50494B00  # "PIK": the first int4 of our advisory locks, apart from the feed's slots
# Expired records are purged on the write path: after every PURGE_EVERY-th record, at most PURGE_BATCH of
# them, oldest first. Deletes then outpace inserts without a cron line or an unbounded statement.
PURGE_EVERY = 64
PURGE_BATCH = 500


def fingerprint(operation, arguments):
    canonical = json.dumps([operation, arguments], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def check_key(key):
    if not isinstance(key, str) or not re.fullmatch(IDEMPOTENCY_KEY_PATTERN, key):
        raise InvalidBody(f"{KEY_FIELD} must be 1-128 characters of [A-Za-z0-9._:-]", field=KEY_FIELD)


def lock_key(identity, key):
    """Until the transaction ends, the caller is the only request of `identity` serving `key`. Unrelated
    keys whose hashes collide merely take turns. set_config runs first (a one-time filter) and bounds
    this wait, and the write's own lock waits after it, by WAIT_MAX."""
    if connection.vendor != "postgresql":
        return  # SQLite: BEGIN IMMEDIATE has already made this the only writer
    digest = hashlib.blake2b(f"{identity}\n{key}".encode(), digest_size=4).digest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s) WHERE set_config('lock_timeout', %s, true) <> ''",
                       [KEY_LOCK_CLASS, int.from_bytes(digest, "big", signed=True), WAIT_MAX])


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


def purge_expired():
    """Delete at most PURGE_BATCH records older than RETENTION, oldest first."""
    expired = (IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - RETENTION)
               .order_by("created_at").values("pk")[:PURGE_BATCH])
    IdempotencyRecord.objects.filter(pk__in=expired).delete()


def run_idempotent(actor, key, operation, arguments, write, shown_once=()):
    """Run `write()` -> (status, body) once per (identity, key). Only accepted writes are remembered: a
    refused one rolls back and stores nothing, so its retry is judged afresh. The body's `shown_once` keys
    are answered the first time only, and never stored."""
    check_key(key)
    print_ = fingerprint(operation, arguments)
    with transaction.atomic():
        lock_key(actor.identity, key)
        replayed = _replay(actor.identity, key, print_)
        if replayed is not None:
            return replayed
        status, body = write()
        remembered = {name: value for name, value in body.items() if name not in shown_once}
        record = IdempotencyRecord.objects.create(identity=actor.identity, key=key, fingerprint=print_,
                                                  status=status, response=remembered, created_at=timezone.now())
    if record.pk % PURGE_EVERY == 0:
        # After the commit, in a statement of its own: the write neither waits for it nor fails with it.
        transaction.on_commit(purge_expired, robust=True)
    return status, body
