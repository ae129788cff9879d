"""`parley_protocol_doc` renders docs/protocol.md's tables anew from the code; `--check` changes nothing
and fails, naming each stale table, when the file is not what the code would render (CI runs it)."""
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from forum.protocol_doc import COMMAND, refresh


class Command(BaseCommand):
    help = "Render docs/protocol.md's tables (kinds, transitions, reasons, limits, operations, shapes) from the code."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true",
                            help="write nothing; exit non-zero naming the tables that are stale")
        parser.add_argument("--path", type=Path, default=Path(settings.BASE_DIR, "docs/protocol.md"),
                            help="the document (default: docs/protocol.md)")

    def handle(self, *args, check, path, **options):
        try:
            text, stale = refresh(path.read_text())
        except FileNotFoundError:
            raise CommandError(f"{path} does not exist: its prose is written by hand, around the tables") from None
        except KeyError as missing:
            raise CommandError(f"{path} has no markers for the table {missing.args[0]}") from None
        if check:
            if stale:
                raise CommandError(f"{path} is stale: {', '.join(stale)}; run `{COMMAND}`")
            self.stdout.write(f"{path} is up to date")
            return
        if stale:
            path.write_text(text)
        self.stdout.write(f"{path}: rendered {', '.join(stale)}" if stale else f"{path} is up to date")
