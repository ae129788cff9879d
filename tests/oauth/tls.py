"""An https server on loopback, for what must be fetched over https (client ID metadata documents): a
certificate authority made for the test run, trusted through SSL_CERT_FILE, and a server certificate for
127.0.0.1 and localhost signed by it. Each response is what the test says: a document, a body too large,
a body that drips, a redirect."""
import datetime
import http.server
import ipaddress
import json
import ssl
import tempfile
import threading
import time
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def certificate(subject, issuer_name, public_key, signing_key, *, ca, names=()):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer_name).public_key(public_key)
               .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(list(names)), critical=False)
    return builder.sign(signing_key, hashes.SHA256())


def make_authority(folder):
    """(the CA's PEM file, the server's certificate and key files) in `folder`."""
    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Parley test CA")])
    ca_cert = certificate(ca_name, ca_name, ca_key.public_key(), ca_key, ca=True)
    server_cert = certificate(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]), ca_name,
                              server_key.public_key(), ca_key, ca=False,
                              names=[x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")])
    paths = {name: Path(folder) / f"{name}.pem" for name in ("ca", "cert", "key")}
    paths["ca"].write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    paths["cert"].write_bytes(server_cert.public_bytes(serialization.Encoding.PEM))
    paths["key"].write_bytes(server_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption()))
    return paths


class HttpsServer:
    """`with HttpsServer(authority) as server:` then `server.answer(path, body=..., ...)`; `server.url(path)`."""

    def __init__(self, authority):
        self.answers, self.requests = {}, []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append(self.path)
                status, headers, chunks, pause = outer.answers.get(self.path, (404, {}, [b""], 0))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    time.sleep(pause)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(authority["cert"], authority["key"])
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.server.daemon_threads = True

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def url(self, path, host="127.0.0.1"):
        return f"https://{host}:{self.server.server_address[1]}{path}"

    def answer(self, path, document=None, *, status=200, headers=None, chunks=None, pause=0):
        body = [json.dumps(document).encode()] if document is not None else [b""]
        self.answers[path] = (status, {"Content-Type": "application/json", **(headers or {})}, chunks or body, pause)


def temporary_authority():
    return make_authority(tempfile.mkdtemp(prefix="parley-test-ca-"))
