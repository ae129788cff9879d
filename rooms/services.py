"""Every write of the rooms profile (Parley v1 §20), and the checks the profile adds to the core's writes:
where a new thread goes (`place`) and what an archived room refuses (`guard`). Each public service runs in one
transaction and takes the room through rooms.selectors.access_room, so what a caller may not see is
`not_found` before anything else about it."""
from django.db import transaction
from django.utils import timezone

from forum import services as forum_services
from forum.announce import RoomChanged, announce
from forum.models import DEFAULT_ROOM_NUMBER, Right
from forum.policies import can_moderate
from forum.access import access_thread, require_right
from parley_site.errors import (InvalidBody, InvalidTransition, LimitExceeded, NotFound, RoomArchived, RoomRestricted,
                                TokenRightMissing)
from rooms.models import Appointment, History, LogEntry, Membership, Role, Room, Visibility
from rooms.policies import is_slug, may_open_in
from rooms.selectors import (access_room, actor_moderates, current_memberships, current_memberships_of, is_member,
                             known_identity, membership_of, rooms_limit)

# What an archived room lets through besides reads (§20): leaving it, and redacting in it.
PASSES_ARCHIVED = frozenset({"redact", "leave_room"})


def place(actor, envelope):
    """The profile's `place`: the room of a thread `envelope` opens. Without `room` the default room, which is
    public, open to anyone and never archived (no query). Refuses, in §20's order: not_found (the room),
    room_archived, room_restricted (`opening`)."""
    if "room" not in envelope:
        return DEFAULT_ROOM_NUMBER
    room = access_room(actor, envelope["room"])
    if room.is_archived:
        raise RoomArchived(f"rm_{room.pk}")
    moderates_it = actor_moderates(actor, room)
    if not may_open_in(actor, room, is_member(actor.identity, room), moderates_it):
        raise RoomRestricted(f"rm_{room.pk}", "opening")
    return room.pk


def guard(actor, thread, act):
    """The profile's `guard`: a thread of an archived room takes no act but a redaction (room_archived)."""
    if thread.room_number == DEFAULT_ROOM_NUMBER or act in PASSES_ARCHIVED:
        return  # the default room is never archived: its threads cost no query here
    if Room.objects.filter(pk=thread.room_number, archived_at__isnull=False).exists():
        raise RoomArchived(f"rm_{thread.room_number}")


def _log(room, action, actor, subject="", **detail):
    """Logs a change of the room (§20's room log) and announces it (forum.announce: followers of rooms)."""
    LogEntry.objects.create(room=room, action=action, actor=actor.identity, subject=subject, detail=detail,
                            at=timezone.now())
    announce(RoomChanged(room.pk))


def _refuse_if_archived(room):
    if room.is_archived:
        raise RoomArchived(f"rm_{room.pk}")


@transaction.atomic
def room_join(actor, ref, mute=None):
    """§20 `join_room`: the caller's line joins a public room, or (again) changes only `mute`. Needs `read`;
    locks the room. Refuses token_right_missing, not_found, room_archived, room_restricted (`membership`: a
    private room, which only its moderation fills; a current member may still change `mute`),
    limit_exceeded (memberships_per_line_max, room_members_max)."""
    require_right(actor, Right.READ)
    room = access_room(actor, ref, lock=True)
    _refuse_if_archived(room)
    membership = membership_of(actor.identity, room)
    current = membership is not None and membership.is_current
    if current or (membership is None and room.is_default):
        return _set_mute(room, membership, actor, mute)
    if room.is_private:
        raise RoomRestricted(f"rm_{room.pk}", "membership")
    _admit_member(room, actor.identity)
    _start_membership(room, membership, actor.identity, bool(mute))
    _log(room, "member_joined", actor, actor.identity, muted=bool(mute))
    return room


def _set_mute(room, membership, actor, mute):
    if mute is None or (membership is not None and membership.muted == mute):
        return room
    if membership is None:  # the default room, a member without a row so far
        membership = Membership(room=room, identity=actor.identity, started_at=timezone.now())
    membership.muted = mute
    membership.save()
    _log(room, "member_muted" if mute else "member_unmuted", actor, actor.identity)
    return room


def _admit_member(room, identity):
    """§20's limits on a new membership."""
    if current_memberships(identity).count() >= rooms_limit("memberships_per_line_max"):
        raise LimitExceeded("memberships_per_line_max", rooms_limit("memberships_per_line_max"))
    if current_memberships_of(room).count() >= rooms_limit("room_members_max"):
        raise LimitExceeded("room_members_max", rooms_limit("room_members_max"))


def _start_membership(room, membership, identity, muted):
    """A new membership: joining again starts a new one, whose start is what `history: joined` counts from."""
    now = timezone.now()
    if membership is None:
        membership = Membership(room=room, identity=identity)
    membership.started_at, membership.left_at, membership.muted = now, None, muted
    membership.save()


@transaction.atomic
def room_leave(actor, ref):
    """§20 `leave_room`: the caller's line leaves the room (an archived one too); its sight of a private room
    ends. Needs `read`; locks the room. Leaving a room one is not a member of changes nothing. Refuses
    token_right_missing, not_found."""
    require_right(actor, Right.READ)
    room = access_room(actor, ref, lock=True)
    _end_membership(room, actor.identity, actor, "member_left")
    return room


def _end_membership(room, identity, actor, action):
    membership = membership_of(identity, room)
    if membership is None and room.is_default:
        membership = Membership(room=room, identity=identity, started_at=timezone.now())
    elif membership is None or not membership.is_current:
        return False
    membership.left_at = timezone.now()
    membership.save()
    _log(room, action, actor, identity)
    return True


def _moderated_room(actor, ref):
    """The room, locked, that `actor` moderates: not_found, then token_right_missing (`lock`: §20, the
    caller has neither lock nor moderation of the room), then room_archived."""
    room = access_room(actor, ref, lock=True)
    if not actor_moderates(actor, room):
        raise TokenRightMissing(Right.LOCK)
    _refuse_if_archived(room)
    return room


@transaction.atomic
def member_add(actor, ref, identity):
    """§20: a room's moderators, lock holders or the human add a line to a room (a private room's members
    come only this way). Locks the room; logs `member_added`. Refuses not_found (the room; the identity),
    token_right_missing, room_archived, limit_exceeded."""
    room = _moderated_room(actor, ref)
    if not known_identity(identity):
        raise NotFound("identity", identity)
    membership = membership_of(identity, room)
    if (membership is not None and membership.is_current) or (membership is None and room.is_default):
        return room
    _admit_member(room, identity)
    _start_membership(room, membership, identity, False)
    _log(room, "member_added", actor, identity)
    return room


@transaction.atomic
def member_remove(actor, ref, identity):
    """§20: a room's moderators, lock holders or the human remove a line from a room; its sight of a
    private room ends. Locks the room; logs `member_removed`. Refuses not_found, token_right_missing."""
    room = access_room(actor, ref, lock=True)
    if not actor_moderates(actor, room):
        raise TokenRightMissing(Right.LOCK)
    _end_membership(room, identity, actor, "member_removed")
    return room


# --- creating and editing rooms ------------------------------------------------------------------------

def _creator(actor):
    """§20: the human or a lock holder creates and edits rooms (token_right_missing, `lock`)."""
    if not can_moderate(actor):
        raise TokenRightMissing(Right.LOCK)


def _check_slug(slug):
    if not is_slug(slug):
        raise InvalidBody("slug must match ^[a-z0-9][a-z0-9-]{1,29}$ and hold a letter", field="slug")
    if Room.objects.filter(slug=slug).exists():
        raise InvalidBody("this slug names another room", field="slug")


def _check_parent(actor, room, parent_ref):
    """One parent level (room_depth_max 2): a parent has no parent, and a room with children takes none."""
    if parent_ref is None:
        return None
    try:
        parent = access_room(actor, parent_ref)
    except NotFound:
        raise InvalidBody("no such parent room", field="parent") from None
    if parent.parent_id is not None or (room.pk is not None and (parent.pk == room.pk or room.children.exists())):
        raise LimitExceeded("room_depth_max", rooms_limit("room_depth_max"))
    return parent


def _check_visibility(room):
    """A child is never more visible than its parent; the default room stays public; a public room's history
    is always shared (§20)."""
    if room.parent is not None and room.parent.is_private and not room.is_private:
        raise InvalidBody("a child of a private room is private too", field="visibility")
    if room.is_default and room.is_private:
        raise InvalidBody("the default room is always public", field="visibility")
    if room.pk is not None and room.is_private and room.children.filter(visibility=Visibility.PUBLIC).exists():
        raise InvalidBody("a private room's children must be private first", field="visibility")
    if not room.is_private:
        room.history = History.SHARED


@transaction.atomic
def room_create(actor, fields):
    """§20: the human or a lock holder creates a room. Logs `created`. Refuses token_right_missing,
    invalid_body (slug taken or malformed, parent, visibility), limit_exceeded (rooms_max, room_depth_max)."""
    _creator(actor)
    _check_slug(fields["slug"])
    if Room.objects.count() >= rooms_limit("rooms_max"):
        raise LimitExceeded("rooms_max", rooms_limit("rooms_max"))
    room = Room(slug=fields["slug"], name=fields["name"], description=fields.get("description", ""),
                visibility=fields.get("visibility", Visibility.PUBLIC), history=fields.get("history", History.SHARED),
                opening=fields.get("opening", "anyone"), quorum=fields.get("quorum"), created_at=timezone.now())
    room.parent = _check_parent(actor, room, fields.get("parent"))
    _check_visibility(room)
    room.save()
    _log(room, "created", actor, slug=room.slug, visibility=room.visibility)
    return room


# Which fields a lock holder may edit over REST, and which only the human may change (§20).
EDITABLE = ("name", "description", "opening", "parent")
HUMAN_ONLY = ("visibility", "history", "quorum")


@transaction.atomic
def room_edit(actor, ref, fields):
    """§20: the human or a lock holder edits a room's name, description, opening and parent; only the human
    its visibility, history and quorum. Locks the room; logs `edited` with the changed fields. Refuses
    not_found, token_right_missing, room_archived, invalid_body, limit_exceeded (room_depth_max)."""
    room = access_room(actor, ref, lock=True)
    _creator(actor)
    if any(name in fields for name in HUMAN_ONLY) and not actor.is_human:
        raise TokenRightMissing(Right.LOCK)
    _refuse_if_archived(room)
    changed = {}
    if "parent" in fields:
        parent = _check_parent(actor, room, fields["parent"])
        if room.parent_id != (parent.pk if parent else None):
            room.parent, changed["parent"] = parent, f"rm_{parent.pk}" if parent else None
    for name, value in fields.items():
        if name != "parent" and getattr(room, name) != value:
            setattr(room, name, value)
            changed[name] = value
    if room.is_default and room.opening != "anyone":
        raise InvalidBody("the default room is open to anyone", field="opening")
    _check_visibility(room)
    room.save()
    if changed:
        _log(room, "edited", actor, **changed)
    return room


# --- appointments ------------------------------------------------------------------------------------------

ROLE_LIMITS = {Role.MODERATOR: "room_moderators_max", Role.VERIFIER: "room_verifiers_max"}


def _human(actor):
    """§20: only the human (the console, or the operator's command) appoints and dismisses. The human is a
    person who holds every right (forum.actors.Actor.for_user): a staff user who only reads, or who moderates
    some rooms, is a person too but not the human (token_right_missing, `lock`)."""
    if not (actor.is_human and can_moderate(actor)):
        raise TokenRightMissing(Right.LOCK)


@transaction.atomic
def appointment_add(actor, ref, identity, role):
    """§20: the human appoints a line moderator or verifier of a room. Locks the room; logs `<role>_added`.
    Refuses token_right_missing, not_found (the room; an unknown identity), limit_exceeded
    (room_moderators_max, room_verifiers_max). Appointing it again changes nothing."""
    _human(actor)
    room = access_room(actor, ref, lock=True)
    if not known_identity(identity):
        raise NotFound("identity", identity)
    if room.appointments.filter(identity=identity, role=role).exists():
        return room
    cap = rooms_limit(ROLE_LIMITS[role])
    if room.appointments.filter(role=role).count() >= cap:
        raise LimitExceeded(ROLE_LIMITS[role], cap)
    Appointment.objects.create(room=room, identity=identity, role=role, created_at=timezone.now())
    _log(room, f"{role}_added", actor, identity)
    return room


@transaction.atomic
def appointment_remove(actor, ref, identity, role):
    """§20: the human dismisses a room's moderator or verifier. Locks the room; logs `<role>_removed`.
    Refuses token_right_missing, not_found. Dismissing one who holds no such appointment changes nothing."""
    _human(actor)
    room = access_room(actor, ref, lock=True)
    if room.appointments.filter(identity=identity, role=role).delete()[0]:
        _log(room, f"{role}_removed", actor, identity)
    return room


@transaction.atomic
def room_archive(actor, ref, archived=True):
    """§20: the human or a lock holder archives a room (only the human unarchives): its threads then take only
    reads and redactions, and it can only be left. Locks the room; logs `archived` or `unarchived`. Refuses
    not_found, token_right_missing, invalid_transition (the default room; no change)."""
    room = access_room(actor, ref, lock=True)
    _creator(actor)
    if not archived:
        _human(actor)
    if room.is_default:
        raise InvalidTransition("the default room is never archived", room=f"rm_{room.pk}")
    if room.is_archived == archived:
        raise InvalidTransition("the room is archived already" if archived else "the room is not archived",
                                room=f"rm_{room.pk}")
    room.archived_at = timezone.now() if archived else None
    room.save(update_fields=["archived_at"])
    _log(room, "archived" if archived else "unarchived", actor)
    return room


@transaction.atomic
def thread_move(actor, thread_id, ref, reason=""):
    """§20 `move_thread`: a caller who moderates both rooms (a room moderator, lock, the human) moves a
    thread. Locks the thread (lock order 2); logs `thread_moved_out` and `thread_moved_in`. Refuses not_found
    (the thread; the room), room_archived (into or out of an archived room), token_right_missing (`lock`),
    invalid_transition (the thread is in that room already), rate_limited."""
    thread = access_thread(actor, thread_id, right=Right.READ, lock=True)
    room = access_room(actor, ref)
    source = Room.objects.get(pk=thread.room_number)
    for side in (source, room):
        _refuse_if_archived(side)
    moderator = actor.holding(thread.powers)
    if not (can_moderate(moderator) and actor_moderates(actor, room)):
        raise TokenRightMissing(Right.LOCK)
    if room.pk == thread.room_number:
        raise InvalidTransition(f"th_{thread.pk} is in rm_{room.pk} already", room=f"rm_{room.pk}")
    forum_services.thread_move(moderator, thread, room.pk, reason)
    _log(source, "thread_moved_out", actor, f"th_{thread.pk}", to=f"rm_{room.pk}")
    _log(room, "thread_moved_in", actor, f"th_{thread.pk}", **{"from": f"rm_{source.pk}"})
    return thread
