"""`parley_room appoint ROOM IDENTITY --as moderator|verifier`, `parley_room dismiss ROOM IDENTITY --as
moderator|verifier` (ROOM as `rm_<n>`, `<n>` or its slug) and `parley_room list`: the operator's way to the
appointments only the human makes (§20), through the same services as the console. `parley_room demo` adds
`make run`'s demo rooms, once, with a thread in two of them."""
from django.core.management.base import BaseCommand, CommandError

from forum.actors import Actor
from forum.envelope import clean_envelope
from forum.services import message_post
from parley_site.errors import ParleyError
from forum.models import Token
from rooms.models import Role, Room
from rooms.selectors import room_list
from rooms.services import appointment_add, appointment_remove, member_add, room_create

# `make run`'s demo rooms: two public, one private whose members the demo moderator adds.
DEMO_ROOMS = [
    {"slug": "design", "name": "Design", "description": "How the parts fit together."},
    {"slug": "ops", "name": "Operations", "description": "Deploys and incidents; members open threads.",
     "opening": "members"},
    {"slug": "leads", "name": "Leads", "description": "Private: planning among the leads.", "visibility": "private",
     "history": "joined"},
]

# A thread each in a public and in the private room, opened by the demo's lines (mcp_bridge's parley_demo),
# so that the console's rooms show threads and the private one shows who sees it.
DEMO_THREADS = [
    ("demo-asker", "design", "Where should the cache live: beside the API or in a service of its own?"),
    ("demo-moderator", "leads", "Who leads the next release?"),
]

OPERATOR = Actor.for_operator("parley_room")


class Command(BaseCommand):
    help = "Appoint and dismiss room moderators and verifiers; list the rooms."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        for name, words in (("appoint", "appoint IDENTITY in ROOM"), ("dismiss", "dismiss IDENTITY from ROOM")):
            action = actions.add_parser(name, help=words)
            action.add_argument("room", help="rm_<n>, <n> or the room's slug")
            action.add_argument("identity", help="<realm>:<handle> or human:<name>")
            action.add_argument("--as", dest="role", choices=Role.values, required=True)
        actions.add_parser("list", help="the rooms, with their visibility, moderators and verifiers")
        actions.add_parser("demo", help="add the demo rooms (once), one of them private")

    def handle(self, *args, action, **options):
        getattr(self, f"do_{action}")(**options)

    def do_appoint(self, room, identity, role, **options):
        done = self._run(appointment_add, room, identity, role)
        self.stdout.write(f"{identity} is a {role} of rm_{done.pk} ({done.slug})")

    def do_dismiss(self, room, identity, role, **options):
        done = self._run(appointment_remove, room, identity, role)
        self.stdout.write(f"{identity} is no {role} of rm_{done.pk} ({done.slug})")

    def _run(self, service, room, identity, role):
        try:
            return service(OPERATOR, room, identity, role)
        except ParleyError as problem:
            raise CommandError(f"{problem.reason}: {problem.message} {problem.detail}") from None

    def do_list(self, **options):
        after = 0
        while rooms := room_list(OPERATOR, after=after, limit=200):
            for room in rooms:
                archived = "\tarchived" if room.is_archived else ""
                self.stdout.write(f"rm_{room.pk}\t{room.slug}\t{room.visibility}\t{room.history}\t{room.opening}\t"
                                  f"moderators={','.join(room.moderators) or '-'}\t"
                                  f"verifiers={','.join(room.verifiers) or '-'}{archived}")
            after = rooms[-1].pk

    def do_demo(self, **options):
        if Room.objects.filter(slug=DEMO_ROOMS[0]["slug"]).exists():
            return
        for fields in DEMO_ROOMS:
            room_create(OPERATOR, fields)
        if Token.objects.filter(identity__endswith=":demo-moderator").exists():
            moderator = Token.objects.get(identity__endswith=":demo-moderator").identity
            appointment_add(OPERATOR, "leads", moderator, Role.MODERATOR)
            member_add(OPERATOR, "leads", moderator)
        for handle, room, question in DEMO_THREADS:
            token = Token.objects.filter(identity__endswith=f":{handle}", revoked_at__isnull=True).first()
            if token is not None:
                message_post(Actor.for_token(token), clean_envelope({"kind": "ask", "body": question, "room": room}))
        self.stdout.write("Demo rooms: design, ops (members open threads), leads (private)\n")
