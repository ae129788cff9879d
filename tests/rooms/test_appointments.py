"""§20: only the human appoints and dismisses room moderators and verifiers. The human is a person holding
every right (a staff user with forum.moderate_thread, the operator); a staff user who only reads is a person
too, `human:<username>`, but not the human."""
import pytest

from forum.actors import Actor
from parley_site.errors import TokenRightMissing
from rooms.models import Appointment, LogEntry
from rooms.services import appointment_add, appointment_remove


@pytest.mark.parametrize("service", [appointment_add, appointment_remove])
def test_a_staff_user_who_only_reads_neither_appoints_nor_dismisses(make_room, staff_reader, bob, appoint, service):
    room = make_room("design")
    appoint(room, bob)
    before = (list(Appointment.objects.values_list("identity", "role")), LogEntry.objects.count())

    with pytest.raises(TokenRightMissing) as refused:
        service(Actor.for_user(staff_reader), room, bob.identity, "moderator")

    assert (refused.value.reason, refused.value.detail) == ("token_right_missing", {"right": "lock"})
    assert (list(Appointment.objects.values_list("identity", "role")), LogEntry.objects.count()) == before


def test_a_staff_user_holding_every_right_appoints(make_room, moderator, bob):
    room = make_room("design")

    appointment_add(Actor.for_user(moderator), room, bob.identity, "verifier")

    assert Appointment.objects.filter(identity=bob.identity, role="verifier").exists()
