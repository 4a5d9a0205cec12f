"""Server-sent-event clients for the tests: what a stream pushed, as it arrives.

- ``LiveStream`` holds a stream open on a ``TestClient``'s event loop (the application in
  process) and keeps every chunk the server sends until it is stopped, like a browser tab
  left open; it can also stall, taking nothing more after some chunks, like a client whose
  connection stopped draining.
- ``SseReader`` reads a stream of a real server process (``tests/loadkit.py``) in a thread.

Both parse the stream into ``Event`` records and can wait for one that satisfies a test.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode


@dataclass(frozen=True)
class Event:
    id: str | None
    event: str
    data: dict[str, Any]


def parse(text: str) -> list[Event]:
    """The events of a ``text/event-stream`` body (comments and ``retry:`` lines skipped)."""
    out = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line and not line.startswith(":"):
                name, _, value = line.partition(": ")
                fields[name] = value
        if "event" in fields:
            out.append(Event(fields.get("id"), fields["event"], json.loads(fields.get("data", "null"))))
    return out


class _Collected:
    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.text = ""

    def add(self, text: str) -> None:
        with self.lock:
            self.text += text
            self.lock.notify_all()

    @property
    def events(self) -> list[Event]:
        with self.lock:
            complete = self.text[: self.text.rfind("\n\n") + 2]
        return parse(complete)

    def wait_for(self, ok: Callable[[list[Event]], bool], timeout: float = 20) -> list[Event]:
        """Until the events so far satisfy ``ok`` (AssertionError after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                events = self.events
                if ok(events):
                    return events
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the stream did not get there in {timeout}s: {events[-5:]}")
                self.lock.wait(left)

    def wait_for_text(self, ok: Callable[[str], bool], timeout: float = 20) -> str:
        """Until the stream's text so far (comments too) satisfies ``ok``."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while not ok(self.text):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the stream did not get there in {timeout}s: {self.text[-300:]!r}")
                self.lock.wait(left)
            return self.text


class LiveStream(_Collected):
    """``GET path`` on the TestClient's application, held open until ``stop``."""

    def __init__(
        self,
        client: Any,
        path: str,
        token: str | None = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        stall_after: int | None = None,
    ) -> None:
        super().__init__()
        self.client = client
        self.status: int | None = None
        self.completed = False  # the server ended the response (its final empty chunk)
        self.chunks = 0
        self.stall_after = stall_after  # body chunks taken before the client stops reading
        self.release: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        raw = {k.lower(): v for k, v in (headers or {}).items()}
        if token:
            raw["authorization"] = f"Bearer {token}"
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": urlencode(params or {}).encode(),
            "root_path": "",
            "headers": [(k.encode(), v.encode()) for k, v in raw.items()] + [(b"host", b"testserver")],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
            "state": {},
        }
        self.future: Future[None] = client.portal.start_task_soon(self._run)

    async def _run(self) -> None:
        self._stop, self.release = asyncio.Event(), asyncio.Event()
        sent_request = False

        async def receive() -> dict[str, Any]:
            nonlocal sent_request
            if not sent_request:
                sent_request = True
                return {"type": "http.request", "body": b"", "more_body": False}
            assert self._stop is not None
            await self._stop.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                self.status = message["status"]
                return
            if message["type"] != "http.response.body":
                return
            if self.stall_after is not None and self.chunks >= self.stall_after:
                assert self.release is not None
                await self.release.wait()  # a client that reads nothing more: the send waits
            self.chunks += 1
            self.add(message.get("body", b"").decode())
            if not message.get("more_body", False):
                self.completed = True

        await self.client.app(self.scope, receive, send)
        if not self.completed and not self._stop.is_set():  # what uvicorn says then, in this task
            logging.getLogger("uvicorn.error").error("ASGI callable returned without completing response.")

    @property
    def done(self) -> bool:
        return self.future.done()

    def stop(self, timeout: float = 20) -> str:
        """The client goes away; returns all it was sent."""
        if not self.future.done() and self._stop is not None:
            self.client.portal.call(self._stop.set)
        self.future.result(timeout)
        return self.text


class SseReader(_Collected):
    """``GET path`` on a real server, read in a thread of its own until the server ends it
    or ``close``."""

    def __init__(self, base_url: str, path: str, token: str, headers: dict[str, str] | None = None) -> None:
        super().__init__()
        host, _, port = base_url.removeprefix("http://").partition(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)
        self.conn.connect()
        self.sock = self.conn.sock
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}", **(headers or {})})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while line := self.response.readline():
                self.add(line.decode())
        except (OSError, http.client.HTTPException, ValueError, AttributeError):  # closed under it
            pass
        finally:
            self.ended.set()
            with self.lock:
                self.lock.notify_all()

    def close(self) -> None:
        with contextlib.suppress(OSError):  # wakes the reading thread out of its blocking read
            self.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()
        self.thread.join(10)
