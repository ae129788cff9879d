"""The rooms profile's `sight` (§20 "Who sees what") written as SQL, for the cost (docs/performance.md,
"Rooms"): every read of threads, messages, events and claims carries it, and built from querysets it cost
more to construct and compile than the read itself (a read_thread twice the time). Written once here, it is
a few fixed strings with the line's identity as parameters, so Django only places it into the query.

A thread is hidden from a line (not a lock holder nor the human, who see everything) when
- its room is private, the line no current member, and it moderates neither the room nor its parent
  (`BLIND_ROOMS`, rooms that do not depend on the thread: PostgreSQL hashes it once per query); or
- its room is private and `history: joined`, the line a current member whose membership began after the
  thread was opened, and it moderates neither the room nor its parent (`TooEarly`, correlated with the
  thread's room and creation time).
tests/rooms/test_no_leaks*.py check it against a plain reading of the rules over every read path."""
from django.db.models import BooleanField, Expression, F
from django.db.models.expressions import RawSQL

MODERATED = "SELECT room_id FROM rooms_appointment WHERE identity = %s AND role = 'moderator'"
BLIND_ROOMS = (
    "SELECT sight_r.id FROM rooms_room sight_r WHERE sight_r.visibility = 'private' "
    "AND sight_r.id NOT IN (SELECT room_id FROM rooms_membership WHERE identity = %s AND left_at IS NULL) "
    f"AND sight_r.id NOT IN ({MODERATED}) "
    f"AND (sight_r.parent_id IS NULL OR sight_r.parent_id NOT IN ({MODERATED}))")
TOO_EARLY = (
    "EXISTS (SELECT 1 FROM rooms_membership sight_m INNER JOIN rooms_room sight_j ON sight_j.id = sight_m.room_id "
    "WHERE sight_m.identity = %s AND sight_m.left_at IS NULL AND sight_j.visibility = 'private' "
    "AND sight_j.history = 'joined' AND sight_m.room_id = {room} AND sight_m.started_at > {created} "
    f"AND sight_m.room_id NOT IN ({MODERATED}) "
    f"AND (sight_j.parent_id IS NULL OR sight_j.parent_id NOT IN ({MODERATED})))")


MODERATED_ROOMS = f"SELECT id FROM rooms_room WHERE id IN ({MODERATED}) OR parent_id IN ({MODERATED})"
VERIFIED = "SELECT room_id FROM rooms_appointment WHERE identity = %s AND role = 'verifier'"


# §20 (amending §11): the rooms whose questions to `anyone` reach the line's inbox: those it is an unmuted
# current member of, and the default room unless it left or muted it (no row there: a member).
REACHED = ("SELECT room_id FROM rooms_membership WHERE identity = %s AND left_at IS NULL AND NOT muted "
           "UNION ALL SELECT %s WHERE NOT EXISTS (SELECT 1 FROM rooms_membership WHERE identity = %s "
           "AND room_id = %s AND (left_at IS NOT NULL OR muted))")


def reached_room_numbers(identity, default_room):
    return RawSQL(REACHED, (identity, default_room, identity, default_room))


def moderated_room_numbers(identity):
    """The rooms `identity` moderates, appointed to them or to their parent (§20), for `room_number__in`."""
    return RawSQL(MODERATED_ROOMS, (identity, identity))


def verified_room_numbers(identity):
    return RawSQL(VERIFIED, (identity,))


def blind_rooms(identity):
    """The rooms whose threads `identity` may not see at all, as a subquery for `room_number__in`."""
    return RawSQL(BLIND_ROOMS, (identity, identity, identity))


class TooEarly(Expression):
    """Whether the thread was opened before `identity`'s current membership of its private `history:
    joined` room began (and the line does not moderate it): a condition on forum.Thread, correlated with the
    thread's columns as the query names them (also inside a subquery)."""

    conditional = True
    output_field = BooleanField()

    def __init__(self, identity, room=None, created=None):
        super().__init__()
        self.identity = identity
        self.room, self.created = room or F("room_number"), created or F("created_at")

    def __eq__(self, other):  # equal conditions let followers share a read (feed.follow.SharedReads)
        return isinstance(other, TooEarly) and (other.identity, other.room, other.created) == (
            self.identity, self.room, self.created)

    def __hash__(self):
        return hash((TooEarly, self.identity))

    def get_source_expressions(self):
        return [self.room, self.created]

    def set_source_expressions(self, expressions):
        self.room, self.created = expressions

    def resolve_expression(self, query=None, allow_joins=True, reuse=None, summarize=False, for_save=False):
        resolved = self.copy()
        resolved.room = self.room.resolve_expression(query, allow_joins, reuse, summarize, for_save)
        resolved.created = self.created.resolve_expression(query, allow_joins, reuse, summarize, for_save)
        return resolved

    def as_sql(self, compiler, connection):
        room, room_params = compiler.compile(self.room)
        created, created_params = compiler.compile(self.created)
        sql = TOO_EARLY.format(room=room, created=created)
        return sql, (self.identity, *room_params, *created_params, self.identity, self.identity)
