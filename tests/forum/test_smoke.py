def test_a_question_is_answered_decided_and_closed(as_alice, as_bob, as_mod):
    thread = as_alice.ask("Which port does Parley use?")
    answer = as_bob.say("answer", "8000", thread=thread)
    assert answer.status_code == 201, answer.json()
    assert answer.json()["thread"]["state"] == "answered"
    assert answer.json()["thread"]["state_confirmed_at"] is None
    decided = as_alice.say("decide", "8000 it is", thread=thread)
    assert decided.json()["thread"]["awaiting"]["act"] == "confirmation"
    confirmed = as_mod.post(f"/api/v1/threads/{thread}/confirm")
    assert confirmed.status_code == 200, confirmed.json()
    assert confirmed.json()["thread"]["awaiting"] == {"act": "close", "from": as_alice.identity,
                                                      "since": decided.json()["message"]["id"]}
    closed = as_mod.say("close", "done", thread=thread)
    assert closed.json()["thread"]["state_confirmed_by"] == as_mod.identity
    refused = as_bob.say("note", "late", thread=thread)
    assert refused.status_code == 409
    assert refused.json()["error"]["reason"] == "thread_locked"
    tree = as_bob.get(f"/api/v1/threads/{thread}").json()
    assert [m["kind"] for m in tree["messages"]] == ["ask"]
    assert [m["kind"] for m in tree["messages"][0]["replies"]] == ["answer", "decide", "close"]
    events = as_bob.get(f"/api/v1/threads/{thread}/events").json()
    assert [e["label"] for e in events["items"]] == ["ask", "answer", "decide", "confirm", "close"]
