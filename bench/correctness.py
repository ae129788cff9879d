"""Writers and cursor pollers at once (§11, §19): every acknowledged write is seen exactly once by each poller,
in the list's order. Run by `python -m bench.ceiling --part correctness` against real servers and, with a
smaller count, by tests/forum/test_commit_order_long.py in process.

Each writer, round after round, on threads of its own: an `ask` that stays in everyone's inbox (nobody
answers it), and an `ask` that moves: answered by a second line (a mark, proposed), the proposal confirmed
by a moderator, then a follow-up `ask` by the asker. Pollers follow the state events, the threads, and a
watcher's inbox (the threads awaiting an answer from anyone) with cursors, from the start, until the writers
are done and a few reads in a row find nothing new. Then each poller's sequence is compared with the list
as the database orders it at the end."""
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

# (path, the page size): small pages as well, so that a cursor also continues within a burst of writes.
POLLED = {"events": ("/api/v1/events", 7), "threads": ("/api/v1/threads", 50), "inbox": ("/api/v1/inbox", 3)}
WRITES_PER_ROUND = 5
QUIET_READS = 3  # empty pages in a row, once the writers are done, before a poller stops


@dataclass
class Line:
    """The bearer secrets one writer uses: its asker, another line that answers, a moderator (`lock`)."""
    asker: str
    answerer: str
    moderator: str


@dataclass
class Outcome:
    acknowledged: dict = field(default_factory=lambda: {"stays": [], "moves": [], "answers": [], "confirms": 0,
                                                         "follow_ups": 0})
    failures: list = field(default_factory=list)
    seen: dict = field(default_factory=dict)  # poller name -> the item ids it saw, in order
    seconds: float = 0.0

    @property
    def writes(self):
        found = self.acknowledged
        return (len(found["stays"]) + len(found["moves"]) + len(found["answers"]) + found["confirms"]
                + found["follow_ups"])


def write_rounds(request, line, rounds, outcome, lock):
    """One writer: `request(method, path, body, secret)` -> (status, JSON body)."""
    def post(secret, body, path="/api/v1/messages"):
        status, answer = request("POST", path, body, secret)
        if status not in (200, 201):
            with lock:
                outcome.failures.append((path, body.get("kind"), status, answer))
            return None
        return answer

    for number in range(rounds):
        stays = post(line.asker, {"kind": "ask", "body": f"Stays {number}?"})
        moves = post(line.asker, {"kind": "ask", "body": f"Moves {number}?"})
        thread = moves and moves["thread"]["id"]
        answer = thread and post(line.answerer, {"kind": "answer", "body": f"Answer {number}", "thread": thread})
        confirm = answer and post(line.moderator, {}, f"/api/v1/threads/{thread}/confirm")
        follow_up = confirm and post(line.asker, {"kind": "ask", "body": f"And then {number}?", "thread": thread,
                                                  "parent": answer["message"]["id"]})
        with lock:
            found = outcome.acknowledged
            found["stays"] += [stays["thread"]["id"]] if stays else []
            found["moves"] += [thread] if moves else []
            found["answers"] += [answer["message"]["id"]] if answer else []
            found["confirms"] += 1 if confirm else 0
            found["follow_ups"] += 1 if follow_up else 0


def poll(request, secret, kind, writers_done, seen, failures, lock):
    """One poller: from the start of the list, page after page, until the writers are done and
    QUIET_READS reads in a row found nothing."""
    path, size = POLLED[kind]
    cursor, quiet = None, 0
    while quiet < QUIET_READS:
        done = writers_done.is_set()  # before the read: a read after it sees every acknowledged write
        query = {"limit": size, **({"cursor": cursor} if cursor else {})}
        status, page = request("GET", f"{path}?{urlencode(query)}", None, secret)
        if status != 200:
            with lock:
                failures.append((path, None, status, page))
            time.sleep(0.05)
            continue
        seen.extend(item["id"] for item in page["items"])
        cursor = page["cursor"]
        quiet = quiet + 1 if done and not page["items"] else 0
        if not page["items"]:
            time.sleep(0.02)


def run(request, lines, rounds, pollers, poller_secret):
    """Writers (one per Line, `rounds` rounds each) and `pollers` ({name: kind}) at once; the Outcome."""
    outcome, lock, writers_done = Outcome(), threading.Lock(), threading.Event()
    outcome.seen = {name: [] for name in pollers}
    polling = [threading.Thread(target=poll, args=(request, poller_secret, kind, writers_done, outcome.seen[name],
                                                   outcome.failures, lock)) for name, kind in pollers.items()]
    writing = [threading.Thread(target=write_rounds, args=(request, line, rounds, outcome, lock)) for line in lines]
    started = time.monotonic()
    for worker in polling + writing:
        worker.start()
    for worker in writing:
        worker.join()
    outcome.seconds = time.monotonic() - started
    writers_done.set()
    for worker in polling:
        worker.join()
    return outcome


# What the database holds at the end, in each list's order (forum.commit_order): SQL for `query(sql)`.
LIST_ORDER_SQL = {
    "events": "SELECT 'ev_' || id, label, message_id FROM forum_stateevent ORDER BY xact, id",
    "threads": "SELECT 'th_' || id FROM forum_thread ORDER BY xact, id",
    "inbox": "SELECT 'th_' || id FROM forum_thread WHERE awaiting_act = 'answer' AND awaiting_from = 'anyone' "
             "ORDER BY awaiting_xact, awaiting_seq",
}


def problems(outcome, pollers, query):
    """What went wrong, as sentences (none: every acknowledged write seen exactly once by each poller, in
    the list's order). `query(sql)` -> rows, on the database at the end."""
    found = []
    events = query(LIST_ORDER_SQL["events"])
    in_order = {"events": [row[0] for row in events], "threads": [row[0] for row in query(LIST_ORDER_SQL["threads"])],
                "inbox": [row[0] for row in query(LIST_ORDER_SQL["inbox"])]}
    acknowledged = outcome.acknowledged
    event_messages = {f"msg_{row[2]}" for row in events if row[2] is not None}
    missing_answers = set(acknowledged["answers"]) - event_messages
    if missing_answers:
        found.append(f"{len(missing_answers)} acknowledged answers recorded no event")
    confirms = sum(1 for row in events if row[1] == "confirm")
    if confirms != acknowledged["confirms"]:
        found.append(f"{acknowledged['confirms']} confirms acknowledged, {confirms} confirm events stored")
    if not set(acknowledged["stays"] + acknowledged["moves"]) <= set(in_order["threads"]):
        found.append("an acknowledged ask stored no thread")
    for name, kind in pollers.items():
        seen = outcome.seen[name]
        if kind == "inbox":  # threads that moved on may have left before the poller came: only the ones that stay
            stays = set(acknowledged["stays"])
            seen_staying = [thread for thread in seen if thread in stays]
            expected = [thread for thread in in_order["inbox"] if thread in stays]
            if len(seen) != len(set(seen)):
                found.append(f"{name}: a thread seen twice")
            if seen_staying != expected:
                found.append(f"{name}: saw {len(seen_staying)} of {len(expected)} staying asks, or out of order")
        elif seen != in_order[kind]:
            extra, missed = len(seen) - len(set(seen)), len(set(in_order[kind]) - set(seen))
            found.append(f"{name}: {missed} missed, {extra} seen twice, or out of the list's order")
    return found


def seen_counts(outcome):
    return {name: len(seen) for name, seen in outcome.seen.items()}
