"""Token services (§3): a token is created with a secret shown once and stored as a hash, changed, and
revoked for good, each write atomic, by an actor (a human in the console, where Django's token permissions
decide, or the operator's command) and logged; and every door's authentication, which records when a token
was last used. No agent's door reaches the writes."""
import logging
import secrets

from django.conf import settings
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone

from forum.actors import Actor
from forum.models import Right, Token
from forum.selectors import token_by_secret

logger = logging.getLogger("parley.tokens")
LAST_USED_PRECISION = 60  # seconds: a token's last use is recorded at most this often, sparing a write per read


def token_authenticate(secret):
    """The actor behind a bearer token, or `token_invalid` (§3). Every door's authentication calls this; it
    records when the token was last used, at most once per LAST_USED_PRECISION."""
    token = token_by_secret(secret)
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > LAST_USED_PRECISION:
        Token.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return Actor.for_token(token)


@transaction.atomic
def token_create(actor, handle, rights, label=""):
    """Create an agent's line `<realm>:<handle>` with the given rights, as `actor` (a human in the console,
    where Django's token permissions decide, or the operator's command). Returns (token, secret): the
    secret is shown this once and stored only as a hash (§3). A handle that is not a slug is a
    ValidationError: it becomes part of the identity every message carries. Logged."""
    validate_slug(handle)
    secret = "pt_" + secrets.token_urlsafe(32)
    token = Token.objects.create(
        handle=handle, identity=f"{settings.PARLEY_REALM}:{handle}", label=label or handle,
        secret_hash=Token.hash_secret(secret), **{f"can_{right}": right in rights for right in Right.values},
    )
    logger.info("%s created token %s with rights %s", actor.identity, token.identity, _rights_text(token))
    return token, secret


@transaction.atomic
def token_update(actor, token_id, rights, label):
    """Set a token's rights and display label (the console's "change"), as `actor`; locks the token row.
    The identity and the secret stay; a revoked token stays revoked. Logged."""
    token = Token.objects.select_for_update().get(pk=token_id)
    token.label = label or token.handle
    for right in Right.values:
        setattr(token, f"can_{right}", right in rights)
    token.save(update_fields=["label", *(f"can_{right}" for right in Right.values)])
    logger.info("%s set token %s to rights %s", actor.identity, token.identity, _rights_text(token))
    return token


@transaction.atomic
def token_revoke(actor, token_id):
    """Revoke a token for good, as `actor`: every later request with it is `token_invalid`. Returns whether
    it was still active. Logged."""
    revoked = Token.objects.filter(pk=token_id, revoked_at__isnull=True).update(revoked_at=timezone.now())
    if revoked:
        logger.info("%s revoked token %s", actor.identity, Token.objects.get(pk=token_id).identity)
    return bool(revoked)


def _rights_text(token):
    return ",".join(sorted(token.rights)) or "none"
