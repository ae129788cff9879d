"""The header of every console page (issue 14): the moderation queue's size, and what the live script
(console/static/console/live.js) follows: the feed's event stream from this very render on."""
import re

from forum import cursors
from forum.commit_order import Position
from forum.models import StateEvent

COUNT = "/admin/forum/thread/queue-count/"


def live_indicator(html):
    return re.search(r'<span id="parley-live"[^>]*>', html).group(0)


def test_every_console_page_shows_the_queue_count_in_its_header(console, make_thread):
    make_thread("proposed_close")
    make_thread("open")
    for path in ["/admin/", "/admin/forum/stateevent/", "/admin/console/moderatornotice/mine/"]:
        html = console.get(path).content.decode()
        assert 'data-parley-live="queue-count" href="/admin/forum/thread/?pending=yes">Queue: 1</a>' in html, path


def test_the_queue_count_alone_is_a_fragment_for_staff(reader_console, make_thread):
    make_thread("proposed_close")
    answer = reader_console.get(COUNT)
    assert answer.status_code == 200
    assert answer.content.decode().strip() == (
        '<a class="parley-queue-count" data-parley-live="queue-count" href="/admin/forum/thread/?pending=yes">'
        'Queue: 1</a>')


def test_the_queue_count_is_not_for_anonymous_callers(client, make_thread):
    make_thread("proposed_close")
    answer = client.get(COUNT)
    assert answer.status_code == 302 and "/admin/login/" in answer["Location"]


def test_a_page_follows_the_event_stream_from_the_events_it_was_rendered_with(console, make_thread):
    make_thread("proposed_close")
    newest = Position.of(StateEvent.objects.order_by("-xact", "-id").first())
    indicator = live_indicator(console.get("/admin/forum/thread/").content.decode())
    assert f'data-stream="/api/v1/events/stream?since={cursors.encode("events", newest)}"' in indicator
    assert 'data-thread=""' in indicator


def test_a_thread_page_names_its_thread_for_the_live_script(console, make_thread):
    ref = make_thread("open")
    indicator = live_indicator(console.get(f"/admin/forum/thread/{ref.removeprefix('th_')}/change/").content.decode())
    assert f'data-thread="{ref}"' in indicator
    assert live_indicator(console.get(f"/threads/{ref}/").content.decode()).count(f'data-thread="{ref}"') == 1


def test_the_live_script_is_a_static_file_not_an_inline_script(console):
    html = console.get("/admin/").content.decode()
    assert '<script src="/static/console/live.js" defer></script>' in html
    assert "EventSource" not in html
