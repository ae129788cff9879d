"""Reads of the rooms profile (Parley v1 §20), and the conditions it plugs into the core: which threads a
caller may see (`sight`), which questions to `anyone` reach its inbox (`reach`) and what `room=` names on a
list (`narrow`). Each is a queryset condition, so what is hidden is never fetched (forum.access)."""
from django.conf import settings
from django.db.models import Count, Exists, Max, OuterRef, Q

from forum import commit_order
from forum.access import require_right, visible_threads
from forum.models import ANYONE, DEFAULT_ROOM_NUMBER, MODERATOR, Right, Token
from forum.policies import can_moderate
from forum.selectors import page
from parley_site.errors import LimitExceeded, NotFound, TokenRightMissing
from rooms.models import Appointment, History, LogEntry, Membership, Role, Room, Visibility
from rooms.policies import moderates, parse_room_ref, your_role
from rooms.sight_sql import (TooEarly, blind_rooms, moderated_room_numbers, reached_room_numbers,
                             verified_room_numbers)


def rooms_limit(name):
    return settings.PARLEY_ROOMS["limits"][name]


def moderated_rooms(identity):
    """The numbers of the rooms `identity` is appointed to moderate, as a subquery."""
    return Appointment.objects.filter(identity=identity, role=Role.MODERATOR).values("room_id")


def current_memberships(identity):
    return Membership.objects.filter(identity=identity, left_at__isnull=True)


def visible_rooms_q(actor):
    """§20 "Who sees what", on rooms: a public room every caller with `read`; a private room its members, its
    moderators and its parent's, lock holders and the human. None: every room."""
    if can_moderate(actor):
        return None
    moderated = moderated_rooms(actor.identity)
    return (Q(visibility=Visibility.PUBLIC) | Q(pk__in=current_memberships(actor.identity).values("room_id"))
            | Q(pk__in=moderated) | Q(parent_id__in=moderated))


def places(actor):
    """The profile's `places` (forum.access.visible_places): the rooms `actor` may see, as (number, archived,
    the room's last change: its newest log entry's id) triples, in one query."""
    visible = visible_rooms_q(actor)
    rooms = Room.objects.filter(visible) if visible is not None else Room.objects.all()
    return frozenset((number, archived_at is not None, changed) for number, archived_at, changed in
                     rooms.annotate(changed=Max("log__id")).values_list("pk", "archived_at", "changed"))


def sight(actor):
    """The profile's `sight` (forum.access): the threads `actor` may see, as a Q on threads. A thread in a
    room it may not see is hidden; in a private room of `history: joined` that it sees as a member only, so
    is every thread opened before its membership began (whole threads, never parts of one). Written as SQL
    (rooms.sight_sql): every read carries it."""
    if can_moderate(actor):
        return None
    return ~Q(room_number__in=blind_rooms(actor.identity)) & ~Q(TooEarly(actor.identity))


def reach(actor):
    """The profile's `reach` (§20, amending §11): a question to `anyone` enters the inboxes of the unmuted
    members of its room. Every line is a member of the default room until it leaves or mutes it. SQL, as
    `sight` (rooms.sight_sql)."""
    return Q(room_number__in=reached_room_numbers(actor.identity, DEFAULT_ROOM_NUMBER))


def narrow(actor, args):
    """The profile's `narrow`: `room=` (one room, or a comma list of at most room_filter_max) on a list, as
    a Q on threads. An unknown or invisible room is not_found (§20, not §14.1's invalid_body)."""
    if "room" not in args:
        return None
    require_right(actor, Right.READ)  # §13: a missing right before a missing room
    refs = [ref.strip() for ref in args["room"].split(",")]
    if len(refs) > rooms_limit("room_filter_max"):
        raise LimitExceeded("room_filter_max", rooms_limit("room_filter_max"))
    return Q(room_number__in=[access_room(actor, ref).pk for ref in refs])


def room_condition(ref):
    """The Q naming one room by `rm_<n>`, `<n>` or slug, or None for a malformed reference."""
    parsed = parse_room_ref(ref)
    if parsed is None:
        return None
    kind, value = parsed
    return Q(pk=value) if kind == "number" else Q(slug=value)


def access_room(actor, ref, *, lock=False):
    """The room `ref` names if `actor` may see it, or `not_found` (detail.object "room"): a room the caller
    may not see answers as a missing one (§20). lock=True: the row stays locked until the transaction ends."""
    condition = room_condition(ref)
    if condition is None:
        raise NotFound("room", ref)
    queryset = Room.objects.select_for_update() if lock else Room.objects
    visible = visible_rooms_q(actor)
    room = queryset.filter(condition, *([visible] if visible is not None else [])).first()
    if room is None:
        raise NotFound("room", ref)
    return room


def visible_rooms(actor):
    """The rooms `actor` may see (§20 "Who sees what"), as a queryset: the console's list of rooms."""
    visible = visible_rooms_q(actor)
    return Room.objects.filter(visible) if visible is not None else Room.objects.all()


def moderated_room_list(actor):
    """The rooms `actor` moderates, as a queryset: every room for lock holders and the human, else the rooms
    it is appointed to moderate and their children (§20): where it may move a thread to."""
    if can_moderate(actor):
        return Room.objects.all()
    return Room.objects.filter(pk__in=moderated_room_numbers(actor.identity))


def moderates_any(actor):
    """Whether `actor` moderates some room: lock holders and the human all of them, an appointed line its
    rooms (and their children)."""
    return can_moderate(actor) or moderated_rooms(actor.identity).exists()


def room_threads(actor, room):
    """The threads of `room` that `actor` sees there (forum.access), the most recently active first."""
    return visible_threads(actor).filter(room_number=room.pk).order_by("-updated_at", "-id")


def room_members(room):
    """The current memberships of `room`, by identity. The default room's lines without a row are members
    too (every line until it leaves): they are counted in `member_count`, not listed."""
    return current_memberships_of(room).order_by("identity")


def current_memberships_of(room):
    return Membership.objects.filter(room=room, left_at__isnull=True)


def room_get(actor, ref):
    require_right(actor, Right.READ)
    return with_details(actor, [access_room(actor, ref)])[0]


def room_list(actor, *, member=None, parent=None, archived=None, q=None, after, limit):
    """§20 `list_rooms`: the rooms `actor` may see, oldest first, filtered."""
    require_right(actor, Right.READ)
    queryset = visible_rooms(actor)
    if member is not None:
        queryset = queryset.filter(member_of(actor.identity) if member else ~member_of(actor.identity))
    if parent is not None:
        queryset = queryset.filter(parent=access_room(actor, parent))
    if archived is not None:
        queryset = queryset.filter(archived_at__isnull=not archived)
    if q is not None:
        queryset = queryset.filter(Q(name__icontains=q) | Q(slug__icontains=q) | Q(description__icontains=q))
    return with_details(actor, page(queryset, "id", after, limit))


def member_of(identity):
    """The rooms `identity` is a current member of, as a Q on rooms (the default room without a row)."""
    left_default = Membership.objects.filter(identity=identity, room_id=DEFAULT_ROOM_NUMBER, left_at__isnull=False)
    return (Q(pk__in=current_memberships(identity).values("room_id"))
            | (Q(pk=DEFAULT_ROOM_NUMBER) & ~Exists(left_default)))


def with_details(actor, rooms):
    """The rooms, each with what §20's room object shows besides its fields: its counts, its moderators and
    verifiers, and the caller's role: a fixed number of queries however many rooms."""
    numbers = [room.pk for room in rooms]
    if not numbers:
        return rooms
    members = dict(Membership.objects.filter(room_id__in=numbers, left_at__isnull=True).values("room_id")
                   .annotate(n=Count("pk")).values_list("room_id", "n"))
    threads = thread_counts(actor, numbers)
    appointed = {}
    for room_id, identity, role in (Appointment.objects.filter(room_id__in=numbers).order_by("identity")
                                    .values_list("room_id", "identity", "role")):
        appointed.setdefault((room_id, role), []).append(identity)
    mine = {membership.room_id: membership for membership in
            Membership.objects.filter(identity=actor.identity, room_id__in=numbers)}
    moderated = set(moderated_rooms(actor.identity).values_list("room_id", flat=True))
    for room in rooms:
        room.member_count = members.get(room.pk, 0) + (default_room_lines() if room.is_default else 0)
        room.thread_count = threads.get(room.pk, 0)
        room.moderators = appointed.get((room.pk, Role.MODERATOR), [])
        room.verifiers = appointed.get((room.pk, Role.VERIFIER), [])
        room.your_role = your_role(moderates(actor, room, moderated), mine.get(room.pk), room.is_default)
    return rooms


def default_room_lines():
    """The lines in the default room without a membership row: every valid token's line but those that left
    it (§20: every line is a member until it leaves)."""
    with_rows = Membership.objects.filter(room_id=DEFAULT_ROOM_NUMBER).values("identity")
    return Token.objects.filter(revoked_at__isnull=True).exclude(identity__in=with_rows).count()


def thread_counts(actor, numbers):
    """Per room, the threads `actor` sees there (forum.access: a count never tells what is hidden)."""
    queryset = visible_threads(actor).filter(room_number__in=numbers)
    return dict(queryset.values("room_number").annotate(n=Count("pk")).values_list("room_number", "n"))


def membership_of(identity, room):
    return Membership.objects.filter(identity=identity, room=room).first()


def is_member(identity, room):
    """A current member (the default room: unless it left it)."""
    membership = membership_of(identity, room)
    if membership is None:
        return room.is_default
    return membership.left_at is None


def actor_moderates(actor, room):
    """§20: lock, the human, or an appointed moderator of the room or of its parent."""
    if can_moderate(actor):
        return True
    rooms = [room.pk] + ([room.parent_id] if room.parent_id else [])
    return Appointment.objects.filter(identity=actor.identity, role=Role.MODERATOR, room_id__in=rooms).exists()


def room_log(room, *, after, limit):
    """The room's log after the Position `after`, in commit order (forum.commit_order): an entry whose
    change is still in flight is held back, never passed over."""
    return commit_order.page(LogEntry.objects.filter(room=room), after, limit)


def room_log_newest(room, limit):
    """The newest `limit` entries of the room's log, newest first (in commit order, as `room_log` reads it):
    what the console's room page shows."""
    return LogEntry.objects.filter(room=room).order_by("-xact", "-id")[:limit]


def known_identity(identity):
    """An identity a room can hold: a token's line, or a human (`human:<name>`)."""
    if identity.startswith("human:") and len(identity) > len("human:"):
        return True
    return Token.objects.filter(identity=identity).exists()


def room_for_log(actor, ref):
    """The room whose log `actor` reads: its moderators, lock holders and the human (§20); others who may see
    it are refused token_right_missing (`lock`)."""
    require_right(actor, Right.READ)
    room = access_room(actor, ref)
    if not actor_moderates(actor, room):
        raise TokenRightMissing(Right.LOCK)
    return room


def powers(actor):
    """The profile's `powers` (§20): `lock` over the threads of the rooms the line moderates (or whose parent
    it moderates), `verify` over those of the rooms it verifies. SQL, as `sight` (rooms.sight_sql): every
    access to a thread carries them."""
    return {Right.LOCK: Q(room_number__in=moderated_room_numbers(actor.identity)),
            Right.VERIFY: Q(room_number__in=verified_room_numbers(actor.identity))}


def whoami(actor):
    """The profile's `whoami` keys (§20): the rooms the caller is appointed to moderate and to verify,
    `rm_<n>` ascending, read in one query."""
    found = {Role.MODERATOR: [], Role.VERIFIER: []}
    for role, number in (Appointment.objects.filter(identity=actor.identity).order_by("room_id")
                         .values_list("role", "room_id")):
        found[role].append(f"rm_{number}")
    return {"moderates": found[Role.MODERATOR], "verifies": found[Role.VERIFIER]}


def floor(name, thread):
    """The profile's `floor` (§20): a room's `quorum` is the floor of the claims asserted in it."""
    if name != "quorum":
        return None
    return Room.objects.filter(pk=thread.room_number).values_list("quorum", flat=True).first()


def stuck():
    """The profile's `escalated` (§20, "A stuck move is escalated"): threads whose `awaiting.from` names a
    line that can no longer see them (removed from the private room, or the thread moved there), as a Q on
    threads: they are in their room's moderation queue until a moderator settles them."""
    awaited = OuterRef("awaiting_from")
    member = Membership.objects.filter(identity=awaited, room_id=OuterRef("room_number"), left_at__isnull=True).filter(
        Q(room__history=History.SHARED) | Q(started_at__lte=OuterRef("created_at")))
    moderator = Appointment.objects.filter(identity=awaited, role=Role.MODERATOR).filter(
        Q(room_id=OuterRef("room_number")) | Q(room__children=OuterRef("room_number")))
    lock_holder = Token.objects.filter(identity=awaited, can_lock=True, revoked_at__isnull=True)
    private = Room.objects.filter(visibility=Visibility.PRIVATE).values("pk")
    return (Q(room_number__in=private, awaiting_from__isnull=False) & ~Q(awaiting_from__in=(ANYONE, MODERATOR))
            & ~Q(awaiting_from__startswith="human:") & ~Exists(member) & ~Exists(moderator) & ~Exists(lock_holder))
