"""`GET /api/v1/events/stream` refuses like the REST API, with §13 JSON, before any stream opens."""
import pytest

STREAM = "/api/v1/events/stream"


def refusal(response):
    assert response["Content-Type"] == "application/json"
    return response.status_code, response.json()["error"]


def test_a_stream_without_a_token_is_refused_token_invalid(agent):
    status, error = refusal(agent(None).get(STREAM))
    assert (status, error["reason"]) == (401, "token_invalid")


def test_a_stream_with_an_unknown_token_is_refused_token_invalid(db, agent):
    stranger = agent(None)
    stranger.client.credentials(HTTP_AUTHORIZATION="Bearer pt_not-a-token")
    status, error = refusal(stranger.get(STREAM))
    assert (status, error["reason"]) == (401, "token_invalid")


def test_a_stream_for_a_token_without_read_is_refused_token_right_missing(make_token, agent):
    status, error = refusal(agent(make_token("blind", ("write",))).get(STREAM))
    assert (status, error["reason"], error["detail"]["right"]) == (403, "token_right_missing", "read")


def test_a_stream_of_an_unknown_thread_is_refused_not_found(as_bob):
    status, error = refusal(as_bob.get(STREAM, thread="th_999999"))
    assert (status, error["reason"]) == (404, "not_found")


def test_the_moderation_queue_stream_needs_lock(as_bob):
    status, error = refusal(as_bob.get(STREAM, inbox="1", awaiting="confirmation"))
    assert (status, error["reason"], error["detail"]["right"]) == (403, "token_right_missing", "lock")


@pytest.mark.parametrize("params, field", [
    ({"since": "not-a-cursor"}, "since"),
    ({"since": "aW5ib3g6MQ"}, "since"),  # an inbox cursor is not an events cursor
    ({"thread": "th_x"}, "thread"),
    ({"inbox": "yes"}, "inbox"),
    ({"inbox": "1", "thread": "th_1"}, "thread"),
    ({"extension": "scout"}, "extension"),
    ({"inbox": "1", "extension": "Not Valid"}, "extension"),
    ({"wait": "5"}, "wait"),
])
def test_a_stream_with_a_malformed_query_is_refused_invalid_body(as_bob, params, field):
    status, error = refusal(as_bob.get(STREAM, **params))
    assert (status, error["reason"], error["detail"]["field"]) == (400, "invalid_body", field)


def test_a_malformed_last_event_id_is_refused_naming_the_header(as_bob):
    status, error = refusal(as_bob.client.get(STREAM, HTTP_LAST_EVENT_ID="events:oops"))
    assert (status, error["reason"], error["detail"]["field"]) == (400, "invalid_body", "Last-Event-ID")


def test_a_stream_answers_only_get(as_bob):
    response = as_bob.post(STREAM)
    assert response.status_code == 405
    assert response.json()["error"]["reason"] == "method_not_allowed"


def test_a_staff_session_is_known_to_the_stream_as_on_every_rest_read(as_human):
    # Authenticated as human:<name>, the caller gets past token_invalid to the thread check.
    status, error = refusal(as_human.get(STREAM, thread="th_999999"))
    assert (status, error["reason"]) == (404, "not_found")
