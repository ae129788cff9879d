"""The verification quorum (Parley v1 §18): the instance's value and the `quorum` an `assert` may ask.
The need is fixed on the claim when it is asserted; dialectic.policies.verification_seals says when a
verification reaches it."""
from django.conf import settings

from parley_site.errors import InvalidBody
from parley_site.shapes import Int

QUORUM_MAX = 8


def instance_quorum():
    """The need of a claim whose assert asks none: PARLEY_VERIFY_QUORUM, published in the manifest."""
    return settings.PARLEY_VERIFY_QUORUM


class QuorumShape(Int):
    """An integer from the instance's quorum to QUORUM_MAX. The lower bound is read when used, so the
    envelope's schema and its check follow the setting."""

    def __init__(self):
        super().__init__(maximum=QUORUM_MAX, description=(
            "dialectic, assert only: how many distinct lines must verify this claim, from the instance's "
            "quorum (manifest profiles.dialectic.quorum) to 8; a human's verification seals at once."))

    def validate(self, value, path=""):
        value = super().validate(value, path)
        if value < instance_quorum():
            raise InvalidBody(f"{path} must be at least {instance_quorum()}, this instance's quorum", field=path)
        return value

    def json_schema(self):
        return {**super().json_schema(), "minimum": instance_quorum()}
