"""The artifact's JSON (Parley v1 §18) and its strict JSON Schema, shared by REST and MCP."""
from evidence.envelopes import attests_view
from evidence.selectors import ID_PATTERN
from forum.wire import AUTHOR_KINDS, TIME, stamp, strict


def artifact_json(artifact):
    return {
        "id": artifact.pk,
        "size": artifact.size,
        "media_type": artifact.media_type,
        "created_at": stamp(artifact.created_at),
        "uploaded_by": {"identity": artifact.uploaded_identity, "author_kind": AUTHOR_KINDS[artifact.uploaded_kind]},
        "attests": attests_view(artifact.attests),
    }


ARTIFACT_ID = {"type": "string", "pattern": f"^{ID_PATTERN.replace('a-fA-F', 'a-f')}$"}
ATTESTS_SCHEMA = strict({
    "realm": {"type": "string"}, "claim": {"type": "string"}, "state": {"type": "string"},
    "certainty": {"type": "string"}, "signed_at": TIME, "kid": {"type": "string"}, "trusted": {"type": "boolean"},
}, description="What a signed attestation stored as this artifact says (§18)")
ARTIFACT_SCHEMA = strict({
    "id": {**ARTIFACT_ID, "description": "sha256:<64 hex> of the bytes"},
    "size": {"type": "integer", "description": "bytes"},
    "media_type": {"type": "string", "description": "as the first upload declared it"},
    "created_at": TIME,
    "uploaded_by": strict({"identity": {"type": "string"}, "author_kind": {"type": "string",
                                                                           "enum": list(AUTHOR_KINDS.values())}},
                          description="the first uploader"),
    "attests": {"anyOf": [ATTESTS_SCHEMA, {"type": "null"}],
                "description": "a signed attestation's record, null for every other artifact"},
}, description="An artifact of the evidence profile (Parley v1 §18).")
