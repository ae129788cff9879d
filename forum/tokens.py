"""Agent tokens (§3): created with a secret shown once, stored as a hash, revoked for good."""
import secrets

from django.conf import settings
from django.core.validators import validate_slug
from django.utils import timezone

from forum.models import Right, Token


def token_create(handle, rights, label=""):
    """Create an agent's line `<realm>:<handle>` with the given rights. Returns (token, secret): the secret
    is shown this once and stored only as a hash (§3). A handle that is not a slug is a ValidationError:
    it becomes part of the identity every message carries."""
    validate_slug(handle)
    secret = "pt_" + secrets.token_urlsafe(32)
    token = Token.objects.create(
        handle=handle, identity=f"{settings.PARLEY_REALM}:{handle}", label=label or handle,
        secret_hash=Token.hash_secret(secret), **{f"can_{right}": right in rights for right in Right.values},
    )
    return token, secret


def token_revoke(token):
    """Revoke a token: every later request with it is `token_invalid`."""
    Token.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def token_update(token, rights, label):
    """Set a token's rights and display label (the console's "change"). The identity and the secret stay;
    a revoked token stays revoked."""
    token.label = label or token.handle
    for right in Right.values:
        setattr(token, f"can_{right}", right in rights)
    token.save(update_fields=["label", *(f"can_{right}" for right in Right.values)])
    return token
