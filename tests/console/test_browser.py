"""End to end in a real Chromium (Debian's, driven by Playwright) against a live server on 127.0.0.1:
an agent proposes `close` over HTTP, a moderator confirms it from the queue, the lock holds, the moderator
reopens, the agent speaks again. Screenshots of the thread pages land in artifacts/ for a reviewer."""
from tests.console.chromium import BROWSER_MARKS, HttpAgent, browser, expect, log_in, screenshot  # noqa: F401

pytestmark = BROWSER_MARKS


def test_a_moderator_confirms_a_proposed_close_in_the_browser_and_reopens_it(live_server, browser, moderator,
                                                                               alice, bob):
    agent, other = HttpAgent(live_server.url, alice), HttpAgent(live_server.url, bob)
    status, opened = agent.say("ask", "Shall we ship the console on Friday?")
    ref = opened["thread"]["id"]
    status, answered = other.say("answer", "Yes, the tests are green.", thread=ref)
    assert status == 201
    reply = {"thread": ref, "parent": answered["message"]["id"]}  # alice replies to bob, not to herself
    status, proposed = agent.say("close", "Agreed, closing.", thread=ref)
    assert (status, proposed["thread"]["state"], proposed["thread"]["state_confirmed_at"]) == (201, "closed", None)

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, live_server.url, moderator, "pw-mia-12345")
    page.click("text=Moderation queue")
    row = page.locator("#result_list tbody tr", has_text="Shall we ship the console on Friday?")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("proposal by ainotes:alice")
    screenshot(page, "console-queue.png")
    row.locator("input[name=_selected_action]").check()
    page.select_option("select[name=action]", "confirm")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text(
        f"Thread {ref}: confirmed; the thread is closed (confirmed by human:mia)")

    status, refused = agent.say("note", "One more thing.", **reply)
    assert (status, refused["error"]["reason"]) == (409, "thread_locked")

    page.goto(f"{live_server.url}/admin/forum/thread/")  # the queue is empty now: the full list
    page.locator("#result_list").get_by_role("link", name=ref, exact=True).click()
    page.select_option("select[name=kind]", "reopen")
    page.fill("textarea[name=body]", "Reopened: one more thing to settle.")
    page.click("#post input[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text(f"Thread {ref}: reopen posted as")

    status, posted = agent.say("note", "One more thing.", **reply)
    assert (status, posted["thread"]["state"]) == (201, "open")

    page.reload()
    expect(page.locator("#messages")).to_contain_text("One more thing.")
    screenshot(page, "console-thread-page.png")
    page.goto(f"{live_server.url}/threads/{ref}/")
    screenshot(page, "reading-thread-page.png")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "reading-thread-page-phone.png")


def test_a_moderator_appoints_a_room_moderator_and_moves_a_thread_in_the_browser(live_server, browser, moderator,
                                                                                 alice, bob):
    from forum.actors import Actor
    from rooms.models import Appointment
    from rooms.services import room_create

    design = room_create(Actor.for_operator("tests"), {"slug": "design", "name": "Design"})
    status, opened = HttpAgent(live_server.url, alice).say("ask", "Where does the cache live?")
    ref = opened["thread"]["id"]

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, live_server.url, moderator, "pw-mia-12345")
    page.goto(f"{live_server.url}/admin/rooms/room/")
    page.locator("#result_list").get_by_role("link", name=f"rm_{design.pk}", exact=True).click()
    page.fill("#appoint input[name=identity]", bob.identity)
    page.select_option("#appoint select[name=role]", "moderator")
    page.click("#appoint button[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text(
        f"Room rm_{design.pk}: {bob.identity} is a moderator of the room")
    expect(page.locator("#appointments")).to_contain_text(bob.identity)
    expect(page.locator("#log")).to_contain_text("moderator_added")
    screenshot(page, "console-room-page.png")
    assert Appointment.objects.filter(room=design, identity=bob.identity, role="moderator").exists()

    page.goto(f"{live_server.url}/admin/forum/thread/{ref.removeprefix('th_')}/change/")
    page.select_option("#move select[name=room]", f"rm_{design.pk}")
    page.fill("#move input[name=reason]", "It is about design.")
    page.click("#move button[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text(f"Thread {ref}: moved to rm_{design.pk}")
    expect(page.locator("#history")).to_contain_text("It is about design.")
