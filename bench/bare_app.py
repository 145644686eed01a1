"""The fair baseline for the benches: a bare Flask app on potionpi's own waitress server.

``GET /`` answers "ok"; ``GET /stream`` is a Server-Sent Events stream; ``POST /drop``
makes a new version: one JSON message of ``BYTES`` bytes (the size of potionpi's session,
which the bench measures and passes), encoded once, handed to every open stream through
its own ``queue.SimpleQueue``, and the same text is the drop's answer. What potionpi adds
on top of this is then its own cost: the engine, the store, the session it builds.

Served by ``web_ui/server.py`` itself (loaded from its file, so none of potionpi's other
modules is imported): the same waitress settings, connection guards and thread pool, which
grows by one thread per open stream, as potionpi's does.

``--gpio=mock``: the same app that also reads one button with gpiozero, on its mock pins
as ``potionpi run --sim`` does (``--gpio=real``: on GPIO 17 through the pin factory this
machine has, lgpio on a Pi): any GPIO web daemon's share, so the bench can say how much
of potionpi's start and memory beyond the bare app is gpiozero's and how much its own.

    python bench/bare_app.py PORT [BYTES] [--gpio=mock|real]
"""
from __future__ import annotations

import importlib.util
import json
import queue
import sys
import threading
from pathlib import Path

from flask import Flask, Response

SERVER = Path(__file__).resolve().parent.parent / "web_ui" / "server.py"
spec = importlib.util.spec_from_file_location("potionpi_server", SERVER)
assert spec is not None and spec.loader is not None
server_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(server_module)

app = Flask("bare")
subscribers: set[queue.SimpleQueue] = set()
lock = threading.Lock()
state = {"version": 0, "message": "", "answer": "{}", "bytes": 5000}
server = None


def new_version() -> None:
    """The next version's one encoding: ``{"version": n, ..., "state": {"pad": ...}}``."""
    state["version"] += 1
    n = state["version"]
    body = {"id": 1, "game": "bare", "version": n, "players": ["Ann", "Ben", "Cas", "Dee"],
            "state": {"phase": "fill_bowls", "pad": ""}}
    pad = max(0, state["bytes"] - len(json.dumps(body, separators=(",", ":"))))
    body["state"]["pad"] = "x" * pad
    text = json.dumps(body, separators=(",", ":"))
    state["message"] = f"id: {n}\ndata: {text}\n\n"
    state["answer"] = text


@app.get("/")
def index():
    return "ok"


@app.get("/stream")
def stream():
    q: queue.SimpleQueue = queue.SimpleQueue()
    with lock:
        subscribers.add(q)
        if server is not None:
            server._streams_changed(len(subscribers))
    q.put(state["message"])

    def events():
        try:
            yield "retry: 2000\n: bare\n\n"
            while True:
                try:
                    message = q.get(timeout=10)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                yield message
        finally:
            with lock:
                subscribers.discard(q)
                if server is not None:
                    server._streams_changed(len(subscribers))
    response = Response(events(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    return response


@app.post("/drop")
def drop():
    with lock:
        new_version()
        message = state["message"]
        for q in subscribers:
            q.put(message)
        answer = state["answer"]
    return Response('{"session":' + answer + "}", mimetype="application/json")


if __name__ == "__main__":
    gpio = next((arg for arg in sys.argv if arg.startswith("--gpio=")), None)
    if gpio is not None:
        sys.argv.remove(gpio)
        from gpiozero import Button
        if gpio == "--gpio=mock":
            from gpiozero.pins.mock import MockFactory
            button = Button(17, pin_factory=MockFactory())
        else:
            button = Button(17)
    if len(sys.argv) > 2:
        state["bytes"] = int(sys.argv[2])
    new_version()
    server = server_module.make_server(app, "127.0.0.1", int(sys.argv[1]))
    server.run()
