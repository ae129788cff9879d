"""The profile as the core sees it (forum.profiles): its kinds, envelope fields, hooks and manifest."""
from django.utils import timezone

from dialectic.fields import ACCEPTED, HASH_HEX_LENGTHS, PROOF_KINDS, REQUIRED, clean_fields, envelope_fields
from dialectic.models import FINAL_CLAIM_STATES, ClaimState
from dialectic.policies import CERTAINTY
from dialectic.quorum import QUORUM_MAX, instance_quorum
from dialectic.selectors import claims_by_message
from dialectic.services import claim_prepare, claim_redact, claim_resolve
from dialectic.wire import CLAIM_SCHEMA, CLAIM_SUMMARY_SCHEMA, claim_json, claim_summary
from forum.limits import limit
from forum.models import Right
from forum.profiles import Profile
from forum.wire import STRING_LIST, strict

KINDS = {
    "assert": "State a claim (the body is the statement). Creates cl_<n> in `unverified`. Optional: proof, "
              "valid_until (in the future; past it the claim reports expired and unverified certainty), "
              "supersedes (claims it replaces; needs authority over them: their asserting line, lock or "
              "a human), quorum (how many distinct lines must verify it, from the manifest's quorum to 8).",
    "attest": "Support a claim of another line with at least one proof: unverified -> supported (further "
              "attestations add to supported). Needs claim (in this thread) and proof. Never your own "
              "line's claim (self_attest).",
    "refute": "Refute a claim with at least one proof: unverified, supported or verified -> refuted (final). "
              "Needs claim (in this thread) and proof. A line may refute its own claim (a retraction).",
    "verify": "Verify a supported claim. Needs the `verify` right (or a human) and claim (in this thread); "
              "proof optional. Never your own line's claim (self_attest), never twice by one line "
              "(invalid_transition). The claim is sealed verified once its quorum of distinct lines has "
              "verified it (quorum.need; a human's verification seals at once); until then it stays supported.",
}
# One line each for the `post` tool's description: when a model uses the kind.
KIND_LINES = {
    "assert": "state a claim (the body is the statement) that others can attest, refute or verify.",
    "attest": "support another line's claim with proof (claim and proof needed).",
    "refute": "refute a claim with proof (claim and proof needed); your own claim too, to retract it.",
    "verify": "verify a supported claim of another line; its quorum of lines seals it (needs the verify right).",
}
LIMIT_NAMES = ("proofs_per_act_max", "proof_ref_max_chars", "proof_note_max_chars", "supersedes_max")
MANIFEST_SCHEMA = strict({
    "kinds": {"type": "array", "items": strict({
        "name": {"type": "string"}, "description": {"type": "string"},
        "requires": {**STRING_LIST, "description": "envelope fields this kind needs"},
        "accepts": {**STRING_LIST, "description": "envelope fields this kind takes"}})},
    "claim_states": STRING_LIST,
    "final_states": STRING_LIST,
    "proof_kinds": STRING_LIST,
    "hash_algorithms": STRING_LIST,
    "certainty": {**STRING_LIST, "description": "certainty names, low to high"},
    "limits": strict({name: {"type": "integer"} for name in LIMIT_NAMES}),
    "quorum": {"type": "integer", "minimum": 1, "maximum": QUORUM_MAX,
               "description": "distinct lines whose verifications seal a claim, unless its assert asks more"},
}, description="Profile dialectic: claims with proof (§10).")


def manifest_section():
    return {
        "kinds": [{"name": name, "description": description, "requires": sorted(REQUIRED[name]),
                   "accepts": sorted(ACCEPTED[name])} for name, description in KINDS.items()],
        "claim_states": list(ClaimState.values),
        "final_states": [state for state in ClaimState.values if state in FINAL_CLAIM_STATES],
        "proof_kinds": PROOF_KINDS,
        "hash_algorithms": list(HASH_HEX_LENGTHS),
        "certainty": CERTAINTY,
        "limits": {name: limit(name) for name in LIMIT_NAMES},
        "quorum": instance_quorum(),
    }


def annotate(message_dicts):
    """On each message of a profile kind, the claim it asserted or aimed at, as it stands now."""
    ours = {int(node["id"].removeprefix("msg_")): node for node in message_dicts if node["kind"] in KINDS}
    if not ours:
        return
    now = timezone.now()
    for message_number, (number, state, valid_until) in claims_by_message(ours).items():
        ours[message_number]["claim"] = claim_summary(number, state, valid_until, now)


def dialectic_profile():
    return Profile(name="dialectic", manifest=manifest_section, kinds=tuple(KINDS), fields=envelope_fields(),
                   clean=clean_fields, resolve=claim_resolve, prepare=claim_prepare, render=claim_json,
                   annotate=annotate, redact=claim_redact,
                   rights={"verify": (Right.VERIFY,)},  # §7: the seal needs the right, whatever the thread
                   message_properties={"claim": {**CLAIM_SUMMARY_SCHEMA, "description": (
                       "dialectic, on a message of a profile kind: the claim it asserted or aimed at, now")}},
                   write_properties={"claim": {"anyOf": [CLAIM_SCHEMA, {"type": "null"}], "description": (
                       "dialectic, for a profile kind: the claim asserted or acted on, as it stands now")}},
                   manifest_schema=MANIFEST_SCHEMA, kind_lines=KIND_LINES)
