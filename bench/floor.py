"""The benchmark's floor: the least a write over this stack can cost. One DRF view that looks a bearer token
up (with the API's own query, so that query's cost is on both sides of the ratio) and INSERTs one message
row, nothing else: no envelope, no rules, no lock. Mounted only when PARLEY_BENCH_FLOOR is on, so it never
exists in a real deployment."""
from django.utils import timezone
from rest_framework.response import Response
from rest_framework.views import APIView

from forum.models import Message, Origin, Token
from forum.selectors import whole_row


class FloorView(APIView):
    authentication_classes = []
    permission_classes = []

    def post(self, request):
        secret = request.headers.get("Authorization", "").partition(" ")[2]
        token = whole_row(Token, "secret_hash = %s AND revoked_at IS NULL", [Token.hash_secret(secret)])
        if token is None:
            return Response({"error": "token"}, status=401)
        message = Message.objects.create(
            thread_id=request.data["thread"], kind="note", body=request.data["body"],
            author_identity=token.identity, author_kind=Origin.LLM, token=token, created_at=timezone.now())
        return Response({"id": message.pk}, status=201)
