"""The secrets this authorization server issues. Each kind starts with a prefix of its own, so that the core
can tell an access token from a line's own secret (`pt_`, forum.credentials) without a query, and a secret
scanner can tell what a leaked one is."""
import secrets

ACCESS_TOKEN_PREFIX = "pa_"
REFRESH_TOKEN_PREFIX = "pr_"


def new_access_token(request=None):
    return ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_refresh_token(request=None):
    return REFRESH_TOKEN_PREFIX + secrets.token_urlsafe(32)
