"""The REST doors of artifacts (Parley v1 §18). The upload reads its raw body itself, a chunk at a time
(evidence.uploads), never through DRF's JSON parser and never under `request_max_bytes`: its own limit,
`artifact_max_bytes`, is counted as the bytes arrive, here under WSGI and in front of Django under ASGI
(parley_site.bodylimit). The bytes are answered as a download a browser never runs (§18).

And `/.well-known/parley-keys.json`: this realm's JWKS, for anyone, without a token; a DRF view too, so a
wrong method or an unreachable database answers §13's JSON like every other machine path."""
import asyncio

from django.core.handlers.asgi import ASGIRequest
from django.http import FileResponse, HttpResponseNotModified, StreamingHttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.response import Response
from rest_framework.views import APIView

from evidence import media, operations, storage
from evidence.keys import jwks
from evidence.selectors import parse_id
from evidence.uploads import request_chunks, stage
from forum.api.views import OperationSchema, OperationView
from forum.dispatch import call
from forum.wire import ERROR_SCHEMA
from parley_site.errors import NotFound, RequestTooLarge
from parley_site.jsonbody import declared_length

# Short: a rotation or a retirement should reach the realms that check our signatures within minutes.
JWKS_MAX_AGE = 300
DOWNLOAD_BLOCK_BYTES = 64 * 1024
ID_PARAMETER = OpenApiParameter("ref", str, OpenApiParameter.PATH, description="sha256:<64 hex digits>")


class ArtifactSchema(OperationSchema):
    def get_override_parameters(self):
        parameters = [ID_PARAMETER] if self.view.path_argument else []
        if not self.view.operation.read_only:
            parameters.append(OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, description=(
                "Retry safely: the same key replays the first answer.")))
        return parameters


class UploadSchema(ArtifactSchema):
    def get_request_serializer(self):
        return {"*/*": {"type": "string", "format": "binary", "description": (
            "The artifact's bytes; Content-Type is its media type (default application/octet-stream).")}}

    def get_response_serializers(self):
        return {**super().get_response_serializers(),
                200: OpenApiResponse(response=operations.ANSWER_SCHEMA, description="these bytes, stored already")}


class BytesSchema(ArtifactSchema):
    def get_response_serializers(self):
        answers = {code: OpenApiResponse(response=ERROR_SCHEMA, description="a refusal (§13)")
                   for code in (400, 401, 403, 404, 503)}
        return {200: OpenApiResponse(response={"type": "string", "format": "binary"}, description=(
                    "the bytes, as an attachment")), 304: OpenApiResponse(description="unchanged"), **answers}


class ArtifactView(OperationView):
    path_argument = "artifact"
    schema = ArtifactSchema()

    def path_value(self, ref):
        artifact_id = parse_id(ref)
        if artifact_id is None:
            raise NotFound("artifact", ref)  # §14.1: a malformed id in a path is not_found
        return artifact_id


class UploadView(OperationView):
    operation = operations.UPLOAD
    schema = UploadSchema()

    def initial(self, request, *args, **kwargs):
        # Not OperationView's: request_max_bytes does not apply to this route (§18), artifact_max_bytes does.
        super(OperationView, self).initial(request, *args, **kwargs)
        if declared_length(request.META) > operations.artifact_max_bytes():
            raise RequestTooLarge("artifact_max_bytes", operations.artifact_max_bytes())

    def post(self, request):
        declared = request.META.get("CONTENT_TYPE", "")
        staged = stage(request_chunks(request._request), operations.artifact_max_bytes())
        try:
            return call(self.operation, request.auth, {"upload": staged, "media_type": declared},
                        request.headers.get("Idempotency-Key"))
        finally:
            staged.close()


class MetaView(ArtifactView):
    operation = operations.META

    def get(self, request, ref):
        return self.answer(request, ref)


class RedactView(ArtifactView):
    operation = operations.REDACT_ARTIFACT

    def post(self, request, ref):
        return self.answer(request, ref)


class BytesView(ArtifactView):
    """The bytes, streamed from storage, as §18 has them served: an attachment, never sniffed, sandboxed,
    and typed as stored only when the type is passive."""
    operation = operations.META
    schema = BytesSchema()
    operation_id = "read_artifact_bytes"

    def get(self, request, ref):
        artifact_id = self.path_value(ref)
        _, body = call(self.operation, request.auth, {"artifact": artifact_id})
        meta = body["artifact"]
        etag = f'"{meta["id"]}"'
        if etag in (tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")):
            return with_passive_headers(HttpResponseNotModified(), etag)
        response = download(request._request, storage.opened(storage.storage_name(artifact_id)),
                            filename=f"{artifact_id.replace(':', '-')}.bin", content_type=media.served(meta["media_type"]))
        response["Content-Length"] = str(meta["size"])
        return with_passive_headers(response, etag)


def download(request, file, *, filename, content_type):
    """A response streaming `file` as an attachment. Under ASGI its blocks come from an async iterator:
    Django's ASGI handler would read a sync iterator (FileResponse's) whole into memory before the first
    byte, so every reader, however slow, would hold the whole artifact."""
    if not isinstance(request, ASGIRequest):
        return FileResponse(file, as_attachment=True, filename=filename, content_type=content_type)
    response = StreamingHttpResponse(blocks_of(file), content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


async def blocks_of(file):
    """The file a block at a time, each read on a worker thread: the event loop never waits on storage, and
    a reader that stops reading holds one block, since the server's send waits for the client to drain."""
    try:
        while block := await asyncio.to_thread(file.read, DOWNLOAD_BLOCK_BYTES):
            yield block
    finally:
        file.close()


def with_passive_headers(response, etag):
    response["ETag"] = etag
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "sandbox"
    response["Cache-Control"] = "private, no-cache"
    return response


class JwksView(APIView):
    authentication_classes = ()
    permission_classes = ()
    schema = None  # not an operation of §12: OpenAPI describes the operations

    def get(self, request):
        return Response(jwks(), headers={"Cache-Control": f"public, max-age={JWKS_MAX_AGE}"})
