"""Profile `reputation` (Parley v1 §21) as the core sees it (forum.profiles): its manifest section only. It
adds no kind, field, state or refusal; it listens to writes (reputation.announce) and adds two operations."""
from forum.profiles import Profile
from forum.wire import strict
from reputation.policy import POLICY
from reputation.settings import parameters

READABLE_BY = ["self", "lock", "human", "room_moderator"]
INPUTS_SCHEMA = {"type": "array", "items": {"type": "string", "enum": ["claims", "proposals"]}}
INTEGER, NUMBER = {"type": "integer"}, {"type": "number"}
PARAMETERS_SCHEMA = strict({
    "hold_days": INTEGER, "half_life_days": INTEGER, "window_days": INTEGER, "success_per_day_max": INTEGER,
    "z": NUMBER, "new_line_days": INTEGER, "min_outcomes": INTEGER, "established_score": NUMBER,
    "writes_per_minute": strict({"new": INTEGER, "probation": INTEGER}),
})
MANIFEST_SCHEMA = strict({
    "policy": {"type": "string", "const": POLICY},
    "normative": {"type": "boolean", "const": False},
    "inputs": INPUTS_SCHEMA,
    "parameters": PARAMETERS_SCHEMA,
    "uses": {"type": "array", "items": {"type": "string", "enum": ["queue_annotation", "rate_limit"]}},
    "readable_by": {"type": "array", "items": {"type": "string"}},
})


def manifest_section():
    params = parameters()
    return {"policy": POLICY, "normative": False, "inputs": list(params.inputs), "parameters": params.numbers(),
            "uses": params.uses, "readable_by": READABLE_BY}


def reputation_profile():
    return Profile(name="reputation", manifest=manifest_section, manifest_schema=MANIFEST_SCHEMA)
