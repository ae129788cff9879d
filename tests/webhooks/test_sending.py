"""One delivery attempt on the wire (§17): a wall-clock deadline on all of it, whatever pace the receiver
answers at."""
import threading
import time

import pytest

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


def certificates(folder, name):
    """(a CA's certificate file, a certificate and key file for `name` signed by it), made now."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    def signed(subject, key, extension, critical):
        now = datetime.datetime.now(datetime.timezone.utc)
        return (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
                .not_valid_after(now + datetime.timedelta(hours=1)).add_extension(extension, critical=critical)
                .sign(ca_key, hashes.SHA256()))

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Parley tests CA")])
    ca = signed(ca_name, ca_key, x509.BasicConstraints(ca=True, path_length=None), True)
    leaf = signed(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]), key,
                  x509.SubjectAlternativeName([x509.DNSName(name)]), False)
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "leaf.pem").write_bytes(leaf.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return folder / "ca.pem", folder / "leaf.pem"


@pytest.fixture
def tls_receiver(tmp_path, monkeypatch, allow_loopback):
    """An HTTPS receiver on 127.0.0.1 whose certificate names hooks.test, signed by a CA the client trusts
    (SSL_CERT_FILE); hooks.test and other.test both resolve to it. Yields (port, the requests it got)."""
    import http.server
    import socket
    import ssl

    ca, leaf = certificates(tmp_path, "hooks.test")
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *args, **kwargs: real(
        "127.0.0.1" if host in ("hooks.test", "other.test") else host, *args, **kwargs))

    got = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            got.append({"host": self.headers["Host"], "body": self.rfile.read(int(self.headers["Content-Length"]))})
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(leaf)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], got
    server.shutdown()
    server.server_close()


def test_tls_is_checked_against_the_urls_own_host_name_on_the_pinned_address(tls_receiver):
    port, got = tls_receiver
    assert sending.post(f"https://hooks.test:{port}/hook", SECRET, "msg_1", {"type": "inbox"}) is None
    assert [request["host"] for request in got] == [f"hooks.test:{port}"]
    failure = sending.post(f"https://other.test:{port}/hook", SECRET, "msg_2", {"type": "inbox"})
    assert failure.startswith("connection failed") and "certificate" in failure.lower()
    assert len(got) == 1
