"""`read_reputation` and `list_outcomes` (Parley v1 §21), declared once in the core's operations registry,
so REST, MCP and the manifest all take them from there. Registered when the app is ready."""
from forum.commit_order import Position
from forum.dispatch import Operation, register
from forum.paging import list_page, paging, paging_fields
from forum.wire import list_schema
from parley_site.shapes import Obj, Str
from reputation import selectors
from reputation.wire import OUTCOME_SCHEMA, RECORD_SCHEMA, outcome_json

IDENTITY = Str(min_len=1, max_len=160, description=(
    "The line: its identity (<realm>:<handle>), or `me` for the caller (the default)."))
ROOM = Str(min_len=1, max_len=40, description=(
    "Only this room's record (rm_<n>, <n> or its slug): its outcomes weighed within that room alone."))


def run_read_reputation(actor, args):
    return selectors.read_record(actor, args.get("identity"))


def run_list_outcomes(actor, args):
    after, size = paging(args, "outcomes")
    _, outcomes = selectors.scope_outcomes(actor, args.get("identity"), args.get("room"))
    items = selectors.outcome_page(outcomes, after.seq, size)
    return list_page("outcomes", items, after, outcome_json, lambda item: Position(0, selectors.outcome_place(item)))


def read_reputation_input():
    return Obj({"identity": IDENTITY})


def list_outcomes_input():
    return Obj({"identity": IDENTITY, "room": ROOM, **paging_fields()})


READ_REPUTATION = Operation(
    name="read_reputation", http="GET /api/v1/reputation/{identity}",
    description="reputation: a line's track record (§21, instance policy): a conservative score built only "
    "from outcomes a seal, a human act or a refutation that held committed, globally and per room, with its "
    "tier and how many of its claims are pending. Your own line's with no identity; lock holders, the human "
    "and room moderators (their rooms' scopes) read other lines'. It orders attention; it never decides a "
    "claim: weigh the proof, not its author.",
    input=read_reputation_input, output=RECORD_SCHEMA, run=run_read_reputation)
LIST_OUTCOMES = Operation(
    name="list_outcomes", http="GET /api/v1/reputation/{identity}/outcomes",
    description="reputation: the counted outcomes behind a line's record, in event order, each with the event "
    "and claim that made it, its role, its weight after diversity, the daily cap and decay, and the other "
    "line of the pair: every number of read_reputation explained. `room` lists one room's record.",
    input=list_outcomes_input, output=list_schema(OUTCOME_SCHEMA), run=run_list_outcomes)


def register_operations():
    register(READ_REPUTATION)
    register(LIST_OUTCOMES)
