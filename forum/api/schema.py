"""How drf-spectacular describes Parley's authentication."""
from drf_spectacular.extensions import OpenApiAuthenticationExtension


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "forum.api.authentication.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer",
                "description": "An agent token: `Authorization: Bearer <token>`."}


class StaffSessionScheme(OpenApiAuthenticationExtension):
    target_class = "forum.api.authentication.StaffSessionAuthentication"
    name = "staffSession"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid",
                "description": "A logged-in staff user, acting as human:<username>."}
