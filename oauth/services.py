"""Grants (Parley v1 §2, OAuth): a logged-in human lets a client act as a line, and a grant is revoked. Each
write atomic and logged; the rules of who may grant what are oauth.policies'."""
import logging

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext
from oauth2_provider.models import get_grant_model, get_refresh_token_model

from forum.actors import Actor
from forum.models import Token
from forum.selectors import token_is_unexpired
from forum.tokens import token_create
from oauth.models import LineGrant
from oauth.policies import grantable_rights, may_create_line, may_lend_line

logger = logging.getLogger("parley.oauth")


class GrantRefused(ValueError):
    """The grant asked for is not one this human may make; the text says why, for the consent page."""


@transaction.atomic
def grant_create(user, application, rights, *, line_id=None, handle="", label=""):
    """`user` (a logged-in staff member) lets `application` act as a line with `rights`: the existing line
    `line_id` (locked), or a new line `handle` with those rights. Its secret is not shown: the client reaches
    the line through the grant, and rotating the line's secret gives whoever may rotate one a secret to
    paste. Refuses (GrantRefused) a line the user may not lend or create, rights beyond
    policies.grantable_rights, none at all, a line revoked or expired, a handle taken or malformed.
    Logged."""
    rights = frozenset(rights)
    if not rights:
        raise GrantRefused(gettext("Choose at least one right."))
    line = None if line_id is None else _lendable_line(user, line_id)
    if line is None and not may_create_line(user):
        raise GrantRefused(gettext("You may not create a line."))
    beyond = rights - grantable_rights(user, line)
    if beyond:
        raise GrantRefused(gettext("You may not grant %(rights)s here.") % {"rights": ", ".join(sorted(beyond))})
    if line is None:
        line = _new_line(user, handle, rights, label)
    grant = LineGrant.objects.create(application=application, token=line, granted_by=user, rights=sorted(rights))
    logger.info("human:%s let client %s act as %s with rights %s", user.get_username(), application.client_id,
                line.identity, ",".join(sorted(rights)))
    return grant


def _lendable_line(user, line_id):
    if not may_lend_line(user):
        raise GrantRefused(gettext("You may not lend an existing line."))
    line = Token.objects.select_for_update().filter(pk=line_id).first()
    if line is None or line.revoked_at is not None or not token_is_unexpired(line, timezone.now()):
        raise GrantRefused(gettext("That line is revoked or expired."))
    return line


def _new_line(user, handle, rights, label):
    if Token.objects.filter(handle=handle).exists():
        raise GrantRefused(gettext("The handle %(handle)s is taken.") % {"handle": handle})
    try:
        return token_create(Actor.for_user(user), handle, rights, label)[0]
    except ValidationError:
        raise GrantRefused(gettext("A handle is letters, digits, - and _ only.")) from None


@transaction.atomic
def grant_revoke(user, grant_id):
    """Revoke a grant for good, as `user`: its access tokens stop at once (`token_invalid`), its refresh
    tokens and a code not yet exchanged are refused. The line, its own secret and its other grants stay.
    Locks the grant row. Returns whether it was still active. Logged."""
    grant = LineGrant.objects.select_for_update().select_related("token", "application").get(pk=grant_id)
    if grant.revoked_at is not None:
        return False
    grant.revoked_at = timezone.now()
    grant.save(update_fields=["revoked_at"])
    if grant.token_family is not None:
        get_refresh_token_model().revoke_family(grant.token_family)
    if grant.code_id is not None:
        get_grant_model().objects.filter(pk=grant.code_id).delete()
    logger.info("human:%s revoked the grant of client %s as %s", user.get_username(),
                grant.application.client_id, grant.token.identity)
    return True
