"""Pure rules of the dialectic profile (Parley v1 §10): no I/O, no exceptions but Illegal, only answers.
The services ask these and raise the refusal."""
import hashlib

from forum.models import Right
from forum.policies import can_moderate

from dialectic.models import FINAL_CLAIM_STATES, ClaimState

# §10 [D]: graded certainty, low to high. A claim reports its certainty by name.
CERTAINTY = ["refuted", "superseded", "unverified", "supported", "verified"]
UNCHANGED = None  # the act is recorded, the claim's state stays (a further attestation)


class Illegal(Exception):
    """The act cannot move the claim from its current state."""


def is_expired(valid_until, now):
    return valid_until is not None and valid_until <= now


def certainty(state, expired):
    """§10: past `valid_until` a claim drops to `unverified` level; dropping never lifts a refuted or
    superseded claim, which already sit below it."""
    if expired and CERTAINTY.index(state) > CERTAINTY.index(ClaimState.UNVERIFIED):
        return ClaimState.UNVERIFIED.value
    return str(state)


def states_with_certainty(name):
    """(states that have this certainty unexpired, states that have it only once expired): the inverse of
    certainty(), for filtering."""
    if name == ClaimState.UNVERIFIED:
        return [ClaimState.UNVERIFIED], [ClaimState.SUPPORTED, ClaimState.VERIFIED]
    if name in (ClaimState.SUPPORTED, ClaimState.VERIFIED):
        return [name], []
    return [name], [name]


def supports_own_claim(actor, claim):
    """§10 [D]: a line may not attest or verify its own claim, whatever the extension (`self_attest`)."""
    return actor.identity == claim.asserted_identity


def verification_seals(actor, have, need):
    """§18: a verification seals once `have` distinct lines (this one counted) reach the claim's `need`; a
    human's seals at once (§7 rule 4). With a need of 1 every verification seals, as §10 says."""
    return actor.is_human or have >= need


def statement_digest(statement):
    """§18: the subject digest of a claim, the SHA-256 of its statement in UTF-8, in hex."""
    return hashlib.sha256(statement.encode()).hexdigest()


def can_seal(actor):
    """Whether `actor`, as it acts on a thread (its room's powers held, forum.actors.Actor.holding), could seal
    claims there: the human, a line with `verify`, a verifier of the room (§20)."""
    return actor.is_human or Right.VERIFY in actor.rights


def can_supersede(actor, claim):
    """§10: authority over a claim is the asserting line's, a lock holder's or a human's."""
    return can_moderate(actor) or actor.identity == claim.asserted_identity


def next_claim_state(kind, state):
    """The §10 diagram: the claim's new state after `kind`, UNCHANGED, or Illegal. `assert` here is the
    supersede of an older claim by a newer assert."""
    if state in FINAL_CLAIM_STATES:
        raise Illegal(f"the claim is {state}, which is final")
    if kind == "attest":
        if state == ClaimState.UNVERIFIED:
            return ClaimState.SUPPORTED
        if state == ClaimState.SUPPORTED:
            return UNCHANGED
        raise Illegal(f"attest supports an unverified or supported claim, not a {state} one")
    if kind == "verify":
        if state == ClaimState.SUPPORTED:
            return ClaimState.VERIFIED
        raise Illegal(f"verify seals a supported claim only, not a {state} one")
    if kind == "refute":
        return ClaimState.REFUTED  # §10: from unverified, supported and verified alike
    return ClaimState.SUPERSEDED
