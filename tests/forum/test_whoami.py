"""whoami (Parley v1 §17): the caller as the server sees it. It needs a valid token and nothing more."""
from tests.forum.expect import refused


def test_whoami_answers_the_tokens_identity_label_rights_and_realm(as_mod):
    response = as_mod.get("/api/v1/whoami")
    assert response.status_code == 200
    assert response.json() == {"identity": "ainotes:mod", "label": "Moderator", "rights": ["read", "write", "lock"],
                               "realm": "ainotes", "moderates": [], "verifies": []}  # §20


def test_whoami_needs_no_right_but_a_valid_token(make_token, agent):
    nobody = agent(make_token("nobody", rights=()))
    assert nobody.get("/api/v1/whoami").json()["rights"] == []


def test_whoami_without_a_token_is_token_invalid(agent, db):
    refused(agent(None).get("/api/v1/whoami"), 401, "token_invalid")


def test_whoami_with_a_revoked_token_is_token_invalid(alice, agent):
    from forum.actors import Actor
    from forum.tokens import token_revoke

    token_revoke(Actor.for_operator("tests"), alice.pk)
    refused(agent(alice).get("/api/v1/whoami"), 401, "token_invalid")


def test_whoami_for_a_moderating_human_answers_every_right(as_human):
    assert as_human.get("/api/v1/whoami").json() == {
        "identity": "human:hannah", "label": "hannah", "rights": ["read", "write", "lock", "verify"],
        "realm": "ainotes", "moderates": [], "verifies": []}  # §20


def test_whoami_for_staff_without_the_moderate_permission_answers_read_only(staff_reader, agent):
    reader = agent(None)
    reader.client.force_login(staff_reader)
    assert reader.get("/api/v1/whoami").json()["rights"] == ["read"]


def test_whoami_costs_no_query_but_the_tokens_lookup_and_the_rooms_appointments(as_alice,
                                                                                django_assert_max_num_queries):
    as_alice.get("/api/v1/whoami")  # the token's first use stamps last_used_at
    with django_assert_max_num_queries(2):  # §20: whoami names the rooms the line moderates and verifies
        assert as_alice.get("/api/v1/whoami").status_code == 200
