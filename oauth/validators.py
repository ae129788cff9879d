"""django-oauth-toolkit's validator, which here also carries the human's grant from the consent to the code
and from the code to the tokens, and refuses every step of a grant that is no longer valid (revoked, or its
line revoked or expired): a code exchanged, a refresh token used."""
import ipaddress
from urllib.parse import urlsplit

from oauth2_provider.models import get_grant_model
from oauth2_provider.oauth2_validators import OAuth2Validator

from oauth.models import LineGrant
from oauth.selectors import usable_grant

LOOPBACK_NAMES = ("localhost",)


class LineGrantValidator(OAuth2Validator):
    def validate_redirect_uri(self, client_id, redirect_uri, request, *args, **kwargs):
        """A registered redirect URI, and https unless it comes back to the user's own machine (MCP's
        authorization, Communication Security: localhost or https)."""
        return super().validate_redirect_uri(client_id, redirect_uri, request, *args, **kwargs) and (
            urlsplit(redirect_uri).scheme != "http" or is_loopback(urlsplit(redirect_uri).hostname))

    def _create_authorization_code(self, request, code, expires=None):
        """The code remembers the grant the human made on the consent page (oauth.views puts its id into
        the authorization request's credentials)."""
        issued = super()._create_authorization_code(request, code, expires)
        LineGrant.objects.filter(pk=getattr(request, "line_grant_id", None), revoked_at__isnull=True,
                                 code__isnull=True, token_family__isnull=True).update(code=issued)
        return issued

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        if not super().validate_code(client_id, code, client, request, *args, **kwargs):
            return False
        request.line_grant = usable_grant(LineGrant.objects.filter(
            code__in=get_grant_model().objects.filter(code=code, application=client)))
        return request.line_grant is not None

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            return False
        request.line_grant = usable_grant(LineGrant.objects.filter(
            token_family=request.refresh_token_instance.token_family))
        return request.line_grant is not None

    def _create_refresh_token(self, request, refresh_token_code, access_token, previous_refresh_token):
        """The first refresh token of a grant starts the family every later one inherits: the grant knows
        its tokens by it."""
        issued = super()._create_refresh_token(request, refresh_token_code, access_token, previous_refresh_token)
        LineGrant.objects.filter(pk=request.line_grant.pk, token_family__isnull=True).update(
            token_family=issued.token_family)
        return issued


def is_loopback(host):
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
