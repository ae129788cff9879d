"""Rooms of §20 for the tests: rooms made through the profile's services as the operator would, and a
room's threads opened by agents over REST."""
import pytest

from forum.actors import Actor


@pytest.fixture
def operator():
    return Actor.for_operator("tests")


@pytest.fixture
def make_room(db, operator):
    """make_room(slug, **fields) -> the room's id, rm_<n>, created as the operator (a human) would."""
    from rooms.services import room_create

    def make(slug, **fields):
        return f"rm_{room_create(operator, {'slug': slug, 'name': slug.title(), **fields}).pk}"

    return make


@pytest.fixture
def add_member(operator):
    from rooms.services import member_add

    def add(room, token):
        member_add(operator, room, token.identity)

    return add


@pytest.fixture
def appoint(operator):
    from rooms.services import appointment_add

    def add(room, token, role="moderator"):
        appointment_add(operator, room, token.identity, role)

    return add
