"""The profile hooks of §21's two uses and the portable record's operation, as the profile is built with them
(reputation.apps): `annotate` on the lists (reputation.annotation) and the tiers of the rate limit
(reputation.tiers)."""
from typing import Any

from reputation import annotation, tiers

USES_HOOKS: dict[str, Any] = {
    "arguments": {name: annotation.ANNOTATE for name in annotation.ANNOTATED},
    "decorate": annotation.decorate,
    "item_properties": annotation.ITEM_PROPERTIES,
    "write_limit": tiers.write_limit,
    "write_limit_floor": tiers.floor,
}
