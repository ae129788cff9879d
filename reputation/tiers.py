"""Use 2 of §21, `rate_limit` (off by default): a line's `writes_per_minute` by its tier, `new` and
`probation` lines fewer than §14's value, `established` ones §14's value itself. The core counts the writes
(forum.services); this module only answers, through the profile's `write_limit` hook
(forum.profiles.write_allowance), how many the line may make and what its refusal adds (`detail.tier`).

It reads the line's tier in one query, and only when it can matter: while the setting is off never, and
while the token's window holds fewer writes than the smallest tier allows, neither (`floor`)."""
import sys

from forum.limits import limit
from reputation.models import Standing
from reputation.policy import GLOBAL
from reputation.settings import parameters

NEW, PROBATION, ESTABLISHED = "new", "probation", "established"


def tier_writes(tier, params):
    """Writes per minute for a tier; never more than §14's `writes_per_minute`, which an operator may have
    set below a tier's value."""
    allowed = limit("writes_per_minute")
    given = {NEW: params.new_writes_per_minute, PROBATION: params.probation_writes_per_minute}
    return min(given.get(tier, allowed), allowed)


def floor():
    """The fewest writes in a window at which some tier could refuse: below it no tier is read."""
    params = parameters()
    if not params.rate_limits:
        return sys.maxsize
    return min(tier_writes(tier, params) for tier in (NEW, PROBATION, ESTABLISHED))


def write_limit(token):
    """The profile's `write_limit`: (the token's line's writes per minute, {"tier"}), or None while the use
    is off. A line without a served record yet is `new` (§21: fewer than min_outcomes outcomes)."""
    params = parameters()
    if not params.rate_limits:
        return None
    tier = line_tier(token.identity)
    return tier_writes(tier, params), {"tier": tier}


def line_tier(identity):
    """The line's global tier as served, in one query; `new` without a served record."""
    tier = Standing.objects.filter(identity=identity, scope=GLOBAL).values_list("tier", flat=True).first()
    return tier or NEW
