"""The reputation profile's console pages speak German or English, as the browser asks (Accept-Language);
the protocol's words on them (tiers, outcomes, identities) stay as the API says them."""
import pytest

from tests.console.test_german import html_of, speaking
from tests.reputation.test_console import propose, serve


@pytest.fixture(params=["de", "en"])
def language(request):
    return request.param


PAGES = {
    "/reputation/queue/": ("Moderationswarteschlange", "Moderation queue"),
    "/reputation/queue/?order=-score": ("Wert des Vorschlagenden, höchster zuerst", "proposer's score, highest first"),
    "/reputation/verifiers/": ("Genauigkeit der Verifizierenden", "Verifiers' accuracy"),
    "/reputation/lines/ainotes:bob/": ("Gezählte Ergebnisse", "Counted outcomes"),
}


@pytest.mark.parametrize("path", PAGES)
def test_each_reputation_page_speaks_the_language_the_browser_asks_for(console, as_bob, language, path):
    serve(as_bob.identity, 0.9, "established")
    propose(as_bob)
    page = html_of(speaking(console, language).get(path))
    german, english = PAGES[path]
    assert (german if language == "de" else english) in page
    assert (english if language == "de" else german) not in page
    if "queue" in path:
        assert "established" in page  # the tier as the API names it
