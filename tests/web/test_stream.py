"""The live stream: a real SSE client against waitress on a free port.

Only generous timeouts (the socket's 30 s); how fast events arrive is measured in bench/.
"""
from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest

from web_ui import create_app
from web_ui.server import make_server

from .conftest import FAST_STREAM
from .helpers import AUTH, PIN, SECRET
from .sse import SSEClient


def post(base: str, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **AUTH})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def get(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path, timeout=30) as response:
        return json.loads(response.read())


def start(base: str, players=("Ann", "Ben")) -> dict:
    status, session = post(base, "/api/v1/session", {"game": "mirakel-mix", "players": list(players), "seed": 7})
    assert status == 201
    return session


def test_stream_headers_say_event_stream_unbuffered(live):
    sse = SSEClient(live)
    try:
        assert sse.status == 200
        assert sse.header("Content-Type").startswith("text/event-stream")
        assert sse.header("Cache-Control") == "no-cache"
        assert sse.header("X-Accel-Buffering") == "no"
        assert sse.header("Content-Length") is None
    finally:
        sse.close()


def test_a_new_client_gets_the_current_session_first(live):
    session = start(live)
    sse = SSEClient(live)
    try:
        event = sse.next_event()
        assert event["event"] == "message"
        assert event["id"] == str(session["version"])
        assert event["data"] == session
        assert sse.retry == 2000            # the browser's reconnect delay
    finally:
        sse.close()


def test_the_drop_from_the_simulated_cauldron_arrives_on_the_stream(live):
    session = start(live)
    sse = SSEClient(live)
    try:
        assert sse.next_event()["id"] == "0"
        status, _ = post(live, "/api/v1/sim/cauldron/drop", {"colour": "green"})
        assert status == 200
        event = sse.next_session()
        assert event["id"] == str(session["version"] + 1)
        assert event["data"]["version"] == session["version"] + 1
        assert event["data"]["state"]["last_drop"] == "green"
        assert event["data"]["state"]["bowls"][0]["drops"] == ["green"]
    finally:
        sse.close()


def test_every_version_reaches_two_watching_tablets(live):
    start(live)
    tablets = [SSEClient(live), SSEClient(live)]
    try:
        for tablet in tablets:
            assert tablet.next_event()["id"] == "0"
        for colour in ("red", "blue", "orange"):
            assert post(live, "/api/v1/sim/cauldron/drop", {"colour": colour})[0] == 200
        for tablet in tablets:
            # events may coalesce when they come faster than a tablet reads; the last always arrives
            last = tablet.next_session(lambda s: s["version"] == 3)
            assert last["data"]["state"]["bowls"][0]["drops"] == ["red", "blue", "orange"]
    finally:
        for tablet in tablets:
            tablet.close()


def test_reconnecting_with_last_event_id_gets_the_current_session_at_once(live):
    start(live)
    for colour in ("red", "yellow"):
        post(live, "/api/v1/sim/cauldron/drop", {"colour": colour})
    first = SSEClient(live)
    seen = first.next_event()
    first.close()
    post(live, "/api/v1/sim/cauldron/drop", {"colour": "blue"})      # missed while away
    again = SSEClient(live, last_event_id=seen["id"])
    try:
        event = again.next_event()
        assert event["id"] == "3"
        assert event["data"]["state"]["bowls"][0]["drops"] == ["red", "yellow", "blue"]
    finally:
        again.close()


def test_reconnecting_after_a_new_game_gets_the_new_game_even_with_a_higher_old_id(live):
    start(live)
    for colour in ("red", "yellow", "green"):
        post(live, "/api/v1/sim/cauldron/drop", {"colour": colour})
    new = start(live, players=("Cy", "Di"))
    sse = SSEClient(live, last_event_id="3")
    try:
        event = sse.next_event()
        assert event["data"]["id"] == new["id"] and event["data"]["players"] == ["Cy", "Di"]
    finally:
        sse.close()


def test_an_idle_stream_gets_keep_alive_comments(live):
    sse = SSEClient(live)            # no game: nothing to send but comments
    try:
        sse.wait_for_comment("keep-alive")
        sse.comments.clear()
        sse.wait_for_comment("keep-alive")
    finally:
        sse.close()


def test_device_notices_come_as_notice_events_without_id(live, table):
    sse = SSEClient(live)
    try:
        table.notice({"kind": "cauldron", "message": "turn gently"})
        event = sse.next_event()
        assert event["event"] == "notice" and event["id"] is None
        assert event["data"]["message"] == "turn gently"
    finally:
        sse.close()


def test_a_closed_tablet_frees_its_stream(live, app):
    context = app.extensions["potionpi"]
    sse = SSEClient(live)
    sse.wait_for_comment("potionpi live table")
    assert context.streams == 1
    sse.close()
    deadline = time.monotonic() + 30          # generous: noticed within a poll or a keep-alive
    while context.streams and time.monotonic() < deadline:
        time.sleep(0.05)
    assert context.streams == 0


def test_more_streams_than_threads_allow_are_refused_with_503(table, hub):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET,
                     settings=dict(FAST_STREAM, max_streams=1))
    server = make_server(app, "127.0.0.1", 0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.port}"
    first = SSEClient(base)
    try:
        first.wait_for_comment("potionpi live table")
        second = SSEClient(base)
        assert second.status == 503
        assert "too many" in json.loads(second.response.read())["error"]
        second.close()
        assert get(base, "/healthz")["streams"] == 1      # taps and pages still get a thread
    finally:
        first.close()
        server.close()
        thread.join(timeout=10)


def test_closing_the_server_ends_open_streams(table, hub):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET, settings=FAST_STREAM)
    server = make_server(app, "127.0.0.1", 0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    sse = SSEClient(f"http://127.0.0.1:{server.port}")
    sse.wait_for_comment("potionpi live table")
    server.close()
    thread.join(timeout=15)
    assert not thread.is_alive()
    with pytest.raises((ConnectionError, OSError)):
        while True:
            sse.next_event()
    sse.close()


def test_make_server_refuses_too_few_threads(app):
    with pytest.raises(ValueError):
        make_server(app, "127.0.0.1", 0, threads=2)


def test_a_tap_and_every_stream_get_one_encoding_of_the_new_version(live, monkeypatch):
    """The session is turned into JSON once per version: the streams' message and the
    tapping tablet's answer are the same text, not encoded again for each."""
    from web_ui import stream

    start(live)
    tablets = [SSEClient(live), SSEClient(live)]
    encoded: list[int] = []
    real = stream.session_json
    monkeypatch.setattr(stream, "session_json", lambda s: encoded.append(s["version"]) or real(s))
    try:
        for tablet in tablets:
            assert tablet.next_event()["id"] == "0"
        request = urllib.request.Request(live + "/api/v1/sim/cauldron/drop", data=b'{"colour": "red"}', method="POST",
                                         headers={"Content-Type": "application/json", **AUTH})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.headers["Content-Type"] == "application/json"
            answer = response.read().decode()
        sent = [tablet.next_session(lambda s: s["version"] == 1) for tablet in tablets]
        assert encoded == [1]
        assert json.loads(answer) == {"session": sent[0]["data"]} and sent[0]["data"] == sent[1]["data"]
        assert answer == '{"session":' + json.dumps(sent[0]["data"], separators=(",", ":")) + "}\n"
        # a plain read of the session is the same JSON, from the same encoding
        assert get(live, "/api/v1/session") == sent[0]["data"] and encoded == [1]
    finally:
        for tablet in tablets:
            tablet.close()
