"""Every write queues one fan-out job in its own transaction (§17), so a write never waits for a delivery
and a rolled-back write sends nothing. The core imports no webhook: this listens to the writes' own
announcements (forum.announce), registered in WebhooksConfig.ready(), and hands the job their facts: the
thread, the events the write recorded with the rooms each concerns (§20: its room, and for a move the room
it left), and the move it now awaits when it may have entered inboxes."""
from forum.announce import WRITES, listen
from webhooks.tasks import fan_out


def event_rooms(event):
    return [event.room_number] + ([event.from_room_number] if event.from_room_number is not None else [])


def write_announced(announcement):
    fan_out.enqueue(announcement.thread.pk, events=[event.pk for event in announcement.events],
                    awaiting=announcement.awaiting, written_at=announcement.at.isoformat(),
                    rooms=[event_rooms(event) for event in announcement.events])


def connect():
    for write in WRITES:
        listen(write, write_announced)
