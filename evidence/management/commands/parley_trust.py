"""`parley_trust add REALM JWKS_FILE` trusts another realm's attestations, checked with the keys of its
JWKS (adding it again replaces them: that is how its rotations and retirements arrive); `remove REALM`;
`list`."""
import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from evidence.models import TrustedRealm
from evidence.trust import realm_distrust, realm_trust
from forum.actors import Actor

OPERATOR = Actor.for_operator("parley_trust")


class Command(BaseCommand):
    help = "Trust, distrust and list other realms whose signed attestations this realm accepts (Parley v1 §18)."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="trust a realm with the keys of its JWKS file")
        add.add_argument("realm")
        add.add_argument("jwks_file", type=Path, help="the realm's /.well-known/parley-keys.json, saved")
        remove = actions.add_parser("remove", help="stop trusting a realm")
        remove.add_argument("realm")
        actions.add_parser("list", help="list the trusted realms and their key ids")

    def handle(self, *args, action, **options):
        getattr(self, f"do_{action}")(**options)

    def do_add(self, realm, jwks_file, **options):
        try:
            jwks = json.loads(jwks_file.read_text())
        except (OSError, ValueError) as problem:
            raise CommandError(f"{jwks_file}: not a readable JSON file ({problem})") from None
        try:
            trusted, created = realm_trust(OPERATOR, realm, jwks)
        except ValidationError as problem:
            raise CommandError(f"{jwks_file}: {' '.join(problem.messages)}") from None
        self.stdout.write(f"{'trusted' if created else 'updated'} {realm} with keys {', '.join(kids(trusted))}")

    def do_remove(self, realm, **options):
        if not realm_distrust(realm):
            raise CommandError(f"{realm!r} is not trusted")
        self.stdout.write(f"no longer trusting {realm}")

    def do_list(self, **options):
        for trusted in TrustedRealm.objects.order_by("realm"):
            self.stdout.write(f"{trusted.realm}\t{','.join(kids(trusted))}\t{trusted.added_at.isoformat()}\t"
                              f"{trusted.added_by}")


def kids(trusted):
    return [key["kid"] for key in trusted.jwks["keys"]]
