"""A bearer header checked in front of Django, by an ASGI layer that must answer before any view runs and
before a body is read: `/mcp/oauth` (oauth.door) and the artifacts' upload (evidence.uploads)."""
import asyncio
import contextvars

from forum.tokens import token_authenticate
from parley_site.database_limit import using_database
from parley_site.errors import TokenInvalid
from parley_site.exception_handler import as_parley_error
from parley_site.statement_timeout import bounded


def refusal_of(authorization):
    """The TokenInvalid a request with this Authorization header gets, or None when it names a valid token."""
    scheme, _, secret = authorization.partition(" ")
    try:
        if scheme.lower() != "bearer":
            raise TokenInvalid()
        token_authenticate(secret.strip())
    except TokenInvalid as refusal:
        return refusal
    return None


async def refusal_on(request_threads, authorization):
    """refusal_of, on one of `request_threads` as a view would run it; a database away is `unavailable` (§13)."""
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(request_threads, context.run, _checked, authorization)


def _checked(authorization):
    try:
        with using_database(), bounded():
            return refusal_of(authorization)
    except Exception as exc:  # noqa: BLE001  only what §13 names is answered; the rest is a real 500
        refusal = as_parley_error(exc)
        if refusal is None:
            raise
        return refusal
