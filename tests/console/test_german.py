"""The console speaks English or German, as the browser asks (Accept-Language); the machine paths speak
English whatever it says, since their reasons and messages are what clients match on (§13). The German
catalogues are complete, and the compiled ones committed beside them say the same."""
import ast
import gettext
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from rest_framework.test import APIClient

from tests.console.console import number, run_action
from tests.console.test_tokens import TOKENS, create, rotate, webhook_of

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = sorted(ROOT.glob("*/locale/de/LC_MESSAGES/django.po"))


def speaking(client, language):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    return client


@pytest.fixture(params=["de", "en"])
def language(request):
    return request.param


def html_of(response):
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


# --- the console's pages --------------------------------------------------------------------------------
# Each page: how the visitor (anonymous), the moderator or the token keeper reaches it in `world`, then a
# string it shows in German and the same one in English.
def login_page(world):
    return world.visitor.get("/admin/login/")


def admin_index(world):
    return world.moderator.get("/admin/")


def thread_list(world):
    return world.moderator.get("/admin/forum/thread/")


def moderation_queue(world):
    return world.moderator.get("/admin/forum/thread/?pending=yes")


def thread_page(world):
    return world.moderator.get(f"/admin/forum/thread/{number(world.thread)}/change/")


def reading_list(world):
    return world.moderator.get("/threads/")


def reading_page(world):
    return world.moderator.get(f"/threads/{world.thread}/")


def token_form(world):
    return world.token_keeper.get(f"{TOKENS}add/")


def token_created(world):
    return create(world.token_keeper)


def token_rotate(world):
    return rotate(world.token_keeper, world.token)


def tokens_rotated(world):
    return rotate(world.token_keeper, world.token, grace="0")


def token_rotate_with_webhooks(world):
    webhook_of(world.token)
    return rotate(world.token_keeper, world.token)


def tokens_rotated_keeping_webhooks(world):
    webhook_of(world.token)
    return rotate(world.token_keeper, world.token, grace="0")


PAGES = {
    login_page: ("Parley-Konsole", "Parley console"),
    admin_index: ("Moderationswarteschlange: <strong>1</strong> offener Vorschlag",
                  "Moderation queue: <strong>1</strong> pending proposal"),
    thread_list: ("Offenen Vorschlag bestätigen", "Confirm the pending proposal"),
    moderation_queue: ("in der Warteschlange (Vorschläge, volle Stränge)", "in the queue (proposals, full threads)"),
    thread_page: ("Als human:mia senden", "Post as human:mia"),
    reading_list: ("<h1>Stränge</h1>", "<h1>Threads</h1>"),
    reading_page: ("Zustandsverlauf", "State history"),
    token_form: ("sie lässt sich später nicht mehr ändern", "it cannot be changed later"),
    token_created: ("Sein Geheimnis wird <strong>nur dieses eine Mal</strong> gezeigt",
                    "Its secret is shown <strong>only this once</strong>"),
    token_rotate: ("Übergangsfrist (Sekunden)", "Grace (seconds)"),
    tokens_rotated: ("Das alte Geheimnis gilt ab sofort nicht mehr.", "The old secret stopped at once."),
    token_rotate_with_webhooks: ("Auch ihre webhooks löschen", "Delete their webhooks too"),
    tokens_rotated_keeping_webhooks: ("Es behält seine webhooks, die das alte Geheimnis überdauern",
                                      "It keeps its webhooks, which outlive the old secret"),
}


@pytest.fixture
def world(client, console, token_console, proposed_close, alice, language):
    return SimpleNamespace(visitor=speaking(client, language), moderator=speaking(console, language),
                           token_keeper=speaking(token_console, language), thread=proposed_close, token=alice)


@pytest.mark.parametrize("page", PAGES, ids=[page.__name__ for page in PAGES])
def test_each_console_page_speaks_the_language_the_browser_asks_for(world, language, page):
    german, english = PAGES[page]

    html = html_of(page(world))

    shown, not_shown = (german, english) if language == "de" else (english, german)
    assert shown in html and not_shown not in html


def test_the_reading_pages_name_their_language(reader_console, language):
    assert f'<html lang="{language}">' in html_of(speaking(reader_console, language).get("/threads/"))


def test_an_unknown_language_gets_english(reader_console):
    assert "<h1>Threads</h1>" in html_of(speaking(reader_console, "fr, ja;q=0.5").get("/threads/"))


def test_a_moderators_report_is_in_their_language_but_names_the_state_as_the_api_does(console, proposed_close):
    response = run_action(speaking(console, "de"), "confirm", [proposed_close])

    [(level, text)] = [(message.level_tag, message.message) for message in response.context["messages"]]
    assert (level, text) == ("success", f"Strang {proposed_close}: bestätigt; der Strang ist closed "
                                        "(bestätigt von human:mia)")


def test_a_refusal_in_the_german_console_keeps_the_apis_reason(console, confirmed_close):
    response = run_action(speaking(console, "de"), "confirm", [confirmed_close])

    [text] = [message.message for message in response.context["messages"]]
    assert text.startswith(f"Strang {confirmed_close}: abgelehnt — ")
    assert re.search(r"— [a-z_]+: ", text)  # the reason, an identifier, untranslated


# --- the machine paths ----------------------------------------------------------------------------------
def refused_post(client):
    return client.post("/api/v1/messages", {"kind": "ask"}, format="json")


def without_a_valid_token(client):
    client.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")
    return client.get("/api/v1/inbox")


def wrong_method(client):
    return client.put("/api/v1/messages")


def unknown_route(client):
    return client.get("/api/v1/nowhere")


def manifest(client):
    return client.get("/api/v1/manifest")


def well_known_manifest(client):
    return client.get("/.well-known/parley.json")


MACHINE_REQUESTS = [refused_post, without_a_valid_token, wrong_method, unknown_route, manifest, well_known_manifest]
# The request id is echoed back; a fixed one keeps two answers comparable byte for byte.
SAME_REQUEST_ID = "0123456789abcdef0123456789abcdef"


def answer(alice, send, **headers):
    client = APIClient(HTTP_X_REQUEST_ID=SAME_REQUEST_ID, **headers)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {alice.secret}")
    response = send(client)
    return response.status_code, dict(response.headers), response.content


@pytest.mark.parametrize("send", MACHINE_REQUESTS, ids=[send.__name__ for send in MACHINE_REQUESTS])
def test_an_api_answer_is_byte_identical_whatever_accept_language_says(alice, send):
    plain = answer(alice, send)
    german = answer(alice, send, HTTP_ACCEPT_LANGUAGE="de-DE, de;q=0.9")

    assert german == plain
    assert "Content-Language" not in plain[1]
    assert "Accept-Language" not in plain[1].get("Vary", "")


# --- the catalogues -------------------------------------------------------------------------------------
def po_entries(path):
    """The entries of a .po file as makemessages writes them: dicts with `flags`, `msgctxt`, `msgid`,
    `msgid_plural`, `msgstr` (or `msgstr[0]`, ...) and `obsolete`. Enough of the format for these checks."""
    entries, entry, keyword = [], None, None
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        obsolete = line.startswith("#~")
        line = line.removeprefix("#~").strip() if obsolete else line.strip()
        if not line:
            if entry is not None:
                entries.append(entry)
            entry, keyword = None, None
            continue
        entry = entry if entry is not None else {"flags": set(), "obsolete": False}
        entry["obsolete"] |= obsolete
        if line.startswith("#,"):
            entry["flags"] |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            entry[keyword] += ast.literal_eval(line)
        else:
            keyword, literal = line.split(" ", 1)
            entry[keyword] = ast.literal_eval(literal)
    return entries


def translations(entry):
    return [value for key, value in entry.items() if key.startswith("msgstr")]


def messages_of(path):
    """Each message of a .po file as Python's gettext keys a compiled catalogue: msgid, (msgid, n) for a
    plural form, with "context\\x04" before it if it has one. The header (msgid "") is left out."""
    catalogue = {}
    for entry in po_entries(path):
        if entry["obsolete"] or "fuzzy" in entry["flags"] or not entry["msgid"]:
            continue
        msgid = f"{entry['msgctxt']}\x04{entry['msgid']}" if "msgctxt" in entry else entry["msgid"]
        if "msgid_plural" in entry:
            catalogue.update({(msgid, int(key[7:-1])): value for key, value in entry.items()
                              if key.startswith("msgstr[")})
        else:
            catalogue[msgid] = entry["msgstr"]
    return catalogue


def placeholders(text):
    return sorted(re.findall(r"%\([a-z_]+\)s|\{\}", text))


def catalogue_ids(paths):
    return [path.relative_to(ROOT).parts[0] for path in paths]


def test_the_console_and_the_models_it_shows_have_a_german_catalogue():
    assert {"console", "dialectic", "evidence", "forum", "rooms"} <= set(catalogue_ids(CATALOGUES))


@pytest.mark.parametrize("path", CATALOGUES, ids=catalogue_ids(CATALOGUES))
def test_every_entry_of_a_catalogue_is_translated_and_none_is_fuzzy_or_obsolete(path):
    entries = [entry for entry in po_entries(path) if entry["msgid"]]

    assert entries
    assert [entry["msgid"] for entry in entries if "fuzzy" in entry["flags"] or entry["obsolete"]] == []
    assert [entry["msgid"] for entry in entries if not all(translations(entry))] == []


@pytest.mark.parametrize("path", CATALOGUES, ids=catalogue_ids(CATALOGUES))
def test_a_translation_keeps_every_placeholder_of_its_original(path):
    for entry in po_entries(path):
        originals = [placeholders(entry["msgid"]), placeholders(entry.get("msgid_plural", entry["msgid"]))]
        for translation in translations(entry):
            assert placeholders(translation) in originals, (entry["msgid"], translation)


@pytest.mark.parametrize("path", CATALOGUES, ids=catalogue_ids(CATALOGUES))
def test_the_committed_compiled_catalogue_says_what_its_source_says(path):
    with path.with_suffix(".mo").open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)

    assert catalogue.info()["language"] == "de" and catalogue.charset().lower() == "utf-8"
    assert {key: value for key, value in catalogue._catalog.items() if key != ""} == messages_of(path)
