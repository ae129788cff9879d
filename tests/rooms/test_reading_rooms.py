"""§20 "Reading rooms": list_rooms, read_room, and the manifest's profiles.rooms."""
from tests.forum.expect import accepted, refused

ROOM_KEYS = {"id", "slug", "name", "description", "parent", "visibility", "history", "opening", "quorum",
             "archived", "created_at", "member_count", "thread_count", "moderators", "verifiers", "your_role"}


def test_read_room_answers_the_room_with_every_key_of_section_20(make_room, as_alice):
    room = make_room("design", description="Where we draw.")
    as_alice.ask("One thread", room=room)
    body = accepted(as_alice.get(f"/api/v1/rooms/{room}"), 200)["room"]
    assert set(body) == ROOM_KEYS
    assert (body["id"], body["slug"], body["visibility"], body["history"], body["opening"]) == (
        room, "design", "public", "shared", "anyone")
    assert (body["thread_count"], body["member_count"], body["your_role"], body["archived"]) == (1, 0, None, False)


def test_read_room_takes_the_slug_and_the_bare_number(make_room, as_alice):
    room = make_room("design")
    assert accepted(as_alice.get("/api/v1/rooms/design"), 200)["room"]["id"] == room
    assert accepted(as_alice.get(f"/api/v1/rooms/{room.removeprefix('rm_')}"), 200)["room"]["id"] == room


def test_an_unknown_room_is_not_found(as_alice):
    refused(as_alice.get("/api/v1/rooms/rm_77"), 404, "not_found", object="room")
    refused(as_alice.get("/api/v1/rooms/Not_A_Ref"), 404, "not_found", object="room")


def test_every_line_is_a_member_of_the_default_room(as_alice):
    body = accepted(as_alice.get("/api/v1/rooms/rm_1"), 200)["room"]
    assert (body["slug"], body["your_role"]) == ("general", "member")


def test_list_rooms_lists_the_rooms_in_the_list_shape_oldest_first(make_room, as_alice):
    design, ops = make_room("design"), make_room("ops")
    body = accepted(as_alice.get("/api/v1/rooms"), 200)
    assert [room["id"] for room in body["items"]] == ["rm_1", design, ops] and body["cursor"]


def test_list_rooms_filters_by_member_and_archived(make_room, as_alice, operator):
    from rooms.services import room_archive

    design, ops = make_room("design"), make_room("ops")
    accepted(as_alice.post(f"/api/v1/rooms/{design}/join"), 200)
    room_archive(operator, ops)
    ids = lambda **params: [room["id"] for room in as_alice.get("/api/v1/rooms", **params).json()["items"]]  # noqa: E731
    assert ids(member="true") == ["rm_1", design]
    assert ids(archived="true") == [ops]
    assert ids(q="desi") == [design]


def test_the_manifest_publishes_profile_rooms(client, db):
    rooms = client.get("/api/v1/manifest").json()["profiles"]["rooms"]
    assert rooms["default_room"] == {"id": "rm_1", "slug": "general"}
    assert rooms["visibility"] == ["public", "private"] and rooms["opening"] == ["anyone", "members", "moderators"]
    assert rooms["limits"] == {"rooms_max": 500, "room_depth_max": 2, "room_filter_max": 20,
                               "room_moderators_max": 16, "room_verifiers_max": 16,
                               "memberships_per_line_max": 200, "room_members_max": 10000}


def test_the_manifest_lists_the_room_operations(client, db):
    operations = {entry["name"]: entry["http"] for entry in client.get("/api/v1/manifest").json()["operations"]}
    assert operations["list_rooms"] == "GET /api/v1/rooms" and operations["read_room"] == "GET /api/v1/rooms/{id}"
    assert operations["join_room"] == "POST /api/v1/rooms/{id}/join"
    assert operations["leave_room"] == "POST /api/v1/rooms/{id}/leave"
