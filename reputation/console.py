"""The reputation profile's part of the console (§21), staff only and read-only, as the console's other
reading pages (console.pages): a line's record with each counted outcome linked to the claim and the event
that made it; the moderation queue with each proposer's score and tier, sortable by the score; and each
verifier line's accuracy, the seals whose refutation later held, which is how a human sees colluding
verifiers (the known limit §21 names).

No page lists lines ranked by their record (§21: no leaderboard): the queue orders threads, and the
verifiers' page lists lines by identity, never by accuracy."""
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import OuterRef, Subquery
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _

from forum.access import visible_threads_q
from forum.actors import Actor
from forum.selectors import moderation_queue_entered_after, pending_proposal
from parley_site.errors import NotFound, TokenRightMissing
from reputation.accuracy import verifier_accuracy
from reputation.annotation import annotation, standings
from reputation.selectors import counted, read_record

ROWS_PER_PAGE = 50
ORDERS = {"entered": None, "score": False, "-score": True}  # ?order= -> sorted by score, descending or not


@staff_member_required
def record_page(request, identity):
    actor = Actor.for_user(request.user)
    try:
        record = read_record(actor, identity)
    except NotFound:
        raise Http404(_("no such line")) from None
    except TokenRightMissing:
        raise PermissionDenied from None
    outcomes = [outcome_row(outcome) for outcome in counted(actor, record["identity"])]
    return render(request, "reputation/record_page.html", {"record": record, "outcomes": outcomes})


def outcome_row(outcome):
    """An outcome with the numbers its links need: the thread page's event and the claim's admin page."""
    return {"outcome": outcome, "event": number(outcome.event), "thread": number(outcome.thread),
            "claim": number(outcome.claim) if outcome.claim else None}


def number(ref):
    return int(ref.rsplit("_", 1)[1])


@staff_member_required
def queue_page(request):
    """The moderation queue (forum.selectors.in_moderation_queue) as the human may see it, in the order its
    threads entered it, or by their proposers' scores (?order=score or -score). A full thread has no
    proposer, and sorts after every proposal."""
    actor = Actor.for_user(request.user)
    order = request.GET.get("order", "entered")
    if order not in ORDERS:
        order = "entered"
    proposer = Subquery(pending_proposal(OuterRef("pk")).values("actor"))
    threads = list(moderation_queue_entered_after(None).filter(visible_threads_q(actor)).annotate(proposer=proposer))
    records = standings(sorted({thread.proposer for thread in threads if thread.proposer}))
    rows = [{"thread": thread, "reputation": annotation(thread.proposer or None, records)} for thread in threads]
    if ORDERS[order] is not None:
        rows.sort(key=lambda row: score_key(row, ORDERS[order]))
    page = Paginator(rows, ROWS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "reputation/queue_page.html", {"page": page, "order": order})


def score_key(row, descending):
    """Proposals by score (None for a human's, who has no record, after every line's), then full threads."""
    reputation = row["reputation"]
    if reputation is None:
        return (2, 0.0)
    if reputation["score"] is None:
        return (1, 0.0)
    return (0, -reputation["score"] if descending else reputation["score"])


@staff_member_required
def verifiers_page(request):
    actor = Actor.for_user(request.user)
    return render(request, "reputation/verifiers_page.html", {"verifiers": verifier_accuracy(actor)})
