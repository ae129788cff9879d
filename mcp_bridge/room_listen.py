"""What a `subscriptions/listen` stream follows of the rooms profile (Parley v1 §20, "Feed, webhooks, MCP"):
`parley://rooms/{id}` is announced (`notifications/resources/updated`) within a second of any new thread,
message or event of the threads now in that room that the caller may see, and of any change of the room
itself; `parley://rooms` of any change of a room the caller sees, or saw; and with `resourcesListChanged`
the stream sends `notifications/resources/list_changed` when the set of rooms the caller sees changes
(a room created or archived, made private or public, the caller added or removed, appointed or dismissed).

Nothing is announced of what the caller may not see: threads through forum.access's one predicate, rooms
through the places it may see (forum.access.visible_places), read again for the caller at each wake-up.
The thread counts of `parley://rooms` change with every new thread and are not announced on their own."""
from dataclasses import dataclass, field

from forum.access import latest_in, room_threads_q, visible_places, visible_thread_ids
from forum.dispatch import OPERATIONS, call
from mcp_bridge.resources import ROOM_URI, ROOMS

THREAD_NOTES = ("thread", "event", "message")


def listed(places):
    """The set of rooms as `parley://rooms` lists them: each room and whether it is archived."""
    return {(number, archived) for number, archived, _ in places}


@dataclass
class RoomFollowing:
    """The rooms part of one accepted listen."""
    rooms: dict  # room number -> (the uris the client named it by, the Q on the threads now in it)
    listed: bool  # parley://rooms
    list_changed: bool  # resourcesListChanged
    places: frozenset = frozenset()  # the places the caller saw at the last look (forum.access.visible_places)
    latest: dict = field(default_factory=dict)  # room number -> what was newest in it at the last look
    noted: bool = False  # a room changed since the last delivery
    threads: set = field(default_factory=set)  # threads noted since the last delivery
    everything: bool = False  # a "*" note: what changed is not known

    def wanted(self):
        return bool(self.rooms) or self.listed or self.list_changed

    def hear(self, note):
        """Whether `note` may concern this stream's rooms (a quick prefilter, from the feed's thread)."""
        kind = note["kind"]
        return self.wanted() and kind == "room" or bool(self.rooms) and kind in THREAD_NOTES

    def note(self, note):
        kind = note["kind"]
        if kind == "*":
            self.everything = True
        elif kind == "room":
            self.noted = True
        elif kind in THREAD_NOTES and self.rooms:
            self.threads.add(note["thread"])

    def look(self, actor):
        """Read, for the caller now, the places it sees and what is newest in the rooms it follows."""
        self.places = visible_places(actor)
        self.latest = {number: latest_in(actor, where) for number, (_, where) in self.rooms.items()}

    def news(self, actor):
        """In a worker thread: (the uris to announce, whether the set of rooms the caller sees changed), read
        for the caller now. Clears what was noted. A room is announced when it, or what the caller sees of
        it, changed; `parley://rooms` when a room the caller sees, or saw, changed."""
        noted, threads, everything = self.noted, self.threads, self.everything
        self.noted, self.threads, self.everything = False, set(), False
        uris, changed = set(), False
        if noted or everything:
            before, latest_before = self.places, self.latest
            self.look(actor)
            changed = listed(self.places) != listed(before)
            moved = {number for number, _, _ in self.places ^ before}
            seen = {number for number, _, _ in self.places}
            if self.listed and moved:
                uris.add(ROOMS)
            for number, (room_uris, _) in self.rooms.items():
                if number in seen and (number in moved or self.latest[number] != latest_before.get(number)):
                    uris.update(room_uris)
        for room_uris, where in self.rooms.values():
            if threads and visible_thread_ids(actor, threads, where):
                uris.update(room_uris)
        return uris, changed and self.list_changed


def room_uri(uri):
    """The room id a `parley://rooms/{id}` uri names, or None for any other uri."""
    match = ROOM_URI.fullmatch(uri)
    return None if match is None else match.group("id")


def follow_rooms(actor, uris, list_changed):
    """The rooms part of a listen on `uris`, checked as reading them is (§2: a room the caller may not see
    is not_found, as an unknown one), and what it leaves to the rest of the listen."""
    rooms, rest, listed_all = {}, [], False
    for uri in uris:
        ref = room_uri(uri)
        if uri == ROOMS:
            listed_all = True
        elif ref is not None:
            number = int(call(OPERATIONS["read_room"], actor, {"room": ref})[1]["room"]["id"].removeprefix("rm_"))
            rooms.setdefault(number, ([], room_threads_q(actor, f"rm_{number}")))[0].append(uri)
        else:
            rest.append(uri)
    following = RoomFollowing(rooms, listed_all, list_changed)
    if following.wanted():
        following.look(actor)
    return following, rest
