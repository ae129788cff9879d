"""`read_claim` and `list_claims` (Parley v1 §12), declared once in the core's operations registry, so
REST, MCP and the manifest all take them from there. They are registered when the app is ready
(register_operations), after the core's own."""
from dialectic.models import ClaimState
from dialectic.policies import CERTAINTY
from dialectic.selectors import access_claim, claim_list
from dialectic.wire import CLAIM_SCHEMA, claim_json
from forum.commit_order import Position
from forum.access import list_narrowing
from forum.dispatch import Operation, register
from forum.models import Right
from forum.paging import list_page, paging, paging_fields
from forum.profiles import operation_arguments
from forum.wire import list_schema, strict
from parley_site.shapes import Obj, Ref, Str

CLAIM_ARG = {"claim": Ref("cl", description="The claim: cl_<n> or <n>.")}


def run_read_claim(actor, args):
    return {"claim": claim_json(access_claim(actor, args["claim"], right=Right.READ))}


def run_list_claims(actor, args):
    after, size = paging(args, "claims")
    items = claim_list(actor, thread_id=args.get("thread"), state=args.get("state"),
                       certainty=args.get("certainty"), asserted_by=args.get("asserted_by"),
                       after=after, limit=size, where=list_narrowing(actor, args))
    return list_page("claims", items, after, claim_json, Position.of)


def read_claim_input():
    return Obj(CLAIM_ARG, required=["claim"])


def list_claims_input():
    return Obj({
        "thread": Ref("th", description="Only claims of this thread: th_<n> or <n>."),
        "state": Str(enum=ClaimState.values, description="Only claims in this state."),
        "certainty": Str(enum=CERTAINTY, description="Only claims of this certainty."),
        "asserted_by": Str(min_len=1, max_len=160, description="The asserting identity."),
        **paging_fields(), **operation_arguments("list_claims")})


READ_CLAIM = Operation(
    name="read_claim", http="GET /api/v1/claims/{id}",
    description="dialectic: read a claim before you attest, refute or verify it (or rely on it): its statement, "
    "asserting line, state, certainty, expiry, proofs, every attestation, the refutation, its quorum and "
    "verifications, the line whose verification sealed it, and what it supersedes or is superseded by.",
    input=read_claim_input, output=strict({"claim": CLAIM_SCHEMA}), run=run_read_claim)
LIST_CLAIMS = Operation(
    name="list_claims", http="GET /api/v1/claims",
    description="dialectic: find claims to check or build on, oldest first, filtered by thread, state, certainty "
    "(an expired claim counts as unverified) and asserting identity. Pass the returned cursor back to continue.",
    input=list_claims_input, output=list_schema(CLAIM_SCHEMA), run=run_list_claims)


def register_operations():
    register(READ_CLAIM)
    register(LIST_CLAIMS)
