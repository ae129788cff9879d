"""Turns every refusal into Parley v1 §13's body, for DRF views and for plain Django views under /api/."""
import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response

from parley_site.errors import (Internal, InvalidBody, MethodNotAllowed, NotFound, ParleyError, RequestTooLarge,
                                TokenInvalid, Unavailable)
from parley_site.statement_timeout import is_timeout

logger = logging.getLogger("parley")


def as_parley_error(exc):
    """The §13 refusal for an exception, or None for a real fault."""
    if isinstance(exc, ParleyError):
        return exc
    if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        return TokenInvalid()
    if isinstance(exc, exceptions.PermissionDenied):
        return TokenInvalid(f"session authentication failed: {exc.detail}")
    if isinstance(exc, exceptions.ParseError):
        return InvalidBody(f"the body is not valid JSON: {exc.detail}")
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return InvalidBody("send the body as application/json", field="Content-Type")
    if isinstance(exc, (exceptions.NotFound, Http404)):
        return NotFound("resource")
    if isinstance(exc, RequestDataTooBig):
        return RequestTooLarge("request_max_bytes", settings.PARLEY_LIMITS["request_max_bytes"])
    if isinstance(exc, (OperationalError, InterfaceError)):
        if is_timeout(exc):
            return Unavailable(f"a query ran past the statement timeout "
                               f"({settings.PARLEY_STATEMENT_TIMEOUT_MS} ms); retry later or narrow the request")
        logger.warning("database unavailable: %s", exc)
        return Unavailable()
    return None


def method_not_allowed_body(method):
    return MethodNotAllowed(method).as_body()


def handle_exception(exc, context):
    if isinstance(exc, exceptions.MethodNotAllowed):  # DRF adds the Allow header to every answer
        exc = MethodNotAllowed(context["request"].method)
    error = as_parley_error(exc)
    return None if error is None else refusal_response(error)


def refusal_response(error):
    """A refusal as DRF answers it: §13's body, its status and its headers."""
    return Response(error.as_body(), status=error.status, headers=error.headers(), exception=True)


def json_refusal(error):
    return JsonResponse(error.as_body(), status=error.status, headers=error.headers())


def json_not_found(request, exception=None):
    return json_refusal(NotFound("resource"))


def json_server_error(request):
    return json_refusal(Internal())
