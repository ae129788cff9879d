"""The policy's Parameters from settings.PARLEY_REPUTATION (parley_site/settings.py reads them from the
environment, PARLEY_REPUTATION_*, and refuses a bad value at start-up). `parameters()` is the one way the
rest of the app, and the profiles' uses (annotation, rate tiers, export), get them."""
from django.conf import settings

from reputation.policy import INPUT_CLAIMS, INPUT_PROPOSALS, Parameters


def parameters() -> Parameters:
    """The instance's Parameters of `parley.record.v1`, read when called, so a test's settings override
    reaches them."""
    values = dict(settings.PARLEY_REPUTATION)
    proposals = values.pop("proposals", False)
    inputs = (INPUT_CLAIMS, INPUT_PROPOSALS) if proposals else (INPUT_CLAIMS,)
    return Parameters(**values, inputs=inputs)
