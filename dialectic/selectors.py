"""Reads of the dialectic profile, and access_claim, through which every claim read and write goes: each
sees only the claims of threads its caller may see (forum.access)."""
from django.db.models import F, Prefetch, Q
from django.utils import timezone

from dialectic.models import Claim, ClaimAct, ClaimActKind
from dialectic.policies import states_with_certainty
from forum import commit_order
from forum.access import access_thread, require_right, visible_q, within
from forum.commit_order import START
from forum.models import Right
from parley_site.errors import NotFound


def visible_claims(actor):
    """The claims of the threads `actor` may see, with what claim_json shows of them, their message's
    redaction too (§17): three queries for any number of claims. A claim supersedes only claims of its own
    thread (dialectic.services), so those it supersedes are visible with it."""
    return Claim.objects.filter(visible_q(actor, "thread__")).annotate(
        redacted_by=F("message__redacted_by"), redacted_at=F("message__redacted_at")).prefetch_related(
        Prefetch("acts", queryset=ClaimAct.objects.order_by("id")),
        Prefetch("supersedes", queryset=Claim.objects.order_by("id").only("id", "superseded_by_id")),
    )


def access_claim(actor, number, *, right, lock=False):
    """The claim, if `actor` holds `right` and may see its thread: else token_right_missing, or `not_found`
    (detail.object "claim"). With lock=True the row stays locked until the transaction ends: taken after
    the thread's lock, it serialises every act on one claim (§10); without, it comes with its history."""
    require_right(actor, right)
    if lock:
        claim = Claim.objects.filter(visible_q(actor, "thread__"), pk=number).select_for_update(of=("self",)).first()
    else:
        claim = visible_claims(actor).filter(pk=number).first()
    if claim is None:
        raise NotFound("claim", f"cl_{number}")
    return claim


def verifying_lines(claim):
    """§18: the lines (identities, whatever the extension) that have verified the claim."""
    return set(ClaimAct.objects.filter(claim=claim, kind=ClaimActKind.VERIFY).values_list("identity", flat=True))


def certainty_filter(name, now):
    """The claims reporting certainty `name` now: expiry drops supported and verified to unverified."""
    states, expired_states = states_with_certainty(name)
    unexpired = Q(valid_until__isnull=True) | Q(valid_until__gt=now)
    return (Q(state__in=states) & unexpired) | Q(state__in=expired_states, valid_until__lte=now)


def claim_list(actor, *, thread_id=None, state=None, certainty=None, asserted_by=None, after=START, limit=50,
               where=None):
    """The claims of the threads `actor` may see that `where` (a profile's list arguments) admits."""
    require_right(actor, Right.READ)
    queryset = within(visible_claims(actor), where)
    if thread_id is not None:
        queryset = queryset.filter(thread=access_thread(actor, thread_id, right=Right.READ))
    if state is not None:
        queryset = queryset.filter(state=state)
    if certainty is not None:
        queryset = queryset.filter(certainty_filter(certainty, timezone.now()))
    if asserted_by is not None:
        queryset = queryset.filter(asserted_identity=asserted_by)
    return commit_order.page(queryset, after, limit)


def claims_by_message(message_numbers):
    """{message number: (claim number, state, valid_until)} for the claim each message asserted or aimed
    at, in one query however long the thread."""
    message_numbers = set(message_numbers)
    rows = (Claim.objects.filter(Q(message_id__in=message_numbers) | Q(acts__message_id__in=message_numbers))
            .values_list("pk", "state", "valid_until", "message_id", "acts__message_id"))
    found = {}
    for number, state, valid_until, asserted_in, acted_in in rows:
        for message_number in (asserted_in, acted_in):
            if message_number in message_numbers:
                found[message_number] = (number, state, valid_until)
    return found
