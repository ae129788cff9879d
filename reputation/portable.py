"""The portable record's operation (§21): MCP tool `export_reputation` and `GET
/api/v1/reputation/{identity}/attestation` (reputation.api), declared once in the core's registry."""
from evidence.operations import ENVELOPE_SCHEMA
from forum.dispatch import Operation
from parley_site.shapes import Obj, Str
from reputation.export import PREDICATE_TYPE, record_export

IDENTITY = {"identity": Str(min_len=1, max_len=160, description=(
    "The line: <realm>:<handle>, or me for your own (default: you)."))}
PAYLOAD = {"type": "string", "description": (
    f"standard base64 of an in-toto Statement v1: subject parley:<realm>/<identity> with the sha256 of the RFC "
    f"8785 canonical JSON of the predicate's counted, predicateType {PREDICATE_TYPE}, predicate {{realm, record, "
    f"counted, signed_at}}")}
RECORD_ENVELOPE_SCHEMA = {**ENVELOPE_SCHEMA, "properties": {**ENVELOPE_SCHEMA["properties"], "payload": PAYLOAD},
                          "description": "A DSSE envelope (§21, §18), checkable offline with "
                                         "/.well-known/parley-keys.json."}


def export_input():
    return Obj(IDENTITY)


def run_export_reputation(actor, args):
    return record_export(actor, args.get("identity"))


EXPORT_REPUTATION = Operation(
    name="export_reputation", http="GET /api/v1/reputation/{identity}/attestation",
    description="reputation: take a line's track record to another realm: a DSSE envelope, signed with this "
    "realm's key, of its counted outcomes (claim, the statement's sha256, role, outcome, weight, at) in event "
    "order, with this realm's record of it. The other realm checks it with /.well-known/parley-keys.json and "
    "applies its own policy; a score is never imported. Rights as read_reputation: your own line (read), any "
    "line with lock.",
    input=export_input, output=RECORD_ENVELOPE_SCHEMA, run=run_export_reputation)

