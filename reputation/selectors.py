"""Reads of the reputation profile (Parley v1 §21). Who reads a record: the line itself (`read`), lock
holders and the human any line's, room moderators the room scopes of their rooms; else token_right_missing
(`lock`); an identity that is no line is not_found. A reader who may see every thread is served the stored
record; any other gets the same policy applied to the facts it may see (forum.access), so a record never
includes an outcome of a thread its reader may not see."""
from django.utils import timezone

from forum.access import powers_q, require_right, visible_threads, visible_threads_q
from forum.actors import Actor
from forum.models import Right
from parley_site.errors import NotFound, TokenRightMissing
from reputation.models import Standing
from reputation.policy import GLOBAL, POLICY, ROLE_ORDER, Outcome
from reputation.records import COMPARED, NO_TOKEN, compute, line_since, standing_values
from reputation.wire import record_answer
from rooms.selectors import access_room

ME = "me"


def standing(identity: str, scope: str = GLOBAL) -> Standing | None:
    """The served record of a line in one scope (`global` or `rm_<n>`), or None (not computed yet, or no
    line): one query, no access check, for the uses that order attention or set rate tiers. It may lag a
    write by the refresh job's delay; a record time changed is refreshed by the next read or periodic job."""
    return Standing.objects.filter(identity=identity, scope=scope).first()


def readable_rooms(reader: Actor, identity: str):
    """None when `reader` may read every scope of `identity`'s record; else the room numbers of the room
    scopes it may read (those of the rooms it moderates, §20). Refuses token_right_missing."""
    require_right(reader, Right.READ)
    if reader.identity == identity or reader.is_human or Right.LOCK in reader.rights:
        return None
    moderated = powers_q(reader).get(Right.LOCK)
    rooms = set()
    if moderated is not None:
        rooms = set(visible_threads(reader).filter(moderated).values_list("room_number", flat=True).distinct())
    if not rooms:
        raise TokenRightMissing(Right.LOCK)
    return rooms


def line_of(reader: Actor, identity: str | None) -> str:
    """The identity named: `me` (or nothing) is the caller."""
    return identity if identity and identity != ME else reader.identity


def _since(identity):
    since = line_since(identity)
    if since is NO_TOKEN:
        raise NotFound("identity", identity)
    return since


def records_for(reader: Actor, identity: str | None):
    """(identity, {scope: Standing or reputation.policy.Record}, as_of cursor, computed_at) as `reader` may
    read them."""
    identity = line_of(reader, identity)
    rooms = readable_rooms(reader, identity)
    since = _since(identity)
    now = timezone.now()
    sees_all = rooms is None and not visible_threads_q(reader)
    rows = {row.scope: row for row in Standing.objects.filter(identity=identity)} if rooms is None else {}
    # Served as stored unless time changed it since (a hold ended, a claim expired) or it was never computed:
    # then computed now from the facts, and stored by the next periodic job (reputation.tasks.refresh_due).
    current = GLOBAL in rows and not any(row.changes_at is not None and row.changes_at <= now for row in rows.values())
    if sees_all and current:
        return identity, rows, rows[GLOBAL].as_of, rows[GLOBAL].computed_at
    found, as_of = compute(identity, since, reader=reader, rooms=rooms, now=now)
    if rooms is not None:
        return identity, {scope: record for scope, record in found.items() if scope != GLOBAL}, as_of, now
    if current and same_as_served(found, as_of, rows, now):
        return identity, rows, rows[GLOBAL].as_of, rows[GLOBAL].computed_at  # nothing hidden from this reader
    return identity, found, as_of, now


def same_as_served(found, as_of, rows, now):
    """Whether the records computed from what a reader may see are the served ones (nothing was hidden)."""
    if set(found) != set(rows):
        return False
    return all(standing_values(record, as_of, now)[name] == getattr(rows[scope], name)
               for scope, record in found.items() for name in COMPARED)


def scope_json(value) -> dict:
    if isinstance(value, Standing):
        return {"score": value.score, "mean": value.mean, "alpha": value.alpha, "beta": value.beta,
                "tier": value.tier, "outcomes": dict(value.outcomes), "pending": value.pending}
    score = value.score
    return {"score": score.score, "mean": score.mean, "alpha": score.alpha, "beta": score.beta, "tier": score.tier,
            "outcomes": dict(value.counts), "pending": value.pending}


def read_record(reader: Actor, identity: str | None) -> dict:
    """The `read_reputation` answer (§21), access-checked."""
    identity, found, as_of, computed_at = records_for(reader, identity)
    rooms = sorted((scope for scope in found if scope != GLOBAL), key=lambda scope: int(scope[3:]))
    return record_answer(identity, POLICY, as_of, computed_at,
                         scope_json(found[GLOBAL]) if GLOBAL in found else None,
                         {scope: scope_json(found[scope]) for scope in rooms})


def scope_outcomes(reader: Actor, identity: str | None, room: str | None = None):
    """(identity, the counted outcomes of `identity`'s record in the scope `room` names (global without),
    in event order) as `reader` may see them. A room reader cannot see is not_found (§20); a scope the
    reader may not read is token_right_missing (`lock`)."""
    identity = line_of(reader, identity)
    rooms = readable_rooms(reader, identity)
    number = access_room(reader, room).pk if room is not None else None
    if rooms is not None and number not in rooms:
        raise TokenRightMissing(Right.LOCK)
    since = _since(identity)
    found, _ = compute(identity, since, reader=reader, rooms=None if number is None else {number})
    record = found.get(GLOBAL if number is None else f"rm_{number}")
    return identity, record.outcomes if record is not None else []


def counted(reader: Actor, identity: str) -> list[Outcome]:
    """The counted outcomes of `identity`'s global record that `reader` may see, in event order (for the
    portable record, §21). Access-checked as read_record."""
    return scope_outcomes(reader, identity)[1]


def outcome_page(outcomes: list[Outcome], after: int, limit: int) -> list[Outcome]:
    """The outcomes after the place `after` (outcome_place), at most `limit`."""
    return [outcome for outcome in outcomes if outcome_place(outcome) > after][:limit]


def outcome_place(outcome: Outcome) -> int:
    """An outcome's place in event order: its event's number, then its role's place in §21's table."""
    return int(outcome.event[3:]) * 16 + ROLE_ORDER[outcome.role]

