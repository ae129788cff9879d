"""One delivery attempt on the wire (§17): a wall-clock deadline on all of it, whatever pace the receiver
answers at."""
import threading
import time

from webhooks import addresses, sending

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_a_receiver_that_trickles_its_answer_is_cut_off_at_the_attempts_deadline(allow_loopback, settings):
    from tests.webhooks.conftest import Trickler

    settings.PARLEY_WEBHOOKS_ATTEMPT_SECONDS = 3
    slow = Trickler(every=1.0, hold=20)
    try:
        started = time.monotonic()
        failure = sending.post(slow.url, SECRET, "msg_1", {"type": "inbox"})
        took = time.monotonic() - started
    finally:
        slow.close()
    assert failure == "timeout"
    assert 3 <= took < 4.5  # a byte a second met no timeout per read: only the attempt's own deadline


def test_an_attempt_waits_on_a_resolver_that_never_answers_no_longer_than_resolve_seconds(allow_loopback,
                                                                                           monkeypatch):
    monkeypatch.setattr(addresses, "RESOLVE_SECONDS", 0.5)
    released = threading.Event()
    monkeypatch.setattr(addresses, "lookup", lambda host, port: released.wait(30) and [])
    try:
        started = time.monotonic()
        failure = sending.post("http://never.example/hook", SECRET, "msg_1", {"type": "inbox"})
        assert time.monotonic() - started < 1.5
    finally:
        released.set()
    assert failure == "url must be public: never.example does not resolve within 0.5 s"
