"""Every read of grants: the actor an access token acts as (forum.credentials asks, at each request and
while a stream stays open), and the grants and lines the console shows. A selector never writes."""
import dataclasses
import hashlib
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone
from oauth2_provider.models import get_access_token_model

from forum.actors import Actor
from forum.selectors import token_is_unexpired, unexpired_tokens
from oauth.models import LineGrant
from parley_site.errors import TokenInvalid

CREDENTIAL = "oauth"


def grant_actor(grant):
    """The line as the grant lets its client act: the rights granted that the line still has (§3: rights
    hang on the line), everything else the line's own."""
    line = Actor.for_token(grant.token)
    return dataclasses.replace(line, rights=line.rights & grant.granted_rights, credential=(CREDENTIAL, grant.pk))


def grant_of_access_token(secret):
    """The live grant an access token was issued for, or `token_invalid`: the token unexpired and meant for
    this server (RFC 8707), the grant unrevoked, its line unrevoked and unexpired. Each access token is
    known by the refresh token issued beside it, whose family is its grant's."""
    now = timezone.now()
    access = (get_access_token_model().objects.select_related("refresh_token")
              .filter(token_checksum=hashlib.sha256(secret.encode()).hexdigest(), expires__gt=now).first())
    family = getattr(getattr(access, "refresh_token", None), "token_family", None)
    if family is None or not all(is_ours(resource) for resource in access.resource or ()):
        raise TokenInvalid()
    grant = (LineGrant.objects.select_related("token")
             .filter(token_family=family, revoked_at__isnull=True, token__revoked_at__isnull=True).first())
    if grant is None or not token_is_unexpired(grant.token, now):
        raise TokenInvalid()
    return grant


def is_ours(resource):
    """Is `resource` (a resource indicator, RFC 8707) this server, or a part of it (its /mcp, its API)?"""
    ours, theirs = urlsplit(settings.PARLEY_PUBLIC_URL), urlsplit(resource)
    if (theirs.scheme.lower(), theirs.netloc.lower()) != (ours.scheme.lower(), ours.netloc.lower()):
        return False
    return f"{theirs.path.rstrip('/')}/".startswith(f"{ours.path.rstrip('/')}/")


def current_grant_actors(grant_ids):
    """grant id -> its actor as the database has it now, or None: the grant revoked, or its line revoked or
    expired. An access token expiring meanwhile ends nothing: its client refreshes it under the same grant."""
    grants = (LineGrant.objects.select_related("token")
              .filter(pk__in=grant_ids, revoked_at__isnull=True, token__in=unexpired_tokens(timezone.now())))
    found = {grant.pk: grant_actor(grant) for grant in grants}
    return {grant_id: found.get(grant_id) for grant_id in grant_ids}


def usable_grant(queryset):
    """The one grant of `queryset` whose client may still be issued tokens, or None."""
    grant = queryset.filter(revoked_at__isnull=True, token__revoked_at__isnull=True).select_related("token").first()
    return grant if grant is not None and token_is_unexpired(grant.token, timezone.now()) else None


def lendable_lines():
    """The lines a human may lend a client: every token unrevoked and unexpired."""
    return unexpired_tokens(timezone.now()).order_by("identity")
