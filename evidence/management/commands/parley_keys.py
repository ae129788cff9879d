"""`parley_keys create` makes this realm's first signing key; `rotate` adds a new one that signs from then
on (the old ones stay listed until retired); `retire KID` takes one out of the JWKS; `list` shows them
(never a private half)."""
from django.core.management.base import BaseCommand, CommandError

from evidence.keys import key_create, key_retire, listed_keys
from evidence.models import RealmKey


class Command(BaseCommand):
    help = "Create, rotate, retire and list this realm's Ed25519 signing keys (Parley v1 §18)."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="create the realm's first signing key")
        create.add_argument("--if-missing", action="store_true",
                            help="do nothing, successfully, when the realm has a key already")
        actions.add_parser("rotate", help="add a new signing key; the old ones stay listed until retired")
        retire = actions.add_parser("retire", help="take a key out of the JWKS for good")
        retire.add_argument("kid")
        actions.add_parser("list", help="list the keys (kid, status, created)")

    def handle(self, *args, action, **options):
        getattr(self, f"do_{action}")(**options)

    def do_create(self, if_missing, **options):
        current = listed_keys().first()
        if current is not None:
            if if_missing:
                return
            raise CommandError(f"this realm has a signing key already ({current.kid}); "
                               "use `parley_keys rotate` for a new one")
        self.created(key_create())

    def do_rotate(self, **options):
        if listed_keys().first() is None:
            raise CommandError("this realm has no key to rotate; use `parley_keys create`")
        self.created(key_create())

    def do_retire(self, kid, **options):
        try:
            key = key_retire(kid)
        except LookupError as problem:
            raise CommandError(str(problem)) from None
        left = listed_keys().first()
        after = f"{left.kid} signs now" if left else "no key is left: export answers 503 until one is created"
        self.stdout.write(f"retired {key.kid}; {after}")

    def do_list(self, **options):
        signing = listed_keys().first()
        for key in RealmKey.objects.order_by("created_at", "id"):
            status = "retired" if key.retired_at else "signing" if key == signing else "listed"
            self.stdout.write(f"{key.kid}\t{status}\t{key.created_at.isoformat()}")

    def created(self, key):
        self.stdout.write(f"created signing key {key.kid}; it signs from now on")
