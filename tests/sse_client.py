"""A Server-Sent Events client on a raw socket, for tests against real servers: waiting in vain for an
event leaves it usable, and it sees the response head, comments and the end of the stream."""
import json
import select
import socket
import time


class SseStream:
    """A Server-Sent Events client on a raw socket (so that waiting in vain for an event leaves it usable):
    next_event() gives (id, data) per event, `kind` its `event:` field, and records comment lines."""

    def __init__(self, port, path, headers):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.raw, self.text, self.comments, self.kind, self.finished = b"", "", [], None, False
        while b"\r\n\r\n" not in self.raw:
            assert self._receive(time.monotonic() + 10), "no response head"
        head, self.raw = self.raw.split(b"\r\n\r\n", 1)
        self.status = int(head.split()[1])
        self.head = head.decode().lower()

    def _receive(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self.sock], [], [], remaining)[0]:
            return False
        data = self.sock.recv(65536)
        assert data, "the server closed the stream"
        self.raw += data
        return True

    def _dechunk(self):
        while b"\r\n" in self.raw:
            size_line, rest = self.raw.split(b"\r\n", 1)
            size = int(size_line, 16)
            self.finished = size == 0  # the last chunk: the server has ended the stream
            if len(rest) < size + 2:
                return
            self.text += rest[:size].decode()
            self.raw = rest[size + 2:]

    def refusal(self):
        length = int(self.head.split("content-length: ")[1].split("\r\n")[0])
        while len(self.raw) < length:
            assert self._receive(time.monotonic() + 10)
        return json.loads(self.raw[:length])

    def next_event(self, timeout=5.0):
        """The next event as (id, parsed data), or None when none comes within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self._dechunk()
            while "\n\n" in self.text:
                block, self.text = self.text.split("\n\n", 1)
                fields = {}
                for line in block.split("\n"):
                    if line.startswith(":"):
                        self.comments.append(line)
                    else:
                        name, _, value = line.partition(": ")
                        fields[name] = value
                if "data" in fields:
                    self.kind = fields.get("event")
                    return fields.get("id"), json.loads(fields["data"])
            if not self._receive(deadline):
                return None

    def _until(self, condition, timeout):
        """Whether condition() holds of what arrived within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self._dechunk()
            if condition():
                return True
            if not self._receive(deadline):
                return False

    def ended(self, timeout=5.0):
        """Whether the server ends the stream within `timeout` seconds."""
        return self._until(lambda: self.finished, timeout)

    def events(self, count, timeout=5.0):
        found = []
        while len(found) < count:
            event = self.next_event(timeout)
            assert event is not None, f"only {len(found)} of {count} events arrived"
            found.append(event)
        return found

    def close(self):
        self.sock.close()

    def wait_for_text(self, fragment, timeout=5.0):
        """Whether `fragment` arrives in the stream's text (events, comments, `retry:`) within `timeout`."""
        return self._until(lambda: fragment in self.text, timeout)

    def dropped(self, timeout=5.0):
        """Whether the server ends the connection (however: a last chunk or a close) within `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not select.select([self.sock], [], [], deadline - time.monotonic())[0]:
                return False
            data = self.sock.recv(65536)
            if not data or data.endswith(b"0\r\n\r\n"):
                return True
        return False
