"""The MCP resources of Parley v1 §2: listed without a token, read with the tools' token, rights and
refusals; a refused read is JSON-RPC -32602 carrying §13's refusal."""
import json

from django.conf import settings

from forum.models import Message

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}


def read(mcp, token, uri):
    response = mcp(token).request("resources/read", {"uri": uri})
    assert response.status_code == 200, response.content
    return response.json()


def contents(answer):
    (item,) = answer["result"]["contents"]
    assert item["mimeType"] == "application/json"
    return json.loads(item["text"])


def test_resources_and_templates_are_listed_without_a_token(mcp):
    listed = mcp(None).request("resources/list").json()["result"]["resources"]
    assert {resource["uri"] for resource in listed} == {"parley://manifest", "parley://inbox", "parley://rooms"}
    templates = mcp(None).request("resources/templates/list").json()["result"]["resourceTemplates"]
    assert [template["uriTemplate"] for template in templates] == ["parley://threads/{id}", "parley://artifacts/{id}",
                                                                   "parley://rooms/{id}"]


def test_the_manifest_resource_is_what_get_manifest_answers(mcp, db):  # the manifest reads the trusted realms (§18)
    assert contents(read(mcp, None, "parley://manifest")) == mcp(None).call("get_manifest")["structuredContent"]


def test_the_thread_resource_is_what_read_thread_answers(mcp, as_alice, bob):
    thread = as_alice.ask("Read me as a resource")
    assert contents(read(mcp, bob, f"parley://threads/{thread}")) == \
        mcp(bob).call("read_thread", {"thread": thread})["structuredContent"]


def test_the_inbox_resource_is_the_newest_page_of_the_inbox(mcp, as_alice, bob, monkeypatch):
    monkeypatch.setitem(settings.PARLEY_LIMITS, "page_size_default", 2)
    threads = [as_alice.ask(f"Question {n}") for n in range(3)]
    inbox = contents(read(mcp, bob, "parley://inbox"))
    assert [item["id"] for item in inbox["items"]] == threads[1:]
    again = mcp(bob).call("inbox", {"since": inbox["cursor"]})["structuredContent"]
    assert again["items"] == []


def test_a_read_without_a_token_is_refused_minus_32602_with_token_invalid(mcp, db):
    error = read(mcp, None, "parley://inbox")["error"]
    assert error["code"] == -32602
    assert error["data"]["reason"] == "token_invalid"
    assert set(error["data"]) == {"reason", "message", "detail"}


def test_a_read_of_an_unknown_thread_is_refused_not_found(mcp, bob):
    error = read(mcp, bob, "parley://threads/th_424242")["error"]
    assert (error["code"], error["data"]["reason"], error["data"]["detail"]["object"]) == (-32602, "not_found", "thread")


def test_a_read_of_a_malformed_thread_id_is_refused_invalid_body(mcp, bob):
    error = read(mcp, bob, "parley://threads/abc")["error"]
    assert (error["code"], error["data"]["reason"], error["data"]["detail"]["field"]) == (-32602, "invalid_body", "uri")


def test_a_read_of_an_unknown_resource_is_refused_not_found(mcp, bob):
    error = read(mcp, bob, "parley://elsewhere")["error"]
    assert (error["code"], error["data"]["reason"]) == (-32602, "not_found")


def test_a_read_without_the_read_right_is_refused_token_right_missing(mcp, make_token):
    writer = make_token("writer-only", ("write",))
    error = read(mcp, writer, "parley://inbox")["error"]
    assert (error["data"]["reason"], error["data"]["detail"]["right"]) == ("token_right_missing", "read")


def test_a_refused_read_in_the_modern_era_is_the_same_refusal_with_the_sdks_status_for_it(mcp, db):
    response = mcp(None).request("resources/read", {"uri": "parley://inbox", "_meta": MODERN},
                                 **{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read",
                                    "Mcp-Name": "parley://inbox"})
    assert response.status_code == 400  # mcp.shared.inbound.ERROR_CODE_HTTP_STATUS[-32602]
    error = response.json()["error"]
    assert (error["code"], error["data"]["reason"]) == (-32602, "token_invalid")
    assert Message.objects.count() == 0


def test_the_rooms_resources_answer_list_rooms_and_a_room_with_its_threads(mcp, as_alice, bob):
    """§20: parley://rooms as list_rooms, parley://rooms/{id} the room and its threads."""
    thread = as_alice.ask("In the default room")
    assert contents(read(mcp, bob, "parley://rooms")) == mcp(bob).call("list_rooms")["structuredContent"]
    room = contents(read(mcp, bob, "parley://rooms/general"))
    assert room["room"]["id"] == "rm_1" and [item["id"] for item in room["threads"]["items"]] == [thread]


def test_a_room_one_may_not_see_is_refused_not_found_as_a_resource(mcp, bob, db):
    from forum.actors import Actor
    from rooms.services import room_create

    room_create(Actor.for_operator("tests"), {"slug": "secret", "name": "Secret", "visibility": "private"})
    answer = read(mcp, bob, "parley://rooms/secret")
    assert answer["error"]["code"] == -32602 and answer["error"]["data"]["reason"] == "not_found"
