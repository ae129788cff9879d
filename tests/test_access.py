"""No way around the access check (docs/architecture.md, forum/access.py): every function of the house that
queries threads, messages, state events or claims is either forum/access.py's own, or builds its query on
its predicate (it calls `visible_q` or `visible_threads_q`), or is named below with the reason it must
not. Read from the code itself, as tests/test_layers.py reads the imports."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLES = {"Thread", "Message", "StateEvent", "Claim"}
PREDICATES = {"visible_q", "visible_threads_q"}
ACCESS = "forum/access.py"
# The benchmark (which writes its own fixtures) and migrations (history) are no reads of the house.
NOT_OURS = {"tests", "bench"}

# (file, top-level function or class) -> why it queries those tables without the predicate.
WITHOUT_THE_PREDICATE = {
    ("forum/services.py", "_thread_open"): "a write: creates the thread",
    ("forum/services.py", "_store_message"): "a write: stores the message on the thread access_thread locked",
    ("forum/services.py", "_record_event"): "a write: records the event of the thread access_thread locked",
    ("forum/services.py", "state_confirm"): "a write: stamps the proposal of the thread access_thread locked",
    ("forum/selectors.py", "state_events"): "a write's or the console row's own thread (a locked row, an "
                                            "OuterRef): what it marked, never a list",
    ("forum/selectors.py", "event_head"): "a position (the newest event's id), not a row",
    ("forum/selectors.py", "inbox_head"): "a position (the inbox's newest place), not a row",
    ("forum/selectors.py", "moderation_queue_size"): "the operator's gauge and the humans' header, who see "
                                                     "every thread (§20)",
    ("forum/selectors.py", "moderation_queue_entered_after"): "the humans' digest: they see every thread (§20)",
    ("forum/filters.py", "ThreadFilter"): "`q`'s set of ids, only ever tested against the visible threads "
                                          "it filters",
    ("dialectic/services.py", "_prepare_assert"): "a write: creates the claim in the thread access_thread locked",
    ("dialectic/services.py", "_record_event"): "a write: records the claim's event",
    ("dialectic/services.py", "claim_redact"): "a write: erases the claim of the message access_message found",
    ("dialectic/selectors.py", "claims_by_message"): "the claims of messages already read through the "
                                                     "predicate; a claim lives in its message's thread",
    ("reputation/facts.py", "claim_facts"): "the claims line_claim_numbers found through the predicate, their "
                                            "acts and the events those acts recorded",
    ("reputation/records.py", "lines_touched"): "whose served records a write changed: names of lines, no row "
                                                "shown to anyone",
    ("feed/hub.py", "poll_sqlite"): "positions (the newest ids), not rows: whether anything was written",
}


def python_files():
    parts = sorted(path.parent for path in ROOT.glob("*/__init__.py") if path.parent.name not in NOT_OURS)
    for path in (path for part in parts for path in sorted(part.rglob("*.py"))):
        relative = path.relative_to(ROOT).as_posix()
        if "/migrations/" not in relative:
            yield relative, ast.parse(path.read_text(), filename=relative)


def queries_a_table(node):
    """`Thread.objects` and the like, or a row read by forum.rows.one_row(Thread, ...)."""
    if isinstance(node, ast.Attribute) and node.attr == "objects":
        return isinstance(node.value, ast.Name) and node.value.id in TABLES
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "one_row":
        return bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id in TABLES
    return False


def calls_the_predicate(node):
    return any(isinstance(inner, ast.Call) and getattr(inner.func, "id", getattr(inner.func, "attr", None))
               in PREDICATES for inner in ast.walk(node))


def unchecked_queries():
    for relative, tree in python_files():
        if relative == ACCESS:
            continue
        for top in tree.body:
            name = getattr(top, "name", "<module>")
            if any(queries_a_table(node) for node in ast.walk(top)) and not calls_the_predicate(top):
                yield relative, name


def test_every_query_of_threads_messages_events_and_claims_goes_through_forum_access():
    assert sorted(set(unchecked_queries()) - set(WITHOUT_THE_PREDICATE)) == []


def test_every_exception_to_the_access_check_still_queries_those_tables():
    assert sorted(set(WITHOUT_THE_PREDICATE) - set(unchecked_queries())) == []


def test_the_rule_sees_a_query_that_bypasses_the_predicate():
    bypass = ast.parse("def leak(actor):\n    return Message.objects.all()\n").body[0]
    checked = ast.parse("def ok(actor):\n    return Message.objects.filter(visible_q(actor, 'thread__'))\n").body[0]
    assert any(queries_a_table(node) for node in ast.walk(bypass)) and not calls_the_predicate(bypass)
    assert calls_the_predicate(checked)
