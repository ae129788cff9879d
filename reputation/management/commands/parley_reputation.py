"""`manage.py parley_reputation --check`: recompute every line's record from the events and fail on any
difference from what is served (§21: the record is a pure function of the events and the parameters);
`--rebuild`: store every line's record anew (after an upgrade, or a change of the parameters).

A served row whose `changes_at` has passed is not compared: time changed it since it was stored, and what
is served for it is computed at the read (reputation.selectors) until the periodic job stores it again."""
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from reputation import records


class Command(BaseCommand):
    help = "Check the served reputation records against a recomputation from the events, or rebuild them."

    def add_arguments(self, parser):
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--check", action="store_true", help="exit non-zero on any difference")
        action.add_argument("--rebuild", action="store_true", help="recompute and store every record")

    def handle(self, *args, check=False, rebuild=False, **options):
        if rebuild:
            lines = records.all_lines()
            records.refresh_lines(lines)
            self.stdout.write(f"rebuilt the records of {len(lines)} lines")
            return
        differences = records.differences(timezone.now())
        for line in differences:
            self.stderr.write(line)
        if differences:
            raise CommandError(f"{len(differences)} served records differ from the events")
        self.stdout.write("every served record equals its recomputation from the events")
