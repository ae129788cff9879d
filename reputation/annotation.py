"""Use 1 of §21, `queue_annotation` (on by default): `inbox` and `list_threads` take `annotate=reputation`,
and each item then carries `"reputation": {"identity", "score", "tier"}` of the line whose act set the
thread's `awaiting` (forum.models.Thread.awaiting_by_identity: the asker; for a confirmation, the
proposer). It is a forum.profiles.Decoration: the core keeps §11's order and cursors, and the page's
records are read in one query.

Who may ask: a record is read by its line, lock holders and the human (§21); a list's askers are other
lines, so annotating takes `lock` (a line without it is refused as read_reputation refuses it)."""
from forum.access import require_right
from forum.models import Right
from forum.profiles import Decoration
from parley_site.errors import InvalidBody
from parley_site.shapes import Str
from reputation.tiers import NEW
from reputation.models import Standing
from reputation.policy import GLOBAL
from reputation.settings import parameters

ANNOTATED = ("inbox", "list_threads")
ANNOTATE = {"annotate": Str(enum=["reputation"], description=(
    "reputation: annotate=reputation adds to each thread the score and tier of the line whose act it awaits "
    "an answer to (the asker; for a confirmation, the proposer). Needs lock; changes neither order nor "
    "cursors."))}
ITEM_PROPERTIES = {"reputation": {
    "anyOf": [{"type": "object", "properties": {
        "identity": {"type": "string"},
        "score": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "tier": {"anyOf": [{"type": "string", "enum": ["new", "probation", "established"]}, {"type": "null"}]},
    }, "required": ["identity", "score", "tier"], "additionalProperties": False}, {"type": "null"}],
    "description": "reputation, with annotate=reputation: the record of the line whose act set awaiting (null "
                   "when nothing awaits or no line's act set it; score and tier null for a human, who has no "
                   "record, §21)"}}


def decorate(actor, operation_name, args):
    """The profile's `decorate`: the annotation, when this list call asks for it; refuses invalid_body when
    the instance has turned the use off, token_right_missing (lock) for a caller who may not read others'
    records."""
    if operation_name not in ANNOTATED or args.get("annotate") != "reputation":
        return None
    if not parameters().queue_annotation:
        raise InvalidBody("annotate=reputation is not a use this instance turns on (profiles.reputation.uses)",
                          field="annotate")
    require_right(actor, Right.LOCK)
    return Decoration("reputation", annotations)


def asker(thread):
    """The line whose act set the thread's open move, or None when nothing awaits or no act of a line set
    it (a confirmation or dismissal that restored a move)."""
    if thread.awaiting_act is None:
        return None
    return thread.awaiting_by_identity or None


def annotations(threads):
    """One annotation per thread of a page, the page's records read in one query."""
    identities = {asker(thread) for thread in threads} - {None}
    records = standings(sorted(identity for identity in identities if not is_human(identity)))
    return [annotation(asker(thread), records) for thread in threads]


def annotation(identity, records):
    if identity is None:
        return None
    if is_human(identity):
        return {"identity": identity, "score": None, "tier": None}
    found = records.get(identity)
    return {"identity": identity, "score": found.score if found else 0.0, "tier": found.tier if found else NEW}


def is_human(identity):
    return identity.startswith("human:")  # forum.actors: a person's identity; §21: humans have no record


def standings(identities):
    """{identity: its served global standing} for these lines, in one query (none for an empty page)."""
    if not identities:
        return {}
    return {standing.identity: standing for standing in
            Standing.objects.filter(identity__in=identities, scope=GLOBAL).only("identity", "score", "tier")}
