"""The parts of the house and the arrows between them (docs/architecture.md): dependencies point down, from
the doors through the operations to the services and selectors, the policies and the models. The table of
what each part may import is read from docs/architecture.md itself, so the doc and this test cannot drift."""
import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs/architecture.md"
# Made by running the project, and ignored by git.
NOT_OURS = {"staticfiles", "artifacts", "artifacts-store", "__pycache__"}
MODULE_NAME = re.compile(r"[a-z_]+(?:\.[a-z_]+)*")


@dataclass(frozen=True)
class Row:
    """One row of the table: the folders (`x/`) and files (`x/y.py`) it speaks for, and what they may
    import of the other parts (None: anything)."""
    paths: tuple
    allowed: frozenset | None

    @property
    def name(self):
        return ", ".join(self.paths)


def table_rows():
    text = ARCHITECTURE.read_text()
    header = text.index("| part | what lives there | may import |")
    lines = text[header:].split("\n\n")[0].splitlines()[2:]
    rows = []
    for line in lines:
        paths_cell, _, allowed_cell = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        paths = tuple(re.findall(r"`([^`]+)`", paths_cell))
        named = frozenset(name for name in re.findall(r"`([^`]+)`", allowed_cell) if MODULE_NAME.fullmatch(name))
        rows.append(Row(paths, None if "anything" in allowed_cell else named))
    return rows


ROWS = table_rows()
PARTS = {path.split("/")[0] for row in ROWS for path in row.paths}


def imported_modules(path):
    """Every module a file imports, at its top or inside a function."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


def row_of(file):
    """The row that speaks for a file: its own, else its folder's."""
    relative = file.relative_to(ROOT).as_posix()
    return next((row for row in ROWS if relative in row.paths), None) or next(
        row for row in ROWS if f"{relative.split('/')[0]}/" in row.paths)


def allows(row, own_part, module):
    top = module.split(".")[0]
    if row.allowed is None or top not in PARTS or top == own_part:
        return True
    return any(module == name or module.startswith(f"{name}.") for name in row.allowed)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_each_part_imports_only_what_its_row_of_the_architecture_table_allows(row):
    files = [file for path in row.paths for file in
             (sorted((ROOT / path).rglob("*.py")) if path.endswith("/") else [ROOT / path])]
    assert files, f"{row.name} names no file"
    forbidden = sorted((file.relative_to(ROOT).as_posix(), module) for file in files if row_of(file) is row
                       for module in imported_modules(file) if not allows(row, file.relative_to(ROOT).parts[0], module))
    assert forbidden == []


def test_every_part_of_the_tree_has_a_row_of_the_table():
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"}
    assert packages == PARTS


def test_every_module_the_table_allows_exists():
    names = {name for row in ROWS for name in row.allowed or ()}
    missing = [name for name in names if not (ROOT / name.replace(".", "/")).is_dir()
               and not (ROOT / f"{name.replace('.', '/')}.py").is_file()]
    assert missing == []


@pytest.mark.parametrize("models", ["forum/models.py", "dialectic/models.py"])
def test_models_import_nothing_above_them(models):
    # forum.migration_operations imports Django alone: it holds the column defaults that migrations name too.
    above = [module for module in imported_modules(ROOT / models)
             if module.split(".")[0] in PARTS and module not in {"forum.models", "forum.migration_operations"}]
    assert above == []


def test_a_selector_never_imports_a_writing_module():
    writers = {"forum.services", "forum.tokens", "dialectic.services"}
    found = {module for folder in ("forum", "dialectic") for module in imported_modules(ROOT / folder / "selectors.py")}
    assert found & writers == set()


def test_the_policies_read_only_the_acts_table_and_the_models():
    for policies in ("forum/policies.py", "dialectic/policies.py"):
        allowed = {"forum.acts", "forum.models", "forum.policies", "dialectic.models"}
        assert {module for module in imported_modules(ROOT / policies) if module.split(".")[0] in PARTS} <= allowed


def test_the_readmes_layout_table_names_every_folder_of_the_tree_and_only_those():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Layout"):readme.index("\n\n", readme.index("| folder |"))]
    named = {folder.strip("/") for folder in re.findall(r"`([\w/]+/)`", table)}
    folders = {path.name for path in ROOT.iterdir()
               if path.is_dir() and not path.name.startswith(".") and path.name not in NOT_OURS}
    assert {folder for folder in named if "/" not in folder} == folders
    assert all((ROOT / folder).is_dir() for folder in named)
