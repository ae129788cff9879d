"""Reading /metrics as Prometheus would: the series as {(name, labels): value}, labels a sorted tuple."""
import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

METRICS_TOKEN = "metrics-token-for-the-tests-0123456789"


def series(text):
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def requests_counted(found, operation, door, outcome):
    labels = (("door", door), ("operation", operation), ("outcome", outcome))
    return found.get(("parley_requests_total", labels), 0)


@pytest.fixture
def metrics_token(settings):
    settings.PARLEY_METRICS_TOKEN = METRICS_TOKEN
    return METRICS_TOKEN


@pytest.fixture
def scrape(db, metrics_token):
    """scrape() -> the series /metrics answers now (asserting it answered)."""
    def read():
        response = Client().get("/metrics", headers={"Authorization": f"Bearer {metrics_token}"})
        assert response.status_code == 200, response.content
        return series(response.content.decode())
    return read


@pytest.fixture
def counted(scrape):
    """counted(operation, door, outcome) -> how many /metrics has counted so far."""
    return lambda operation, door, outcome: requests_counted(scrape(), operation, door, outcome)
