"""The facts reputation.policy reads, gathered from the claims, their acts and the state events (§10, §18,
§20, and §8's proposals when that input is on), of the threads a reader may see (forum.access's one
predicate), within some rooms or all: the condition is part of each query, never a filter on fetched rows.
The served records are gathered for the operator, who sees every thread."""
from dataclasses import dataclass

from django.db.models import Q

from dialectic.models import Claim, ClaimAct
from forum.access import visible_threads_q, within
from forum.commit_order import START, Position
from forum.models import Origin, StateEvent
from reputation.policy import Act, ClaimFacts, MarkFacts

DECISIONS = ("confirm", "dismiss")
NO_MARK = ("confirm", "dismiss", "redact", "move")  # thread events that neither propose nor end a proposal


@dataclass(frozen=True)
class Facts:
    claims: list
    marks: list
    newest: Position  # the newest state event among the facts, in commit order


def _in_rooms(sight, rooms):
    """`sight` (a Q on forum.Thread), within `rooms` (room numbers) if given; None for every thread."""
    if rooms is not None:
        sight &= Q(room_number__in=rooms)
    return sight or None


def line_claim_numbers(identity, reader, rooms=None):
    """The claims `identity` asserted or acted on, and the claims with the same statement as one of them (for
    §21's overturns), in the threads `reader` may see (in `rooms`, if given): three queries, each on an index
    (by asserter, by actor, by statement), so a line's cost does not grow with the forum's claims."""
    threads = _in_rooms(visible_threads_q(reader), rooms)
    own = set(within(Claim.objects.filter(asserted_identity=identity), threads).values_list("pk", flat=True))
    own |= set(within(ClaimAct.objects.filter(identity=identity), threads, "claim__thread")
               .values_list("claim_id", flat=True))
    if not own:
        return []
    digests = Claim.objects.filter(pk__in=sorted(own)).exclude(statement_sha256="").values("statement_sha256")
    same = within(Claim.objects.filter(statement_sha256__in=digests), threads).values_list("pk", flat=True)
    return sorted(own | set(same))


def claim_facts(numbers):
    """ClaimFacts of the claims `numbers` (a list or a values("pk") query), with their acts and the events
    those acts recorded, and the newest of those events: three queries."""
    rows = list(Claim.objects.filter(pk__in=numbers).values_list(
        "pk", "thread_id", "thread__room_number", "statement_sha256", "asserted_identity", "state", "valid_until"))
    found = [row[0] for row in rows]
    events = {}
    newest = START
    for pk, xact, message_id, claim_number in StateEvent.objects.filter(
            claim_number__in=found, message__isnull=False).values_list("pk", "xact", "message_id", "claim_number"):
        events[(message_id, claim_number)] = pk
        newest = max(newest, Position(xact, pk))
    acts: dict = {pk: [] for pk in found}
    for claim_id, kind, identity, at, seals, by_sealer, message_id in ClaimAct.objects.filter(
            claim_id__in=found).order_by("id").values_list(
            "claim_id", "kind", "identity", "at", "seals", "by_sealer", "message_id"):
        acts[claim_id].append(Act(kind=kind, identity=identity, at=at, event=events.get((message_id, claim_id)),
                                  seals=seals, by_sealer=by_sealer))
    claims = [ClaimFacts(number=pk, thread=thread, room=room, statement_sha256=digest, asserter=asserter,
                         state=state, valid_until=valid_until, acts=tuple(acts[pk]))
              for pk, thread, room, digest, asserter, state, valid_until in rows]
    return claims, newest


def mark_facts(identity, reader, rooms=None):
    """§8's proposals by `identity` and how they ended: a walk over the thread events of the threads it
    proposed a mark in (two queries). A proposal is a mark not confirmed when it was made; the next confirm
    or dismiss on its thread decides it, unless another mark took its place before."""
    threads = _in_rooms(visible_threads_q(reader), rooms)
    proposed = within(StateEvent.objects.filter(actor=identity, origin=Origin.LLM, claim_number__isnull=True),
                      threads).exclude(label__in=NO_MARK).values("thread_id")
    events = within(StateEvent.objects.filter(thread_id__in=proposed, claim_number__isnull=True), threads)
    marks, newest = [], START
    current: dict = {}
    for pk, xact, thread_id, room, label, origin, actor, at, confirmed_at in events.order_by("id").values_list(
            "pk", "xact", "thread_id", "thread__room_number", "label", "origin", "actor", "at", "confirmed_at"):
        newest = max(newest, Position(xact, pk))
        if label in DECISIONS:
            proposal = current.pop(thread_id, None)
            if proposal is not None:
                marks.append(MarkFacts(event=pk, thread=thread_id, room=room, proposer=proposal, decided_by=actor,
                                       decision=label, at=at))
        elif label not in NO_MARK:
            proposes = origin == Origin.LLM and (confirmed_at is None or confirmed_at != at)
            current[thread_id] = actor if proposes else None
            if not proposes:
                current.pop(thread_id)
    return [mark for mark in marks if mark.proposer == identity], newest


def line_facts(identity, params, reader, rooms=None):
    """Every fact `identity`'s record reads in the threads `reader` may see (in `rooms`, if given)."""
    claims, newest = claim_facts(line_claim_numbers(identity, reader, rooms))
    marks = []
    if params.proposals:
        marks, newest_mark = mark_facts(identity, reader, rooms)
        newest = max(newest, newest_mark)
    return Facts(claims=claims, marks=marks, newest=newest)
