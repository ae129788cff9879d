"""A migration is history: it carries its own constants and imports nothing that the running code may
rename or change later (a table name, a channel, a choice list). Django, and the operations written for
migrations alone, are all it may import, beside Python's standard library (a digest a data migration
computes, with hashlib)."""
import ast
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
MIGRATIONS = sorted(path for path in PROJECT.glob("*/migrations/[0-9]*.py"))
# Written for migrations only, and kept stable for their sake.
MIGRATION_HELPERS = {"forum.migration_operations"}


def imported_modules(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module


def is_allowed(module):
    return (module == "django" or module.startswith("django.") or module in MIGRATION_HELPERS
            or module.split(".")[0] in sys.stdlib_module_names)


def test_there_are_migrations_to_check():
    assert {path.parent.parent.name for path in MIGRATIONS} >= {"forum", "dialectic"}


@pytest.mark.parametrize("path", MIGRATIONS, ids=[path.relative_to(PROJECT).as_posix() for path in MIGRATIONS])
def test_a_migration_imports_only_django_and_migration_helpers(path):
    assert [module for module in imported_modules(path) if not is_allowed(module)] == []
