"""The artifact's JSON (Parley v1 §18), declared once (parley_site.records) for its rendering and its strict
JSON Schema, shared by REST and MCP."""
from evidence.envelopes import attests_view
from evidence.selectors import ID_PATTERN
from forum.wire import AUTHOR_KINDS
from parley_site.records import Boolean, Field, Integer, Record, Text, Time

ATTESTS = Record({
    "realm": Field(Text()), "claim": Field(Text()), "state": Field(Text()), "certainty": Field(Text()),
    "signed_at": Field(Text(format="date-time")),  # as the signed statement says it
    "kid": Field(Text()), "trusted": Field(Boolean()),
}, keyed=True, description="What a signed attestation stored as this artifact says (§18)")
UPLOADER = Record({
    "identity": Field(Text(), "uploaded_identity"),
    "author_kind": Field(Text(enum=list(AUTHOR_KINDS.values())), lambda artifact: AUTHOR_KINDS[artifact.uploaded_kind]),
}, description="the first uploader")
ARTIFACT = Record({
    "id": Field(Text(pattern=f"^{ID_PATTERN.replace('a-fA-F', 'a-f')}$"), "pk",
                description="sha256:<64 hex> of the bytes"),
    "size": Field(Integer(), description="bytes"),
    "media_type": Field(Text(), description="as the first upload declared it"),
    "created_at": Field(Time()),
    "uploaded_by": Field(UPLOADER, lambda artifact: artifact),
    "attests": Field(ATTESTS, lambda artifact: attests_view(artifact.attests), nullable=True,
                     description="a signed attestation's record, null for every other artifact"),
}, description="An artifact of the evidence profile (Parley v1 §18).")
artifact_json, ARTIFACT_SCHEMA = ARTIFACT.render, ARTIFACT.schema()
