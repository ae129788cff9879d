"""DRF authentication only: who is calling. What they may do is decided by the services."""
from django.contrib.auth.models import AnonymousUser
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.permissions import BasePermission

from forum.actors import Actor
from forum.tokens import token_authenticate


class BearerTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, secret = header.partition(" ")
        if scheme.lower() != "bearer":
            return None
        return AnonymousUser(), token_authenticate(secret.strip())

    def authenticate_header(self, request):
        return 'Bearer realm="parley"'


class StaffSessionAuthentication(SessionAuthentication):
    """A logged-in staff user acts as `human:<username>` (§3)."""

    def authenticate(self, request):
        user = getattr(request._request, "user", None)
        if not user or not user.is_active or not user.is_staff:
            return None
        # Django's request, not DRF's: DRF's would parse (and consume) the body to look for a form token.
        self.enforce_csrf(request._request)
        # Through its session: an event stream it opens ends when the session does (a logout, a new password).
        return user, Actor.for_user(user, request._request.session.session_key)


class IsParticipant(BasePermission):
    def has_permission(self, request, view):
        return isinstance(request.auth, Actor)
