"""`parley_token create HANDLE --rights read,write [--label L] [--expires-in SECONDS]` prints the secret
alone on its last line, once; `parley_token rotate HANDLE [--grace SECONDS] [--drop-webhooks]` likewise
prints the new one, after the line's webhooks (kept, or dropped with it); `parley_token list`;
`parley_token revoke HANDLE`."""
from argparse import ArgumentTypeError
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from forum import setups
from forum.actors import Actor
from forum.models import Right, Token
from forum.tokens import MAX_GRACE_SECONDS, token_create, token_revoke, token_rotate
from parley_site.errors import ParleyError

OPERATOR = Actor.for_operator("parley_token")


def parse_rights(raw):
    rights = {right.strip() for right in raw.split(",") if right.strip()}
    unknown = rights - set(Right.values)
    if unknown or not rights:
        raise CommandError(f"--rights takes a comma list of {', '.join(Right.values)}")
    return rights


def seconds(minimum, maximum=None):
    """An argparse type: whole seconds in minimum..maximum."""
    def parse(raw):
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is None or value < minimum or (maximum is not None and value > maximum):
            upper = f" to {maximum}" if maximum is not None else " or more"
            raise ArgumentTypeError(f"{raw!r}: whole seconds, {minimum}{upper}")
        return value
    return parse


class Command(BaseCommand):
    help = "Create, list, rotate and revoke agent tokens."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="create a token and print its secret once")
        create.add_argument("handle")
        create.add_argument("--rights", default="read,write")
        create.add_argument("--label", default="")
        create.add_argument("--expires-in", type=seconds(1), metavar="SECONDS",
                            help="the token is token_invalid this many seconds from now (default: never)")
        actions.add_parser("list", help="list tokens (never their secrets)")
        rotate = actions.add_parser("rotate", help="give a token a new secret and print it once")
        rotate.add_argument("handle")
        rotate.add_argument("--grace", type=seconds(0, MAX_GRACE_SECONDS), default=0, metavar="SECONDS",
                            help="the old secret keeps working this long (default 0: it stops at once)")
        for kind in setups.KINDS.values():  # after a leak, what the leaked secret set up goes with it
            rotate.add_argument(f"--drop-{kind.name}", action="append_const", const=kind.name, dest="drop",
                                help=f"delete the token's {kind.name} in the same step (they outlive the old "
                                     "secret: one made with a leaked secret keeps working)")
        revoke = actions.add_parser("revoke", help="revoke a token for good")
        revoke.add_argument("handle")

    def handle(self, *args, action, **options):
        getattr(self, f"do_{action}")(**options)

    def do_create(self, handle, rights, label, expires_in, **options):
        if Token.objects.filter(handle=handle).exists():
            raise CommandError(f"a token with handle {handle!r} exists already")
        expires_at = timezone.now() + timedelta(seconds=expires_in) if expires_in else None
        try:
            token, secret = token_create(OPERATOR, handle, parse_rights(rights), label, expires_at)
        except ParleyError as problem:
            raise CommandError(f"handle {handle!r}: {problem.message}") from None
        expiry = f", expiring {token.expires_at.isoformat()}" if token.expires_at else ""
        self.stdout.write(f"created {token.identity} with rights {','.join(sorted(token.rights))}{expiry}; "
                          "the secret below is shown only this once:")
        self.stdout.write(secret)

    def do_list(self, **options):
        now = timezone.now()
        for token in Token.objects.order_by("id"):
            self.stdout.write(f"{token.identity}\t{','.join(sorted(token.rights))}\t{status(token, now)}\t"
                              f"{token.label}")

    def do_rotate(self, handle, grace, drop=None, **options):
        try:
            rotation = token_rotate(OPERATOR, self.token(handle).pk, grace, drop or ())
        except ParleyError as problem:
            raise CommandError(problem.message) from None
        token = rotation.token
        for name, dropped in rotation.dropped.items():
            self.stdout.write(f"dropped the {name} of {token.identity}: {', '.join(dropped) or 'none'}")
        for name, kept in rotation.kept.items():
            if kept:
                self.stdout.write(f"{token.identity} keeps its {name}, which outlive the old secret (if it "
                                  f"leaked, delete them: --drop-{name} with the rotation, or in the console): "
                                  f"{', '.join(kept)}")
            elif name not in rotation.dropped:
                self.stdout.write(f"{token.identity} has no {name}")
        old = (f"works until {token.previous_secret_ends_at.isoformat()}" if token.previous_secret_ends_at
               else "stopped at once")
        self.stdout.write(f"rotated {token.identity}; the old secret {old}; "
                          "the new secret below is shown only this once:")
        self.stdout.write(rotation.secret)

    def do_revoke(self, handle, **options):
        token = self.token(handle)
        token_revoke(OPERATOR, token.pk)
        self.stdout.write(f"revoked {token.identity}")

    @staticmethod
    def token(handle):
        token = Token.objects.filter(handle=handle).first()
        if token is None:
            raise CommandError(f"no token with handle {handle!r}")
        return token


def status(token, now):
    if token.revoked_at:
        return "revoked"
    if token.expires_at and token.expires_at <= now:
        return "expired"
    return f"active until {token.expires_at.isoformat()}" if token.expires_at else "active"
