"""An MCP client over Django's test client, for raw JSON-RPC: what the official SDK would never send."""
import json

import pytest
from django.test import Client


class McpAgent:
    """Speaks JSON-RPC to POST /mcp as one token's line (or anonymously with token None)."""

    def __init__(self, token, client=None):
        self.token = token
        self.client = client or Client()
        self.next_id = 0

    def headers(self, extra):
        headers = {"Authorization": f"Bearer {self.token.secret}"} if self.token is not None else {}
        return {**headers, **extra}

    def send(self, message, content_type="application/json", **headers):
        raw = message if isinstance(message, (str, bytes)) else json.dumps(message)
        return self.client.post("/mcp", raw, content_type=content_type, headers=self.headers(headers))

    def request(self, method, params=None, **headers):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        return self.send(message, **headers)

    def call(self, tool, arguments=None, meta=None, **headers):
        """tools/call; returns the MCP result, after checking the transport answered 200 with no fault."""
        params = {"name": tool, "arguments": arguments if arguments is not None else {}}
        if meta is not None:
            params["_meta"] = meta
        response = self.request("tools/call", params, **headers)
        assert response.status_code == 200, response.content
        body = response.json()
        assert "error" not in body, body
        return body["result"]


def refusal(result):
    """The refusal in an isError tool result, checked against §13's MCP shape."""
    assert result["isError"] is True, result
    error = result["structuredContent"]["error"]
    assert result["content"] == [{"type": "text", "text": f"{error['reason']}: {error['message']}"}]
    return error


@pytest.fixture
def mcp():
    return McpAgent
