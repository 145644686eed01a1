"""The Pico's end of the protocol: frames in, commands executed exactly once, replies out.

Pure logic over floorproto. Commands run in sequence order only; a command the
Pico has already run (the host did not hear the reply and sent it again) gets its
remembered reply and is not run again; one that arrives ahead of a lost one is
dropped, and the host sends both again in order.
"""
import floorproto as P

PAYLOAD_SIZES = {P.PING: 0, P.CONFIG: P.CONFIG_SIZE, P.MOVE_TO: 4, P.HOME: 0, P.STOP: 0,
                 P.MARKS: 0, P.REPL: 0}


class Link:
    def __init__(self, floor, boot_id, firmware_version, protocol=P.PROTOCOL_VERSION):
        self.floor = floor
        self.boot_id = boot_id
        self.firmware_version = firmware_version
        self.protocol = protocol
        self.decoder = P.Decoder()
        self.expected = 0          # 0: no session yet, only HELLO is answered
        self.replies = {}          # seq -> reply frame, the last REPLAY_DEPTH of them
        self.want_repl = False
        self.on_execute = None     # optional hook(mtype, payload), a journal for tests
        # state, fault and homed the last EVENT told (-1: none yet); ints, so that
        # event() can compare them on every loop pass without allocating
        self._ev_state = self._ev_fault = self._ev_homed = -1

    def feed(self, data):
        """Bytes from the host in, list of frames to send back out."""
        out = []
        for b in data:
            reply = self.feed_byte(b)
            if reply:
                out.append(reply)
        return out

    def feed_byte(self, b):
        """One byte from the host in; the reply frame it completes, else None."""
        frame = self.decoder.feed_byte(b)
        if frame is None:
            return None
        return self.handle(frame[0], frame[1], frame[2])

    def handle(self, seq, mtype, payload):
        if mtype == P.HELLO:
            if len(payload) != 2:
                return None
            self.expected = 1
            self.replies = {}
            body = P.pack_hello_reply(self.protocol, P.unpack_hello(payload), self.boot_id,
                                      self.firmware_version)
            return P.encode_frame(seq, P.HELLO_REPLY, body)
        if seq == 0:
            return None
        if self.expected == 0:
            # We were reset under the host's feet: tell it to say hello again.
            return P.encode_frame(seq, P.ERROR, P.pack_error(P.ERR_NO_SESSION, self.floor.status_payload()))
        behind = P.seq_behind(self.expected, seq)
        if behind == 0:
            reply = self._execute(seq, mtype, payload)
            self.replies[seq] = reply
            self.replies.pop(((seq - 1 - P.REPLAY_DEPTH) % 255) + 1, None)
            self.expected = P.seq_next(seq)
            return reply
        if behind <= P.REPLAY_DEPTH:
            return self.replies.get(seq)
        return None

    def event(self):
        """An EVENT frame when state, fault or homed changed since the last one, else None."""
        floor = self.floor
        homed = 1 if floor.homed else 0
        if not self.expected or (floor.state == self._ev_state and floor.fault == self._ev_fault
                                 and homed == self._ev_homed):
            return None
        self._ev_state = floor.state
        self._ev_fault = floor.fault
        self._ev_homed = homed
        return P.encode_frame(0, P.EVENT, floor.status_payload())

    def _execute(self, seq, mtype, payload):
        if self.on_execute:
            self.on_execute(mtype, payload)
        floor = self.floor
        size = PAYLOAD_SIZES.get(mtype)
        if size is None:
            code = P.ERR_UNKNOWN
        elif len(payload) != size:
            code = P.ERR_BAD_PAYLOAD
        elif mtype == P.PING:
            code = 0
        elif mtype == P.CONFIG:
            code = floor.configure(P.unpack_config(payload))
        elif mtype == P.MOVE_TO:
            code = floor.move_to(P.unpack_move_to(payload))
        elif mtype == P.HOME:
            code = floor.home()
        elif mtype == P.STOP:
            code = floor.stop()
        elif mtype == P.MARKS:
            return P.encode_frame(seq, P.MARKS_REPLY, floor.marks_payload())
        else:  # P.REPL: halt the motor, then main.py leaves its loop for the REPL
            code = floor.stop()
            self.want_repl = True
        if code:
            return P.encode_frame(seq, P.ERROR, P.pack_error(code, floor.status_payload()))
        return P.encode_frame(seq, P.STATUS, floor.status_payload())
