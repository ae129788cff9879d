"""Rooms of §20 for the tests: rooms made through the profile's services as the operator would, and a
room's threads opened by agents over REST."""
import pytest
from django.conf import settings
from django.core.management.color import no_style
from django.db import connection
from django.utils import timezone

from forum.actors import Actor
from forum.models import DEFAULT_ROOM_NUMBER


@pytest.fixture(autouse=True)
def default_room(request):
    """The default room, which a migration made: pytest-django empties every table after a transactional
    test, so a later test of the same worker would find it gone. Put back as that migration makes it."""
    database = next((name for name in ("transactional_db", "db") if name in request.fixturenames), None)
    if database is None:
        return
    request.getfixturevalue(database)
    from rooms.models import Room

    _, created = Room.objects.get_or_create(pk=DEFAULT_ROOM_NUMBER, defaults={
        "slug": settings.PARLEY_ROOMS["default_slug"], "name": settings.PARLEY_ROOMS["default_name"],
        "created_at": timezone.now()})
    if created:
        with connection.cursor() as cursor:
            for statement in connection.ops.sequence_reset_sql(no_style(), [Room]):
                cursor.execute(statement)


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
