"""A real Server-Sent Events client over http.client (what a browser's EventSource does)."""
from __future__ import annotations

import http.client
import json
import ssl
from typing import Any
from urllib.parse import urlsplit


class SSEClient:
    """Reads ``text/event-stream`` line by line; ``next_event()`` returns one message."""

    def __init__(self, base_url: str, path: str = "/api/v1/stream", *, last_event_id: str | None = None,
                 timeout: float = 30.0, context: ssl.SSLContext | None = None, cookie: str | None = None):
        parts = urlsplit(base_url)
        self.conn = (http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout, context=context)
                     if parts.scheme == "https" else http.client.HTTPConnection(parts.hostname, parts.port,
                                                                                timeout=timeout))
        headers = {"Accept": "text/event-stream"}
        if cookie:
            headers["Cookie"] = cookie
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        self.comments: list[str] = []
        self.retry: int | None = None

    @property
    def status(self) -> int:
        return self.response.status

    def header(self, name: str) -> str | None:
        return self.response.getheader(name)

    def next_event(self) -> dict[str, Any]:
        """The next message with data: {"id", "event", "data"} (data parsed as JSON)."""
        event: dict[str, Any] = {"id": None, "event": "message", "data": []}
        while True:
            raw = self.response.readline()
            if not raw:
                raise ConnectionError("the stream ended")
            line = raw.decode("utf-8").rstrip("\r\n")
            if line == "":
                if event["data"]:
                    event["data"] = json.loads("\n".join(event["data"]))
                    return event
                event = {"id": None, "event": "message", "data": []}
                continue
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                event["data"].append(value)
            elif field == "id":
                event["id"] = value
            elif field == "event":
                event["event"] = value
            elif field == "retry":
                self.retry = int(value)

    def next_session(self, where=lambda s: True) -> dict[str, Any]:
        """Skip notices and sessions until one matches ``where``."""
        while True:
            event = self.next_event()
            if event["event"] == "message" and where(event["data"]):
                return event

    def wait_for_comment(self, text: str) -> None:
        while text not in self.comments:
            raw = self.response.readline()
            if not raw:
                raise ConnectionError("the stream ended")
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith(":"):
                self.comments.append(line[1:].strip())

    def close(self) -> None:
        # The response holds the socket (the server says "Connection: close"), so close both.
        self.response.close()
        self.conn.close()
