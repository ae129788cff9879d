"""The claim's JSON (Parley v1 §12), declared once (parley_site.records) for its rendering and its strict
JSON Schema, shared by REST, MCP and post results."""
from types import SimpleNamespace

from django.utils import timezone

from dialectic.fields import PROOF_KINDS
from dialectic.models import ClaimActKind, ClaimState
from dialectic.policies import CERTAINTY, certainty, is_expired
from dialectic.quorum import QUORUM_MAX
from forum.wire import REDACTION, redaction
from parley_site.records import Boolean, Field, Integer, Json, Key, ListOf, Record, Text, Time

WHO = Record({"identity": Field(Text()), "extension": Field(Text(), nullable=True)}, keyed=True)


def who(identity, extension):
    return {"identity": identity, "extension": extension}


PROOFS = Json({"type": "array", "items": {
    "type": "object",
    "properties": {"kind": {"type": "string", "enum": PROOF_KINDS}, "ref": {"type": "string"},
                   "note": {"type": "string"}},
    "required": ["kind", "ref"],
    "additionalProperties": False,
}})
ACT = Record({
    "by": Field(WHO, lambda act: who(act.identity, act.extension)),
    "at": Field(Time()),
    "proof": Field(PROOFS),
})
QUORUM = Record({
    "have": Field(Integer(minimum=0), description="distinct lines that have verified the claim"),
    "need": Field(Integer(minimum=1, maximum=QUORUM_MAX),
                  description="distinct lines whose verifications seal it (a human's seals at once)"),
}, keyed=True, description="The claim's verification quorum (§18).")
STATES = Text(enum=ClaimState.values)
CERTAINTIES = Text(enum=CERTAINTY)


class ClaimAt:
    """A claim as dialectic.selectors.visible_claims fetches it (acts and supersedes in order), read
    at a moment: what its JSON derives from its acts and its expiry, beside the claim's own fields."""

    def __init__(self, claim, now):
        self.claim = claim
        self.expired = is_expired(claim.valid_until, now)
        acts = claim.acts.all()
        self.attestations = [act for act in acts if act.kind == ClaimActKind.ATTEST]
        self.refutation = next((act for act in acts if act.kind == ClaimActKind.REFUTE), None)
        self.verifications = [act for act in acts if act.kind == ClaimActKind.VERIFY]
        self.seal = next((act for act in self.verifications if act.seals), None)

    def __getattr__(self, name):
        return getattr(self.claim, name)


CLAIM = Record({
    "id": Field(Key("cl"), "pk"),
    "thread": Field(Key("th"), "thread_id"),
    "message": Field(Key("msg"), "message_id"),
    "statement": Field(Text()),
    "asserted_by": Field(WHO, lambda claim: who(claim.asserted_identity, claim.asserted_extension)),
    "state": Field(STATES),
    "certainty": Field(CERTAINTIES, lambda claim: certainty(claim.state, claim.expired)),
    "expired": Field(Boolean()),
    "valid_until": Field(Time(), nullable=True),
    "proofs": Field(PROOFS),
    "attestations": Field(ListOf(ACT)),
    "refutation": Field(ACT, nullable=True),
    "quorum": Field(QUORUM, lambda claim: {"have": len(claim.verifications), "need": claim.quorum_need}),
    "verifications": Field(ListOf(ACT)),
    "verified_by": Field(WHO, lambda claim: claim.seal and who(claim.seal.identity, claim.seal.extension),
                         nullable=True, description="the line whose verification sealed the claim, else null"),
    "supersedes": Field(ListOf(Key("cl")), lambda claim: [old.pk for old in claim.supersedes.all()]),
    "superseded_by": Field(Key("cl"), "superseded_by_id", nullable=True),
    "created_at": Field(Time()),
    "redacted": Field(REDACTION, redaction, nullable=True, description=(
        "null, or who redacted the asserting message and when (the statement and proofs are then empty)")),
}, description="A claim of the dialectic profile (Parley v1 §10, §12).")

# What a message of the thread shows about its claim (§10): where the statement stands.
CLAIM_SUMMARY = Record({
    "id": Field(Key("cl"), "pk"),
    "state": Field(STATES),
    "certainty": Field(CERTAINTIES, lambda claim: certainty(claim.state, claim.expired)),
    "expired": Field(Boolean()),
})
CLAIM_SCHEMA, CLAIM_SUMMARY_SCHEMA = CLAIM.schema(), CLAIM_SUMMARY.schema()


def claim_json(claim, now=None):
    return CLAIM.render(ClaimAt(claim, now or timezone.now()))


def claim_summary(number, state, valid_until, now):
    return CLAIM_SUMMARY.render(SimpleNamespace(pk=number, state=state, expired=is_expired(valid_until, now)))
