"""The benchmark's floor: the least a write over this stack can cost. One DRF view that looks a bearer token
up (with the API's own query, so that query's cost is on both sides of the ratio) and INSERTs one message
row, nothing else: no envelope, no rules, no lock. Only bench/urls.py routes it, and only the benchmark's
own settings (bench/settings.py) load that, so it never exists in a deployment.

It still refuses like the API: it writes, so it needs `write`, and a bad request is a §13 refusal that
stores nothing, never a 500. The thread is not looked up first (that query would raise the floor): the
database's foreign key refuses an unknown one."""
from django.db import IntegrityError
from django.utils import timezone
from rest_framework.response import Response
from rest_framework.views import APIView

from forum.limits import limit
from forum.models import Message, Origin
from forum.selectors import token_by_secret
from parley_site.errors import InvalidBody, NotFound, TokenRightMissing
from parley_site.shapes import Ref

THREAD = Ref("th")


def floor_token(request):
    token = token_by_secret(request.headers.get("Authorization", "").partition(" ")[2])
    if not token.can_write:
        raise TokenRightMissing("write")
    return token


def floor_arguments(data):
    """(thread number, body) of a floor request, or invalid_body naming the culprit."""
    if not isinstance(data, dict):
        raise InvalidBody("send a JSON object with thread and body")
    thread = THREAD.parse(data.get("thread"))
    if thread is None:
        raise InvalidBody("thread must be th_<n> or a positive number", field="thread")
    body = data.get("body")
    if not isinstance(body, str) or not 1 <= len(body) <= limit("body_max_chars"):
        raise InvalidBody(f"body must be a string of 1-{limit('body_max_chars')} characters", field="body")
    return thread, body


class FloorView(APIView):
    authentication_classes = []
    permission_classes = []

    def post(self, request):
        token = floor_token(request)
        thread, body = floor_arguments(request.data)
        try:
            message = Message.objects.create(
                thread_id=thread, kind="note", body=body, author_identity=token.identity, author_kind=Origin.LLM,
                token=token, created_at=timezone.now())
        except IntegrityError:  # the only foreign key a request names is the thread's
            raise NotFound("thread", f"th_{thread}") from None
        return Response({"id": message.pk}, status=201)
