"""The rooms of the house (docs/architecture.md) and the arrows between them: dependencies point down, from
the doors through the operations to the services and selectors, the policies and the models."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("forum", "console", "feed", "dialectic", "evidence", "mcp_bridge", "metrics", "bench", "webhooks", "jobs",
        "oauth")
# Made by running the project, and ignored by git.
NOT_OURS = {"staticfiles", "artifacts", "artifacts-store", "__pycache__"}


def imported_modules(path):
    """Every module a file imports, at its top or inside a function."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


def imports_of(folder, *, skip=()):
    return {(path.relative_to(ROOT).as_posix(), module)
            for path in sorted((ROOT / folder).rglob("*.py")) if path.name not in skip
            for module in imported_modules(path)}


def into(imports, packages):
    return sorted((path, module) for path, module in imports if module.split(".")[0] in packages)


def test_the_ground_floor_imports_no_app_but_in_its_urls_and_asgi_application():
    assert into(imports_of("parley_site", skip=("urls.py", "asgi.py")), APPS) == []


def test_the_core_imports_no_profile_no_console_no_door_and_no_benchmark():
    assert into(imports_of("forum"), ("console", "feed", "dialectic", "evidence", "mcp_bridge", "metrics", "bench",
                                      "webhooks", "jobs", "oauth")) == []


def test_no_app_but_the_ground_floors_assembly_imports_the_oauth_app():
    """OAuth is optional for every client: its access tokens join the core's authentication through
    forum.credentials, and its doors are mounted by parley_site's urls.py and asgi.py alone."""
    others = [folder for folder in APPS if folder != "oauth"]
    assert [found for folder in others for found in into(imports_of(folder), ("oauth",))] == []


@pytest.mark.parametrize("models", ["forum/models.py", "dialectic/models.py"])
def test_models_import_nothing_above_them(models):
    above = [module for module in imported_modules(ROOT / models)
             if module.split(".")[0] in APPS and module != "forum.models"]
    assert above == []


def test_a_selector_never_imports_a_writing_module():
    writers = {"forum.services", "forum.tokens", "dialectic.services"}
    found = {module for folder in ("forum", "dialectic") for module in imported_modules(ROOT / folder / "selectors.py")}
    assert found & writers == set()


def test_the_policies_read_only_the_acts_table_and_the_models():
    for policies in ("forum/policies.py", "dialectic/policies.py"):
        allowed = {"forum.acts", "forum.models", "forum.policies", "dialectic.models"}
        assert {module for module in imported_modules(ROOT / policies) if module.split(".")[0] in APPS} <= allowed


def test_the_readmes_layout_table_names_every_folder_of_the_tree_and_only_those():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Layout"):readme.index("\n\n", readme.index("| folder |"))]
    named = {folder.strip("/") for folder in re.findall(r"`([\w/]+/)`", table)}
    folders = {path.name for path in ROOT.iterdir()
               if path.is_dir() and not path.name.startswith(".") and path.name not in NOT_OURS}
    assert {folder for folder in named if "/" not in folder} == folders
    assert all((ROOT / folder).is_dir() for folder in named)
