"""Token services (§3): a token is created with a secret shown once and stored as a hash, changed, given a
new secret (rotated) and revoked for good, each write atomic, by an actor (a human in the console, where
Django's token permissions decide, or the operator's command) and logged; and every door's authentication,
which records when a token was last used. No agent's door reaches the writes."""
import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from forum.actors import Actor
from forum import setups
from forum.announce import TokenChanged, announce
from forum.credentials import kind_of_secret
from forum.models import Right, Token
from forum.selectors import token_by_secret
from parley_site.errors import InvalidBody, InvalidTransition

logger = logging.getLogger("parley.tokens")
LAST_USED_PRECISION = 60  # seconds: a token's last use is recorded at most this often, sparing a write per read
MAX_GRACE_SECONDS = 30 * 24 * 3600  # a rotation's old secret works at most this long: a rotation must end


def token_authenticate(secret):
    """The actor behind a bearer token, or `token_invalid` (§3). Every door's authentication calls this; it
    records when the token was last used, at most once per LAST_USED_PRECISION. A secret of another kind
    of credential (an OAuth access token, forum.credentials) is that kind's to authenticate."""
    kind = kind_of_secret(secret)
    if kind is not None:
        return kind.authenticate(secret)
    token = token_by_secret(secret)
    record_use(token)
    return Actor.for_token(token, Token.hash_secret(secret))  # a follower it opens lives as long as the secret


def record_use(row):
    """Set `last_used_at` of `row` (a token, or another credential's row) to now, unless it was set less
    than LAST_USED_PRECISION ago."""
    now = timezone.now()
    if row.last_used_at is None or (now - row.last_used_at).total_seconds() > LAST_USED_PRECISION:
        type(row).objects.filter(pk=row.pk).update(last_used_at=now)
        row.last_used_at = now


def new_secret():
    return "pt_" + secrets.token_urlsafe(32)


@transaction.atomic
def token_create(actor, handle, rights, label="", expires_at=None):
    """Create an agent's line `<realm>:<handle>` with the given rights, as `actor` (a human in the console,
    where Django's token permissions decide, or the operator's command). Returns (token, secret): the
    secret is shown this once and stored only as a hash (§3). A handle that is not a slug is invalid_body
    (field `handle`): it becomes part of the identity every message carries. `expires_at`: None for never.
    Logged."""
    try:
        validate_slug(handle)
    except ValidationError as problem:
        raise InvalidBody(" ".join(problem.messages), field="handle") from None
    secret = new_secret()
    token = Token.objects.create(
        handle=handle, identity=f"{settings.PARLEY_REALM}:{handle}", label=label or handle,
        secret_hash=Token.hash_secret(secret), expires_at=expires_at,
        **{f"can_{right}": right in rights for right in Right.values},
    )
    logger.info("%s created token %s with rights %s%s", actor.identity, token.identity, _rights_text(token),
                _expiry_text(token))
    return token, secret


KEEP = object()  # token_update: leave the expiry as it is


@transaction.atomic
def token_update(actor, token_id, rights, label, expires_at=KEEP):
    """Set a token's rights, display label and, when given, its expiry (None: never) (the console's
    "change"), as `actor`; locks the token row. The identity and the secret stay; a revoked token stays
    revoked. Logged."""
    token = Token.objects.select_for_update().get(pk=token_id)
    token.label = label or token.handle
    for right in Right.values:
        setattr(token, f"can_{right}", right in rights)
    fields = ["label", *(f"can_{right}" for right in Right.values)]
    if expires_at is not KEEP:
        token.expires_at = expires_at
        fields.append("expires_at")
    token.save(update_fields=fields)
    announce(TokenChanged(token.pk))
    logger.info("%s set token %s to rights %s%s", actor.identity, token.identity, _rights_text(token),
                _expiry_text(token))
    return token


@dataclass(frozen=True)
class Rotation:
    token: Token
    secret: str  # shown this once, stored only as a hash
    # set-up kind name -> what the line still has of it (forum.setups: its webhooks), and what the rotation
    # dropped of it
    kept: dict
    dropped: dict


@transaction.atomic
def token_rotate(actor, token_id, grace_seconds=0, drop=()):
    """Give a token a new secret, as `actor`; locks the token row. The row stays, and with it the identity,
    its threads, rights, expiry and rate window (§14). The old secret is refused at once, or with
    grace_seconds > 0 accepted until then and not after; one previous secret at most, so a secret still in
    an earlier grace period stops now. A stream, wait or listen opened with a secret ends when it stops
    (forum.selectors.current_actors). What the line set up that outlives a secret (forum.setups: its
    webhooks) stays, unless its kind is named in `drop`: then it is deleted in the same transaction, before
    the token row is locked, as each kind's own deletion locks. Returns a Rotation. A grace outside
    0..MAX_GRACE_SECONDS is invalid_body (field `grace`), a revoked token invalid_transition. Logged."""
    if not 0 <= grace_seconds <= MAX_GRACE_SECONDS:
        raise InvalidBody(gettext("the grace period is 0 to %(most)s seconds") % {"most": MAX_GRACE_SECONDS},
                          field="grace")
    dropped = {name: setups.KINDS[name].drop(actor, token_id) for name in drop}
    token = Token.objects.select_for_update().get(pk=token_id)
    if token.revoked_at is not None:
        raise InvalidTransition(gettext("%(identity)s is revoked; a revoked token stays revoked") % {
            "identity": token.identity})
    secret = new_secret()
    if grace_seconds:
        token.previous_secret_hash = token.secret_hash
        token.previous_secret_ends_at = timezone.now() + timedelta(seconds=grace_seconds)
    else:
        token.previous_secret_hash = token.previous_secret_ends_at = None
    token.secret_hash = Token.hash_secret(secret)
    token.save(update_fields=["secret_hash", "previous_secret_hash", "previous_secret_ends_at"])
    announce(TokenChanged(token.pk))
    logger.info("%s rotated the secret of token %s; the old secret %s", actor.identity, token.identity,
                f"works until {token.previous_secret_ends_at.isoformat()}" if token.previous_secret_ends_at
                else "stopped at once")
    return Rotation(token, secret, setups.set_ups_of(token.pk), dropped)


@transaction.atomic
def token_revoke(actor, token_id):
    """Revoke a token for good, as `actor`: every later request with it is `token_invalid`. Returns whether
    it was still active. Logged."""
    revoked = Token.objects.filter(pk=token_id, revoked_at__isnull=True).update(revoked_at=timezone.now())
    if revoked:
        announce(TokenChanged(token_id))
        logger.info("%s revoked token %s", actor.identity, Token.objects.get(pk=token_id).identity)
    return bool(revoked)


def _rights_text(token):
    return ",".join(sorted(token.rights)) or "none"


def _expiry_text(token):
    return f", expiring {token.expires_at.isoformat()}" if token.expires_at else ""
