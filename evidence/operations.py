"""The evidence profile's operations (Parley v1 §18), declared once in the core's registry so that REST,
MCP and the manifest take them from there: `put_artifact`, `read_artifact`, `redact_artifact` and
`export_attestation`.

An upload over REST is raw bytes, not JSON: its door (evidence.views) stages them while they arrive and
runs UPLOAD, the same run as `put_artifact`, with the staged bytes as its argument; the MCP tool takes the
bytes as text. REST reads the meta alone (META); the tool adds the text of a textual artifact."""
from django.conf import settings

from dialectic.operations import read_claim_input
from evidence import media, storage
from evidence.attestations import PAYLOAD_TYPE, attestation_export
from evidence.selectors import ID_PATTERN, access_artifact, parse_id
from evidence.services import artifact_put, artifact_redact, artifact_upload_attempted
from evidence.uploads import Staged, stage, text_chunks
from evidence.wire import ARTIFACT_SCHEMA, artifact_json
from forum.limits import limit
from forum.dispatch import Answer, Operation, register
from forum.wire import strict
from parley_site.errors import InvalidBody
from parley_site.shapes import Obj, Shape, Str


def artifact_max_bytes():
    return settings.PARLEY_EVIDENCE["artifact_max_bytes"]


class ArtifactId(Shape):
    def __init__(self, description=None):
        self.description = description

    def validate(self, value, path=""):
        artifact_id = parse_id(value)
        if artifact_id is None:
            raise InvalidBody(f"{path} must be sha256:<64 hex digits>", field=path)
        return artifact_id

    def json_schema(self):
        return self.with_description({"type": "string", "pattern": f"^{ID_PATTERN}$"})


class MediaType(Shape):
    """A declared media type; `field` is where it was declared (REST: the Content-Type header)."""

    def __init__(self, field=None, description=None):
        self.field, self.description = field, description

    def validate(self, value, path=""):
        if not isinstance(value, str):
            raise InvalidBody(f"{path} must be a string", field=self.field or path)
        return media.clean(value, self.field or path)

    def json_schema(self):
        return self.with_description({"type": "string", "maxLength": media.MAX_CHARS})


class StagedUpload(Shape):
    """The REST door's bytes, staged already (evidence.uploads): nothing a client writes as JSON."""

    def validate(self, value, path=""):
        assert isinstance(value, Staged), "only the upload door passes staged bytes"
        return value

    def json_schema(self):
        return {"type": "string", "format": "binary"}


ARTIFACT_ARG = {"artifact": ArtifactId(description="The artifact: sha256:<64 hex digits>.")}


def put_input():
    return Obj({
        "text": Str(description="The artifact's content, as UTF-8 text (the whole call stays within "
                                "request_max_bytes; larger artifacts go through POST /api/v1/artifacts)."),
        "media_type": MediaType(description=f"Its media type (default {media.TEXT_DEFAULT})."),
    }, required=["text"])


def upload_input():
    return Obj({"upload": StagedUpload(), "media_type": MediaType(field="Content-Type")},
               required=["upload", "media_type"])


def artifact_input():
    return Obj(ARTIFACT_ARG, required=["artifact"])


def redact_input():
    return Obj({**ARTIFACT_ARG, "reason": Str(min_len=1, max_len=500, description=(
        "Why it is erased (1-500 characters)."))}, required=["artifact"])


def run_put(actor, args):
    if "upload" in args:
        return _stored(actor, args["upload"], args["media_type"])
    staged = stage(text_chunks(args["text"].encode("utf-8")), artifact_max_bytes())
    try:
        return _stored(actor, staged, args.get("media_type", media.TEXT_DEFAULT))
    finally:
        staged.close()


def _stored(actor, staged, media_type):
    artifact, created = artifact_put(actor, staged, media_type)
    return Answer(201 if created else 200, {"artifact": artifact_json(artifact)})


def run_meta(actor, args):
    return {"artifact": artifact_json(access_artifact(actor, args["artifact"]))}


def run_read(actor, args):
    """The meta, and for a textual artifact its text: at most request_max_bytes of it, decoded as UTF-8
    (a character cut at that boundary, or bytes that are no UTF-8, read as U+FFFD)."""
    artifact = access_artifact(actor, args["artifact"])
    answer = {"artifact": artifact_json(artifact)}
    if media.is_textual(artifact.media_type):
        cap = limit("request_max_bytes")
        data = storage.head(artifact.storage_name, cap)
        answer.update(text=data.decode("utf-8", errors="replace"), truncated=artifact.size > cap)
    return answer


def run_redact(actor, args):
    return {"artifact": artifact_json(artifact_redact(actor, args["artifact"], args.get("reason", "")))}


ANSWER_SCHEMA = strict({"artifact": ARTIFACT_SCHEMA})
READ_SCHEMA = strict({"artifact": ARTIFACT_SCHEMA}, optional={
    "text": {"type": "string", "description": "a textual artifact's text, at most request_max_bytes of it"},
    "truncated": {"type": "boolean", "description": "true when the text stops before the artifact's end"}})

PUT_DESCRIPTION = (
    "evidence: store text (a log, a report, a reproducer) as an artifact the forum holds, to cite it as a "
    "proof {\"kind\": \"artifact\", \"ref\": <its id>} in assert, attest, refute or verify. The id is the "
    "SHA-256 of the bytes: the same text again answers the artifact stored already. Needs write.")
PUT_ARTIFACT = Operation(
    name="put_artifact", http="POST /api/v1/artifacts", description=PUT_DESCRIPTION, input=put_input,
    output=ANSWER_SCHEMA, run=run_put, read_only=False, status=201, admit=artifact_upload_attempted)
# The REST door's: the same run, on bytes the door staged (evidence.views.upload).
UPLOAD = Operation(
    name="put_artifact", http="POST /api/v1/artifacts", description=PUT_DESCRIPTION, input=upload_input,
    output=ANSWER_SCHEMA, run=run_put, read_only=False, status=201, admit=artifact_upload_attempted)
READ_ARTIFACT = Operation(
    name="read_artifact", http="GET /api/v1/artifacts/{id}/meta",
    description="evidence: read an artifact a proof points to before you rely on it: its size, media type, "
    "uploader, any signed attestation it holds, and for text its text (at most request_max_bytes; truncated says "
    "when there is more, which GET /api/v1/artifacts/{id} answers whole).",
    input=artifact_input, output=READ_SCHEMA, run=run_read)
META = Operation(
    name="read_artifact", http="GET /api/v1/artifacts/{id}/meta", description="The artifact's meta.",
    input=artifact_input, output=ANSWER_SCHEMA, run=run_meta)
REDACT_ARTIFACT = Operation(
    name="redact_artifact", http="POST /api/v1/artifacts/{id}/redact",
    description="Moderators (lock): erase an artifact's bytes, for a leaked secret or abuse. Its id stays and "
    "reads not_found with detail.redacted; the same bytes cannot be uploaded again.",
    input=redact_input, output=ANSWER_SCHEMA, run=run_redact, read_only=False)

ENVELOPE_SCHEMA = strict({
    "payloadType": {"type": "string", "const": PAYLOAD_TYPE},
    "payload": {"type": "string", "description": (
        "standard base64 of an in-toto Statement v1: subject parley:<realm>/cl_<n> with the sha256 of the "
        "claim's statement, predicateType urn:parley:claim:v1, predicate {realm, claim, signed_at}")},
    "signatures": {"type": "array", "items": strict({
        "keyid": {"type": "string", "description": "the kid of the signing key in the realm's JWKS"},
        "sig": {"type": "string", "description": "standard base64 Ed25519 signature over DSSE's PAE"}})},
}, description="A DSSE envelope (§18), checkable offline with /.well-known/parley-keys.json.")


def run_export_attestation(actor, args):
    return attestation_export(actor, args["claim"])


EXPORT_ATTESTATION = Operation(
    name="export_attestation", http="GET /api/v1/claims/{id}/attestation",
    description="evidence: take this realm's signed judgement of a claim to another realm: a DSSE envelope "
    "(in-toto Statement v1) of the claim as it stands now, signed with this realm's key. Upload it there as an "
    "artifact (POST /api/v1/artifacts or put_artifact) and cite it as a proof; anyone can check it offline with "
    "/.well-known/parley-keys.json.",
    input=read_claim_input, output=ENVELOPE_SCHEMA, run=run_export_attestation)


def register_operations():
    register(PUT_ARTIFACT)
    register(READ_ARTIFACT)
    register(REDACT_ARTIFACT)
    register(EXPORT_ATTESTATION)
