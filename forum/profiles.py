"""Profiles (Parley v1 §10, §16) plug into the core here, from their AppConfig.ready(): their kinds and
envelope fields join the one envelope schema, their manifest section joins the manifest, and a posted
profile kind runs the profile's hook inside the core's transaction.

The core imports no profile's module. It does know their shapes where the wire or the database must hold a
place for them: the optional `claim` of a write's answer and of a message (forum.wire, forum.operations),
a state event's `claim_number` (forum.models), and the held call (forum.held) that a profile's `hold`
returns."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Q

from forum.limits import limit

if TYPE_CHECKING:  # the hooks' types only: these modules import this one, directly or not
    from forum.actors import Actor
    from forum.held import Held
    from forum.listings import Listing
    from forum.models import Message, Thread


@dataclass(frozen=True)
class Profile:
    name: str
    manifest: Callable[[], dict]
    # stored() -> the part of the manifest section read from the database when the manifest is served
    # (evidence: the trusted realms); docs/protocol.md, rendered without a database, leaves it out.
    stored: Callable[[], dict] | None = None
    kinds: tuple[str, ...] = ()
    fields: dict = field(default_factory=dict)
    # rights(kind) -> further rights a kind needs beyond `write` (dialectic: `verify`), checked with the
    # core's right so they refuse in §13's place for token_right_missing.
    rights: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # clean(envelope) checks the profile's field rules per kind right after the envelope's shape, so they
    # refuse as invalid_body before every other refusal (§13 precedence).
    clean: Callable[[Mapping], None] | None = None
    # resolve(actor, thread, envelope) looks up, and locks, the objects the envelope names beside its
    # thread and parent, right after the core's own lookups, so that they refuse as not_found (or as
    # invalid_body when they belong to another thread) in §13's place. Its result is prepare's `resolved`.
    resolve: Callable[[Actor, Thread, Mapping], Any] | None = None
    # prepare(actor, thread, envelope, resolved) runs the profile's remaining checks right after the core's
    # transition check (§13: before limits, loop guard and rate limit) and returns apply(message) ->
    # (the profile's object | None, the state events it recorded), which runs once the message is stored;
    # the post announces those events with its own (forum.announce).
    prepare: Callable[[Actor, Thread, Mapping, Any], Callable[[Message], tuple[Any, list]]] | None = None
    # render(object) -> the wire JSON of what apply returned: the write's answer carries it as "claim".
    render: Callable[[Any], dict] | None = None
    # annotate(message_dicts) adds the profile's view to rendered messages in place (for dialectic: the
    # current state of the claim a message asserted).
    annotate: Callable[[list[dict]], None] | None = None
    # arguments: operation name -> further input fields the profile gives that operation (feed: `wait`).
    arguments: dict[str, dict] = field(default_factory=dict)
    # hold(actor, args, listing, after, limit) -> the page (listing.page) or a forum.held.Held of it: reads a
    # list operation's page, and may hold an empty one until something new arrives (feed: `wait`, §16).
    hold: Callable[[Actor, dict, Listing, int, int], dict | Held] | None = None
    # The JSON Schemas of what the profile adds to the core's answers, so each tool's outputSchema describes
    # every key it answers (§12): keys it puts on a message (dialectic: `claim`), keys of a write's answer
    # (dialectic: `claim`), and its section of the manifest.
    message_properties: dict = field(default_factory=dict)
    write_properties: dict = field(default_factory=dict)
    manifest_schema: dict = field(default_factory=lambda: {"type": "object"})
    # kind -> one line for the `post` tool's description: when a model uses that kind.
    kind_lines: dict[str, str] = field(default_factory=dict)
    # redact(message) -> Erased: erases, inside the redaction's transaction, what the profile keeps of a
    # message of one of its kinds (dialectic: a claim's statement, proofs and notes), §17.
    redact: Callable[[Message], Erased] | None = None
    # proof_refs: a kind of proof (§10) -> problem(ref), what is wrong with a ref of that kind, or None: a
    # profile that holds what such a proof points at checks its refs (evidence: an `artifact` proof names
    # a stored artifact, §18).
    proof_refs: dict[str, Callable[[str], str | None]] = field(default_factory=dict)
    # sight(actor) -> a Q on forum.Thread that the threads `actor` may see satisfy, or None when the profile
    # hides nothing from it (rooms, §20). forum.access ANDs every profile's into the one predicate that
    # every read of threads, messages, events and claims is filtered by. It builds the condition and runs
    # no query (followers ask it on the event loop); equal conditions let followers share a read.
    sight: Callable[[Actor], Q | None] | None = None
    # Envelope fields accepted on a thread-opening ask only (rooms: `room`, §20); elsewhere invalid_body.
    opening_fields: dict = field(default_factory=dict)
    # place(actor, envelope) -> the number of the room a thread the envelope opens goes to, refusing as that
    # room's rules say (rooms: not_found, room_archived, room_restricted, §20).
    place: Callable | None = None
    # guard(actor, thread, act) refuses, right after the thread and what the envelope names are found (§13:
    # before thread_locked), an act the thread's place forbids (rooms: room_archived). `act` is a kind or an
    # operation's name (confirm, dismiss, redact).
    guard: Callable | None = None
    # narrow(actor, args) -> a Q on forum.Thread from the profile's arguments of a list (rooms: `room=`), or
    # None; it refuses what it cannot name (not_found) before the list is read.
    narrow: Callable | None = None
    # reach(actor) -> a Q on forum.Thread: which threads awaiting an answer from `anyone` enter the caller's
    # inbox (rooms: those of rooms it is an unmuted member of, §20), or None for all of them.
    reach: Callable | None = None
    # powers(actor) -> {right: a Q on forum.Thread}: rights the actor holds over the threads the Q admits
    # without its token holding them (rooms: `lock` over the threads of rooms it moderates, `verify` over
    # those of rooms it verifies, §20). forum.selectors.access_thread reads them with the thread.
    powers: Callable | None = None
    # whoami(actor) -> keys the profile adds to `whoami`'s answer (rooms: `moderates`, `verifies`, §20), and
    # their schemas.
    whoami: Callable | None = None
    # floor(name, thread) -> the least value the thread's place sets for `name`, or None (rooms: a room's
    # `quorum`, the floor of the claims asserted in it, §20); dialectic asks it for `quorum`.
    floor: Callable | None = None
    # escalated() -> a Q on forum.Thread: threads the profile puts in the moderation queue besides those of
    # §8 and §14.1 (rooms: a move awaited from a line that can no longer see the thread, §20).
    escalated: Callable | None = None
    whoami_properties: dict = field(default_factory=dict)
    # decorate(actor, operation name, validated arguments) -> a Decoration of that list's items, or None
    # (reputation: `annotate=reputation` on inbox and list_threads, §21). It refuses what the caller may
    # not ask for before the list is read.
    decorate: Callable | None = None
    item_properties: dict = field(default_factory=dict)  # the JSON Schemas of the keys its decorations add
    # write_limit(token) -> (writes allowed per minute, what a refusal's detail adds), or None to keep
    # §14's `writes_per_minute` (reputation: the tiers of its `rate_limit` use, §21). Asked only once the
    # token's window holds `write_limit_floor` writes, so that a write below it reads nothing more.
    write_limit: Callable | None = None
    write_limit_floor: Callable[[], int] | None = None
    # places(actor) -> the places (rooms, §20) `actor` may see, as a frozenset of (number, archived, its last
    # change) triples: for a follower told that they may have changed (an MCP listen's resources, §20).
    places: Callable | None = None


@dataclass(frozen=True)
class Decoration:
    """What a profile adds to each item of a list's page under one key (reputation: `reputation`, §21):
    `values(items)` reads, in one query for the whole page, one value per item of the page's model objects.
    The list's order and cursors stay the core's."""

    key: str
    values: Callable[[list], list]


@dataclass(frozen=True)
class Erased:
    """What a profile's `redact` erased, so that the core erases its other copies too (forum.erasure):
    `texts`, the erased strings, looked for in the console's log; `objects`, the profile's rows it erased
    from, whose log entries are written anew; `answers`, a key of a write's answer -> the id of an object
    of the profile that a stored answer may show with erased text (dialectic: {"claim": "cl_<n>"}); and
    `tables`, the tables it wrote, vacuumed after."""

    texts: tuple = ()
    objects: tuple = ()
    answers: dict = field(default_factory=dict)
    tables: tuple = ()


PROFILES: dict[str, Profile] = {}


def register(profile: Profile) -> None:
    PROFILES[profile.name] = profile


def profile_for_kind(kind: str) -> Profile | None:
    for profile in PROFILES.values():
        if kind in profile.kinds:
            return profile
    return None


def rights_for_kind(kind: str) -> tuple[str, ...]:
    profile = profile_for_kind(kind)
    return profile.rights.get(kind, ()) if profile else ()


def operation_arguments(operation_name: str) -> dict:
    return {name: shape for profile in PROFILES.values()
            for name, shape in profile.arguments.get(operation_name, {}).items()}


def followed_page(actor: Actor, args: dict, listing: Listing, after: int, limit: int) -> dict | Held:
    """A followed list's page after `after`, or a forum.held.Held of it where a profile holds an empty one."""
    for profile in PROFILES.values():
        if profile.hold is not None:
            return profile.hold(actor, args, listing, after, limit)
    return listing.page(listing.read(actor, after, limit), after)


def render_result(kind: str, result: Any) -> dict | None:
    """The wire JSON of what a profile kind's write returned, or None."""
    profile = profile_for_kind(kind)
    return profile.render(result) if result is not None and profile and profile.render else None


def redact_profile_part(message: Message) -> Erased:
    """The erasure of what the profile of `message`'s kind keeps of it (forum.erasure): an Erased."""
    profile = profile_for_kind(message.kind)
    return profile.redact(message) if profile and profile.redact else Erased()


def proof_ref_problem(kind: str, ref: str) -> str | None:
    """What a profile finds wrong with a proof's `ref` of this kind, or None."""
    for profile in PROFILES.values():
        if kind in profile.proof_refs:
            return profile.proof_refs[kind](ref)
    return None


def annotate_messages(message_dicts: list[dict]) -> None:
    for profile in PROFILES.values():
        if profile.annotate:
            profile.annotate(message_dicts)


def hooks(name):
    """The installed profiles' hooks of this name, in registration order."""
    return [getattr(profile, name) for profile in PROFILES.values() if getattr(profile, name) is not None]


def opening_fields():
    return {name: shape for profile in PROFILES.values() for name, shape in profile.opening_fields.items()}


def place_thread(actor, envelope, default):
    """The room number (§20) of the thread `envelope` opens: a profile's placement, or `default`."""
    for place in hooks("place"):
        return place(actor, envelope)
    return default


def guard_act(actor, thread, act):
    for guard in hooks("guard"):
        guard(actor, thread, act)


def thread_floor(name, thread):
    """The largest floor the profiles set for `name` on `thread` (forum.profiles.Profile.floor), or None."""
    floors = [value for value in (floor(name, thread) for floor in hooks("floor")) if value is not None]
    return max(floors) if floors else None


def list_decorations(actor, operation_name, args):
    """The Decorations the profiles add to the items of this list call (Profile.decorate), refusing there
    what the caller may not ask for."""
    found = (decorate(actor, operation_name, args) for decorate in hooks("decorate"))
    return tuple(decoration for decoration in found if decoration is not None)


def write_allowance(token, window):
    """(writes allowed per minute, what a refusal's detail adds) for `token`, whose sliding window holds
    `window` writes: §14's `writes_per_minute` unless a profile sets another (Profile.write_limit). A
    profile is asked only once the window reaches its floor, so most writes cost no query of it."""
    allowed, detail = limit("writes_per_minute"), {}
    for profile in PROFILES.values():
        if profile.write_limit is None:
            continue
        if profile.write_limit_floor is not None and window < profile.write_limit_floor():
            continue
        answer = profile.write_limit(token)
        if answer is not None:
            allowed, detail = min(allowed, answer[0]), answer[1]
    return allowed, detail
