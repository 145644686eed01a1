"""Bytes waiting for the USB serial: a ring buffer made once, whole frames in, bytes out.

Pure logic. hal.UsbPort hands bytes from here to USB only while USB can take them,
so a host that holds the port open without reading never blocks the loop; when the
ring is full a new frame is dropped whole (never a torn frame on the wire) and
counted. The host resends commands it got no answer to, and any status is repeated
by the next one. Nothing here allocates.
"""


class Outbox:
    def __init__(self, size=512):
        self._ring = bytearray(size)
        self._head = 0           # next byte out
        self._count = 0          # bytes waiting
        self.dropped = 0         # frames that did not fit

    def send(self, frame):
        """Queue a whole frame; False (and counted in ``dropped``) when it does not fit."""
        ring = self._ring
        size = len(ring)
        n = len(frame)
        if self._count + n > size:
            self.dropped += 1
            return False
        at = self._head + self._count
        if at >= size:
            at -= size
        for i in range(n):
            ring[at] = frame[i]
            at += 1
            if at == size:
                at = 0
        self._count += n
        return True

    def waiting(self):
        return self._count

    def pop(self):
        """The next byte to send (call only while ``waiting()``)."""
        b = self._ring[self._head]
        self._head += 1
        if self._head == len(self._ring):
            self._head = 0
        self._count -= 1
        return b
