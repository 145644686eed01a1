"""The honest baseline for bench/bench_table.py: a plain Flask app on waitress's defaults.

``GET /`` answers "ok"; ``GET /stream`` is a Server-Sent Events echo; ``POST /drop``
sends one event to every open stream. Served with ``waitress.serve`` and nothing tuned
but ``threads`` (each SSE stream holds a waitress thread, so 64 streams need 64+), which
the bench passes on the command line:

    python bench/bare_app.py PORT THREADS
"""
from __future__ import annotations

import queue
import sys
import threading

from flask import Flask, Response
from waitress import serve

app = Flask("bare")
subscribers: list[queue.Queue] = []
lock = threading.Lock()
counter = [0]


@app.get("/")
def index():
    return "ok"


@app.get("/stream")
def stream():
    q: queue.Queue = queue.Queue()
    with lock:
        subscribers.append(q)

    def events():
        try:
            yield f"id: {counter[0]}\ndata: hello\n\n"
            while True:
                try:
                    n = q.get(timeout=10)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                yield f'id: {n}\ndata: {{"drop": "red", "version": {n}}}\n\n'
        finally:
            with lock:
                subscribers.remove(q)
    return Response(events(), mimetype="text/event-stream")


@app.post("/drop")
def drop():
    with lock:
        counter[0] += 1
        n = counter[0]
        for q in subscribers:
            q.put(n)
    return {"session": {"version": n, "state": {"phase": "fill_bowls"}}}


if __name__ == "__main__":
    serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=int(sys.argv[2]))
