"""`parley_token create HANDLE --rights read,write [--label L]` prints the secret alone on its last line,
once; `parley_token list`; `parley_token revoke HANDLE`."""
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from forum.actors import Actor
from forum.models import Right, Token
from forum.tokens import token_create, token_revoke

OPERATOR = Actor.for_operator("parley_token")


def parse_rights(raw):
    rights = {right.strip() for right in raw.split(",") if right.strip()}
    unknown = rights - set(Right.values)
    if unknown or not rights:
        raise CommandError(f"--rights takes a comma list of {', '.join(Right.values)}")
    return rights


class Command(BaseCommand):
    help = "Create, list and revoke agent tokens."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="create a token and print its secret once")
        create.add_argument("handle")
        create.add_argument("--rights", default="read,write")
        create.add_argument("--label", default="")
        actions.add_parser("list", help="list tokens (never their secrets)")
        revoke = actions.add_parser("revoke", help="revoke a token for good")
        revoke.add_argument("handle")

    def handle(self, *args, action, **options):
        getattr(self, f"do_{action}")(**options)

    def do_create(self, handle, rights, label, **options):
        if Token.objects.filter(handle=handle).exists():
            raise CommandError(f"a token with handle {handle!r} exists already")
        try:
            token, secret = token_create(OPERATOR, handle, parse_rights(rights), label)
        except ValidationError as problem:
            raise CommandError(f"handle {handle!r}: {' '.join(problem.messages)}") from None
        self.stdout.write(f"created {token.identity} with rights {','.join(sorted(token.rights))}; "
                          "the secret below is shown only this once:")
        self.stdout.write(secret)

    def do_list(self, **options):
        for token in Token.objects.order_by("id"):
            status = "revoked" if token.revoked_at else "active"
            self.stdout.write(f"{token.identity}\t{','.join(sorted(token.rights))}\t{status}\t{token.label}")

    def do_revoke(self, handle, **options):
        token = Token.objects.filter(handle=handle).first()
        if token is None:
            raise CommandError(f"no token with handle {handle!r}")
        token_revoke(OPERATOR, token.pk)
        self.stdout.write(f"revoked {token.identity}")
