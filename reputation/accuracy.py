"""Each verifier line's accuracy (§21, the console): of the claims it helped seal, how many a refutation
later overturned and held, with the policy's own rule of "held" (reputation.policy.refutation_status:
`hold_days`, a sealer's refutation at once, the overturn by a same-statement claim verified again). It is
how a human sees verifiers that seal each other's wrong claims, the collusion §21 names as its known limit.

Read over the claims the reader may see (§20); lines are listed by identity, never ranked."""
from collections import defaultdict
from dataclasses import dataclass, field

from django.utils import timezone

from dialectic.models import ClaimActKind, ClaimState
from dialectic.selectors import visible_claims
from reputation.policy import Act, ClaimFacts, refutation_status
from reputation.settings import parameters


@dataclass
class Accuracy:
    identity: str
    seals: int = 0
    refuted_claims: list = field(default_factory=list)  # claim numbers whose refutation held

    @property
    def refuted(self):
        return len(self.refuted_claims)

    @property
    def accuracy(self):
        return (self.seals - self.refuted) / self.seals if self.seals else None


def verifier_accuracy(actor):
    """[Accuracy] of every line that verified a claim that was sealed, by identity (humans too: their
    verification seals at once)."""
    claims = [claim_facts(claim) for claim in visible_claims(actor).select_related("thread")]
    by_statement = defaultdict(list)
    for facts in claims:
        by_statement[facts.statement_sha256].append(facts)
    now, params = timezone.now(), parameters()
    found: dict[str, Accuracy] = {}
    for facts in claims:
        seal = facts.seal()
        if seal is None:
            continue
        held = refuted_after_seal(facts, seal, by_statement[facts.statement_sha256], now, params)
        for identity in sorted(facts.verifiers()):
            accuracy = found.setdefault(identity, Accuracy(identity))
            accuracy.seals += 1
            if held:
                accuracy.refuted_claims.append(facts.number)
    return [found[identity] for identity in sorted(found)]


def refuted_after_seal(facts, seal, same_statement, now, params):
    refutation = facts.refutation()
    if facts.state != ClaimState.REFUTED or refutation is None or (refutation.at, refutation.event or 0) < (
            seal.at, seal.event or 0):
        return False
    return refutation_status(facts, refutation, same_statement, now, params)[0] == "held"


def claim_facts(claim):
    """The policy's facts of one claim, from the claim as visible_claims reads it (its acts prefetched)."""
    acts = tuple(Act(kind=act.kind, identity=act.identity, at=act.at, event=act.pk, seals=act.seals,
                     by_sealer=act.by_sealer) for act in claim.acts.all()
                 if act.kind in (ClaimActKind.VERIFY, ClaimActKind.REFUTE))
    return ClaimFacts(number=claim.pk, thread=claim.thread_id, room=claim.thread.room_number,
                      statement_sha256=claim.statement_sha256, asserter=claim.asserted_identity, state=claim.state,
                      valid_until=claim.valid_until, acts=acts)
