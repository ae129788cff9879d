"""Hostile input against the live OpenAPI schema (issue 5): every operation the schema describes, fed
Schemathesis' generated requests, with a valid token and with none, answers no 5xx and only what the schema
promises (status codes, content type, headers, body)."""
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

MAX_EXAMPLES = 12
# A schema-valid request may still be refused on its meaning: an opaque cursor of another list, `cursor` and
# `since` that disagree, an id that does not exist. JSON Schema cannot say that, so a 400 there is correct.
MEANING_CHECKS = [positive_data_acceptance]


# Fetched from the running application at collection: the schema views touch no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_every_operation_with_a_valid_token_answers_only_what_the_schema_promises(case, alice):
    case.call_and_validate(headers={"Authorization": f"Bearer {alice.secret}"}, excluded_checks=MEANING_CHECKS)


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_every_operation_without_a_token_answers_only_what_the_schema_promises(case, db):
    case.call_and_validate(excluded_checks=MEANING_CHECKS)
