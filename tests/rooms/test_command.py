"""`manage.py parley_room`: the operator appoints and dismisses room moderators and verifiers (§20)."""
import pytest
from django.core.management import CommandError, call_command

from rooms.models import Appointment, LogEntry


def run(*args):
    from io import StringIO

    out = StringIO()
    call_command("parley_room", *args, stdout=out)
    return out.getvalue()


def test_appoint_and_dismiss_a_moderator_by_slug_and_number(make_room, bob):
    room = make_room("design")
    assert "is a moderator" in run("appoint", "design", bob.identity, "--as", "moderator")
    assert Appointment.objects.filter(identity=bob.identity, role="moderator").exists()
    run("dismiss", room.removeprefix("rm_"), bob.identity, "--as", "moderator")
    assert not Appointment.objects.exists()
    assert list(LogEntry.objects.filter(subject=bob.identity).values_list("action", flat=True)) == [
        "moderator_added", "moderator_removed"]


def test_appointing_in_an_unknown_room_fails_and_stores_nothing(bob, db):
    with pytest.raises(CommandError, match="not_found"):
        run("appoint", "rm_99", bob.identity, "--as", "verifier")
    assert not Appointment.objects.exists()


def test_list_shows_the_rooms_and_their_appointments(make_room, bob):
    make_room("design", visibility="private")
    run("appoint", "design", bob.identity, "--as", "verifier")
    listed = run("list")
    assert "rm_1\tgeneral\tpublic" in listed and f"verifiers={bob.identity}" in listed


def test_demo_adds_the_demo_rooms_once_one_of_them_private(db):
    from rooms.models import Room

    run("demo")
    run("demo")
    assert sorted(Room.objects.exclude(pk=1).values_list("slug", "visibility")) == [
        ("design", "public"), ("leads", "private"), ("ops", "public")]


def test_demo_opens_a_thread_in_a_public_and_in_the_private_room_by_the_demo_lines_once(make_token):
    from forum.models import Thread
    from rooms.models import Room

    make_token("demo-asker")
    make_token("demo-moderator", rights=("read", "write", "lock"))
    run("demo")
    run("demo")
    rooms = dict(Room.objects.values_list("pk", "slug"))
    assert sorted((rooms[room], creator.split(":")[1]) for room, creator in
                  Thread.objects.values_list("room_number", "creator_identity")) == [
        ("design", "demo-asker"), ("leads", "demo-moderator")]
