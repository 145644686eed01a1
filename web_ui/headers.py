"""Security headers on every answer (issue 15 item 7).

The pages use only their own scripts, styles and images (no CDN, no inline script but
the tablet page's import map, allowed by its SHA-256 alone; the boot data is a JSON
block, which is never executed), so the policy can be strict. What the tablet adds as an
app comes from the table too and falls under ``default-src 'self'``: the manifest
(manifest-src), the clip that keeps the screen on (media-src) and the service worker
(worker-src, through script-src). A page
of the table may not be framed by another site: the unlocked tablet page inside a hidden
frame would be a clickjacking trap.
"""
from __future__ import annotations

from flask import Flask, Response, g

POLICY = ("default-src 'self'; script-src 'self'{hashes}; style-src 'self'; img-src 'self' data: blob:; "
          "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
          "frame-ancestors 'none'")

HEADERS = {
    "X-Frame-Options": "DENY",                      # frame-ancestors for older browsers
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",               # a page may ask for less (the phone page does)
}


#: the policy of every answer but a page with an inline script (the import map)
PLAIN_POLICY = POLICY.format(hashes="")


def register(app: Flask) -> None:
    @app.after_request
    def security_headers(response: Response) -> Response:
        hashes = g.get("script_hashes")
        policy = POLICY.format(hashes="".join(" " + h for h in hashes)) if hashes else PLAIN_POLICY
        response.headers.setdefault("Content-Security-Policy", policy)
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response
