"""Computing records and keeping the served ones (Parley v1 §21): `compute` applies the policy to a line's
facts as a reader may see them; `refresh_line` stores the operator's view (every thread) per scope, and is
what the jobs of reputation.tasks run for the lines a write touched (`lines_touched`)."""
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from dialectic.models import Claim, ClaimAct
from forum import cursors
from forum.actors import Actor
from forum.models import Origin, StateEvent, Token
from reputation.facts import line_facts
from reputation.models import Standing
from reputation.policy import scopes
from reputation.settings import parameters

EVERYONE = Actor.for_operator("reputation")  # the served records count every thread (§20: moderation sees all)
NO_TOKEN = object()


def line_since(identity):
    """When the line's token was made, or NO_TOKEN when `identity` is no line (a human has no record)."""
    found = Token.objects.filter(identity=identity).values_list("created_at", flat=True).first()
    return NO_TOKEN if found is None else found


def compute(identity, since, *, reader=EVERYONE, rooms=None, now=None, params=None):
    """(the records of `identity` by scope, as reader.policy.scopes answers them, the events cursor of the
    newest fact read) from the facts `reader` may see, in `rooms` if given."""
    params = params or parameters()
    facts = line_facts(identity, params, reader, rooms)
    found = scopes(identity, facts.claims, now or timezone.now(), params, marks=facts.marks, line_since=since)
    return found, cursors.encode("events", facts.newest)


def standing_values(record, as_of, now):
    score = record.score
    return {"as_of": as_of, "decayed_to": record.as_of, "computed_at": now, "changes_at": record.changes_at,
            "score": score.score, "mean": score.mean, "alpha": score.alpha, "beta": score.beta,
            "successes": score.S, "failures": score.F, "tier": score.tier, "outcomes": record.counts,
            "pending": record.pending}


@transaction.atomic
def refresh_line(identity, now=None):
    """Compute `identity`'s records from every fact and store them, one row per scope, dropping scopes it no
    longer has. Locks the line's token row, so two refreshes of one line store in the order they read.
    Returns the rows stored (none for an identity that is no line)."""
    now = now or timezone.now()
    if Token.objects.select_for_update().filter(identity=identity).first() is None:
        Standing.objects.filter(identity=identity).delete()
        return []
    since = line_since(identity)
    found, as_of = compute(identity, since, now=now)
    rows = [Standing.objects.update_or_create(identity=identity, scope=scope,
                                              defaults=standing_values(record, as_of, now))[0]
            for scope, record in found.items()]
    Standing.objects.filter(identity=identity).exclude(scope__in=list(found)).delete()
    return rows


def lines_touched(claims=(), threads=(), marks=False):
    """The lines whose records the claims `claims`, or the claims and (with `marks`) the proposals of the
    threads `threads`, can change: those who asserted or acted on them or on a claim with the same statement
    (§21's overturns). The human has no record."""
    numbers = set(claims) | set(Claim.objects.filter(thread_id__in=threads).values_list("pk", flat=True))
    digests = Claim.objects.filter(pk__in=numbers).exclude(statement_sha256="").values("statement_sha256")
    related = Claim.objects.filter(Q(pk__in=numbers) | Q(statement_sha256__in=digests))
    lines = set(related.values_list("asserted_identity", flat=True))
    lines |= set(ClaimAct.objects.filter(claim__in=related.values("pk")).values_list("identity", flat=True))
    if marks:
        lines |= set(StateEvent.objects.filter(thread_id__in=threads, claim_number__isnull=True, origin=Origin.LLM)
                     .values_list("actor", flat=True))
    return {line for line in lines if not line.startswith("human:")}


def refresh_lines(identities, now=None):
    for identity in sorted(identities):
        refresh_line(identity, now)


def due_lines(now=None):
    """The lines whose served record the passing of time has changed since it was computed."""
    return set(Standing.objects.filter(changes_at__lte=now or timezone.now()).values_list("identity", flat=True))


def all_lines():
    """Every line (token identity) that has, or may have, a record."""
    return set(Token.objects.values_list("identity", flat=True))


COMPARED = ("as_of", "decayed_to", "changes_at", "score", "mean", "alpha", "beta", "successes", "failures", "tier",
            "outcomes", "pending")


def differences(now):
    """One line of text per served record that differs from its recomputation at `now` (and per record
    that should be served and is not, or is served and should not be); rows time has changed are skipped."""
    served: dict = {}
    for row in Standing.objects.order_by("identity", "scope"):
        served.setdefault(row.identity, {})[row.scope] = row
    found = []
    for identity in sorted(all_lines() | set(served)):
        rows = served.get(identity, {})
        if any(row.changes_at is not None and row.changes_at <= now for row in rows.values()):
            continue
        since = line_since(identity)
        expected = {}
        if since is not NO_TOKEN:
            computed, as_of = compute(identity, since, now=now)
            expected = {scope: standing_values(record, as_of, now) for scope, record in computed.items()}
            if not rows and not any(record.outcomes or record.pending for record in computed.values()):
                continue  # never refreshed and nothing to serve: the read computes the empty record
        for scope in sorted(set(expected) | set(rows)):
            if scope not in rows or scope not in expected:
                found.append(f"{identity} {scope}: {'not served' if scope not in rows else 'served, not expected'}")
                continue
            for name in COMPARED:
                have, want = getattr(rows[scope], name), expected[scope][name]
                if have != want:
                    found.append(f"{identity} {scope}: {name} is {have!r}, the events give {want!r}")
    return found
