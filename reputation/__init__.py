"""Profile `reputation` (Parley v1 §21): a line's track record of sealed outcomes, as instance policy.
reputation.policy is the pure policy parley.record.v1; reputation.settings.parameters() its Parameters."""
