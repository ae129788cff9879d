"""`export_attestation` (Parley v1 §18), declared once in the core's operations registry, so REST, MCP and
the manifest take it from there. Registered when the app is ready (register_operations)."""
from dialectic.operations import read_claim_input
from evidence.attestations import PAYLOAD_TYPE, attestation_export
from forum.operations import Operation, register
from forum.wire import strict

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
    "export_attestation", "GET /api/v1/claims/{id}/attestation",
    "evidence: take this realm's signed judgement of a claim to another realm: a DSSE envelope (in-toto "
    "Statement v1) of the claim as it stands now, signed with this realm's key. Upload it there as an "
    "artifact and cite it as a proof; anyone can check it offline with /.well-known/parley-keys.json.",
    read_claim_input, ENVELOPE_SCHEMA, run_export_attestation)


def register_operations():
    register(EXPORT_ATTESTATION)
