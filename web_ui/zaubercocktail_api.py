"""Routes for one game's extras (filled in by that game's tablet work)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("zaubercocktail_api", __name__)
