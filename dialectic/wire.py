"""The claim's JSON (Parley v1 §12) and its strict JSON Schema, shared by REST, MCP and post results."""
from django.utils import timezone

from dialectic.fields import PROOF_KINDS
from dialectic.models import ClaimActKind, ClaimState
from dialectic.policies import CERTAINTY, certainty, is_expired
from dialectic.quorum import QUORUM_MAX
from forum.wire import NULLABLE_TIME, REDACTION_SCHEMA, TIME, key, redaction_json, stamp, strict


def who(identity, extension):
    return {"identity": identity, "extension": extension or None}


def act_json(act):
    return {"by": who(act.identity, act.extension), "at": stamp(act.at), "proof": act.proof}


def claim_json(claim, now=None):
    """`claim` as dialectic.selectors.claims_with_history() fetches it (acts and supersedes in order)."""
    expired = is_expired(claim.valid_until, now or timezone.now())
    acts = claim.acts.all()
    refutation = next((act for act in acts if act.kind == ClaimActKind.REFUTE), None)
    verifications = [act for act in acts if act.kind == ClaimActKind.VERIFY]
    seal = next((act for act in verifications if act.seals), None)
    return {
        "id": key("cl", claim.pk),
        "thread": key("th", claim.thread_id),
        "message": key("msg", claim.message_id),
        "statement": claim.statement,
        "asserted_by": who(claim.asserted_identity, claim.asserted_extension),
        "state": claim.state,
        "certainty": certainty(claim.state, expired),
        "expired": expired,
        "valid_until": stamp(claim.valid_until),
        "proofs": claim.proofs,
        "attestations": [act_json(act) for act in acts if act.kind == ClaimActKind.ATTEST],
        "refutation": act_json(refutation) if refutation else None,
        "quorum": {"have": len(verifications), "need": claim.quorum_need},
        "verifications": [act_json(act) for act in verifications],
        "verified_by": who(seal.identity, seal.extension) if seal else None,
        "supersedes": [key("cl", old.pk) for old in claim.supersedes.all()],
        "superseded_by": key("cl", claim.superseded_by_id),
        "created_at": stamp(claim.created_at),
        "redacted": redaction_json(claim.redacted_by, claim.redacted_at),
    }


def claim_summary(number, state, valid_until, now):
    """What a message of the thread shows about its claim (§10): where the statement stands."""
    expired = is_expired(valid_until, now)
    return {"id": key("cl", number), "state": state, "certainty": certainty(state, expired), "expired": expired}


WHO_SCHEMA = strict({"identity": {"type": "string"}, "extension": {"type": ["string", "null"]}})
PROOF_SCHEMA = {
    "type": "object",
    "properties": {"kind": {"type": "string", "enum": PROOF_KINDS}, "ref": {"type": "string"},
                   "note": {"type": "string"}},
    "required": ["kind", "ref"],
    "additionalProperties": False,
}
PROOFS_SCHEMA = {"type": "array", "items": PROOF_SCHEMA}
ACT_SCHEMA = strict({"by": WHO_SCHEMA, "at": TIME, "proof": PROOFS_SCHEMA})
CLAIM_REF = {"type": "string", "pattern": "^cl_[0-9]+$"}
QUORUM_SCHEMA = strict({
    "have": {"type": "integer", "minimum": 0, "description": "distinct lines that have verified the claim"},
    "need": {"type": "integer", "minimum": 1, "maximum": QUORUM_MAX,
             "description": "distinct lines whose verifications seal it (a human's seals at once)"},
}, description="The claim's verification quorum (§18).")

CLAIM_SUMMARY_SCHEMA = strict({
    "id": CLAIM_REF,
    "state": {"type": "string", "enum": ClaimState.values},
    "certainty": {"type": "string", "enum": CERTAINTY},
    "expired": {"type": "boolean"},
})

CLAIM_SCHEMA = strict({
    "id": CLAIM_REF,
    "thread": {"type": "string", "pattern": "^th_[0-9]+$"},
    "message": {"type": "string", "pattern": "^msg_[0-9]+$"},
    "statement": {"type": "string"},
    "asserted_by": WHO_SCHEMA,
    "state": {"type": "string", "enum": ClaimState.values},
    "certainty": {"type": "string", "enum": CERTAINTY},
    "expired": {"type": "boolean"},
    "valid_until": NULLABLE_TIME,
    "proofs": PROOFS_SCHEMA,
    "attestations": {"type": "array", "items": ACT_SCHEMA},
    "refutation": {"anyOf": [ACT_SCHEMA, {"type": "null"}]},
    "quorum": QUORUM_SCHEMA,
    "verifications": {"type": "array", "items": ACT_SCHEMA},
    "verified_by": {"anyOf": [WHO_SCHEMA, {"type": "null"}],
                    "description": "the line whose verification sealed the claim, else null"},
    "supersedes": {"type": "array", "items": CLAIM_REF},
    "superseded_by": {"anyOf": [CLAIM_REF, {"type": "null"}]},
    "created_at": TIME,
    "redacted": {**REDACTION_SCHEMA, "description": (
        "null, or who redacted the asserting message and when (the statement and proofs are then empty)")},
}, description="A claim of the dialectic profile (Parley v1 §10, §12).")
