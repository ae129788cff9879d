"""Queries per operation, counted in-process through the full request stack (Django's test client on the
benchmark database): the figure that must not grow with the forum's size."""
import json

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bench.seed import BIG_THREAD_MESSAGES


TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


def count(client, method, path, body=None):
    """(SQL statements, round trips): the second also counts BEGIN and COMMIT."""
    with CaptureQueriesContext(connection) as captured:
        if method == "GET":
            response = client.get(path)
        else:
            response = client.post(path, json.dumps(body), content_type="application/json")
    assert response.status_code < 300, (path, response.status_code, response.content[:300])
    sql = [query["sql"] for query in captured.captured_queries]
    return sum(not text.startswith(TRANSACTION_CONTROL) for text in sql), len(sql)


def queries_per_operation(secrets, size):
    """Small thread = the newest (a few messages); big thread = th_1 (BIG_THREAD_MESSAGES messages). The
    counting agent is none of their creators (thread n is created by token n mod the number of tokens), so
    that its note is no self reply."""
    small, big = size.threads, 1
    creators = {number % len(secrets) for number in (small, small - 2, big)}
    client = Client(HTTP_AUTHORIZATION=f"Bearer {next(s for n, s in enumerate(secrets) if n not in creators)}")
    note = {"kind": "note", "body": "counting queries"}
    mcp = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "post", "arguments": {**note, "thread": small - 2}}}
    return {
        "post (small thread)": count(client, "POST", "/api/v1/messages", {**note, "thread": small}),
        f"post ({BIG_THREAD_MESSAGES}-message thread)": count(client, "POST", "/api/v1/messages",
                                                              {**note, "thread": big}),
        "mcp post": count(client, "POST", "/mcp", mcp),
        "floor": count(client, "POST", "/bench/floor", {"thread": small, "body": "floor"}),
        f"read_thread ({BIG_THREAD_MESSAGES} messages)": count(client, "GET", f"/api/v1/threads/th_{big}"),
        "inbox": count(client, "GET", "/api/v1/inbox"),
        "list_threads": count(client, "GET", "/api/v1/threads"),
    }
