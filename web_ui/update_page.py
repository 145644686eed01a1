"""The settings page's update form: install a newer potionpi from a file the owner picks.

The page only checks the file and leaves it for the root service that installs it
(controller/service/release.py); a bad file gets a 4xx and a sentence, and nothing
changes. Plain server-rendered, like the rest of /settings.
"""
from __future__ import annotations

import hmac
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, render_template, request, session
from werkzeug.exceptions import RequestEntityTooLarge

from controller import __version__

from . import auth, ctx
from .owner import _locked_page, _owner_allowed, _service

if TYPE_CHECKING:
    from controller.service import release

# controller/service/release.py (with tarfile: ~0.5 MiB) is imported when the settings
# page or an upload needs it, not by every daemon at start (docs/performance.md)
bp = Blueprint("update", __name__)


def layout() -> release.Layout:
    from controller.service import release

    service = _service()
    given = service.get("release_layout")           # tests: a scratch /opt
    if given is not None:
        return given
    return release.Layout(data_dir=Path(service.get("data_dir") or release.Layout.data_dir))


@bp.app_context_processor
def update_view() -> dict[str, Any]:
    """What settings.html shows in its Software part (only the unlocked page uses it)."""
    if request.endpoint not in ("owner.settings", "owner.unlock", "update.upload"):
        return {}
    from controller.service import release
    return {"update": release.view(layout()), "update_csrf": auth.csrf_token()}


def _page(message: str, status: int) -> tuple[str, int, dict[str, str]]:
    from .owner import firmware_state
    from controller.service import logs

    data_dir = _service().get("data_dir")
    has_log = data_dir is not None and (Path(data_dir) / logs.LOG_FILE).exists()
    return (render_template("settings.html", unlocked=True, version=__version__,
                            firmware=firmware_state(), has_log=has_log,
                            simulated=ctx().simulated, message=message),
            status, {"Cache-Control": "no-store"})


@bp.post("/settings/update")
def upload() -> Any:
    if not _owner_allowed():
        return _locked_page("Enter the table PIN to update potionpi.")
    from controller.service import release

    where = layout()
    if not where.supports():
        return _page("This table was not installed from the potionpi SD-card image, so it "
                     "cannot update from a file: run `potionpi update` at its console.", 409)
    # the app takes 64 KB bodies; an update (a release archive) is far bigger
    request.max_content_length = release.MAX_BYTES + 1024 * 1024
    try:
        form, files = request.form, request.files
    except RequestEntityTooLarge:
        return _page(f"The file is larger than {release.MAX_BYTES // 2**20} MB, more than any "
                     "potionpi update. Nothing was changed.", 413)
    if request.headers.get(auth.PIN_HEADER) is None:      # a browser: the form's token
        sent, expected = form.get("csrf", ""), session.get("csrf", "")
        if not sent or not expected or not hmac.compare_digest(sent, expected):
            return _page("This page was out of date; pick the file again.", 403)
    upload = files.get("package")
    if upload is None or not upload.filename:
        return _page("Pick a file first: a potionpi wheel (.whl) or the release archive (.tar.gz).", 400)
    spool = where.spool
    spool.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=spool, prefix=".upload-")
    os.close(fd)
    part = Path(name)
    try:
        upload.save(part)
        package, folder = release.inspect(part, upload.filename)
        if folder is not None:          # the root service unpacks it again, itself
            shutil.rmtree(folder, ignore_errors=True)
        release.refuse_version(package, where.installed() or __version__)
        release.request(spool, part, package, where.installed() or __version__)
    except release.BadUpdate as exc:
        return _page(f"{exc}. Nothing was changed.", exc.status)
    finally:
        part.unlink(missing_ok=True)
    return _page("", 202)            # the Software part says what is happening
