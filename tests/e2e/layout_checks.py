"""What a player would notice on a screen of any size, measured in the page.

``problems(page)`` lists, in words, everything that is cut off, hangs off the side,
is ellipsised, too small to tap or read, or overlaps another control; an empty list
means the screen is fine. ``axe_problems(page)`` runs axe-core (the copy shipped in the
axe-playwright-python wheel, injected into the page: no CDN) and lists its serious and
critical violations.
"""
from __future__ import annotations

from typing import Any

# Thresholds: the project brief says 48 px touch targets (the issue says 44: we hold 48),
# and text readable from 1 m: no visible text under 16 px.
MIN_TARGET = 48
MIN_TEXT = 16

PROBLEMS_JS = """
([minTarget, minText]) => {
  const out = [];
  const W = window.innerWidth, H = window.innerHeight;
  const visible = (e) => {
    if (e.closest('[hidden]') || e.closest('details:not([open]) > :not(summary)')) return false;
    const s = getComputedStyle(e);
    if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (e) => {
    const t = (e.innerText || e.getAttribute('aria-label') || '').trim().replace(/\\s+/g, ' ').slice(0, 30);
    const cls = typeof e.className === 'string' ? e.className.split(' ')[0] : (e.className?.baseVal || '');
    return `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : cls ? '.' + cls : ''} "${t}"`;
  };
  // 1. the page itself never scrolls sideways
  const doc = document.scrollingElement;
  if (doc.scrollWidth > W + 1) out.push(`the page scrolls sideways: ${doc.scrollWidth} px wide in ${W}`);
  // an ancestor that clips (overflow hidden / clip) or scrolls
  const clipper = (e) => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== 'visible' || s.overflowY !== 'visible') return a;
    }
    return null;
  };
  const scrolls = (a) => { const s = getComputedStyle(a); return /(auto|scroll)/.test(s.overflowY) || /(auto|scroll)/.test(s.overflowX); };
  // the nearest ancestor that really scrolls this way ("x" or "y"), if any
  const scroller = (e, axis) => {
    for (let a = e.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      const o = axis === 'x' ? s.overflowX : s.overflowY;
      if (/(auto|scroll)/.test(o) && (axis === 'x' ? a.scrollWidth > a.clientWidth : a.scrollHeight > a.clientHeight)) return a;
    }
    return null;
  };
  // an open dialog is what a player looks at: the page behind it is not checked
  const dialogs = [...document.querySelectorAll('body > .modal, .outcome, .side-sheet, .offline-cover, [aria-modal="true"]')].filter((m) => !m.hidden && visible(m));
  const scope = dialogs.length ? dialogs[dialogs.length - 1] : document.body;
  const texty = [...scope.querySelectorAll('*')].filter((e) =>
    !['SCRIPT', 'STYLE', 'svg', 'SVG'].includes(e.tagName) && !e.closest('svg') &&
    [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && visible(e));
  for (const e of texty) {
    const r = e.getBoundingClientRect();
    const s = getComputedStyle(e);
    // 2. text cut or ellipsised in its own box
    if ((s.overflowX !== 'visible' || s.textOverflow === 'ellipsis') && e.scrollWidth > e.clientWidth + 1)
      out.push(`text cut: ${name(e)} needs ${e.scrollWidth} px, has ${e.clientWidth}`);
    // 3. off the screen sideways, or cut by a box that clips without scrolling
    if ((r.left < -1 || r.right > W + 1) && !scroller(e, 'x')) out.push(`off the screen sideways: ${name(e)} at ${Math.round(r.left)}..${Math.round(r.right)}`);
    const c = clipper(e);
    if (c && !scrolls(c)) {
      const b = c.getBoundingClientRect();
      if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1)
        out.push(`cut by its box: ${name(e)} (in ${name(c)})`);
    }
    // 4. below the screen with nothing to scroll it into view
    if (r.bottom > H + 1 && !scroller(e, 'y') && doc.scrollHeight <= H + 1)
      out.push(`below the screen, cannot scroll: ${name(e)}`);
    // 5. readable print
    if (parseFloat(s.fontSize) < minText) out.push(`text too small: ${name(e)} ${s.fontSize}`);
  }
  // the part of a box its scrolling ancestors let you see (null: scrolled out of sight)
  const shown = (e) => {
    let r = e.getBoundingClientRect(), [l, t, rr, b] = [r.left, r.top, r.right, r.bottom];
    for (let a = e.parentElement; a; a = a.parentElement) {
      if (!scrolls(a)) continue;
      const q = a.getBoundingClientRect();
      l = Math.max(l, q.left); t = Math.max(t, q.top); rr = Math.min(rr, q.right); b = Math.min(b, q.bottom);
    }
    return rr - l > 0 && b - t > 0 ? { left: l, top: t, right: rr, bottom: b } : null;
  };
  // 6. touch targets, and controls that overlap each other
  const controls = [...scope.querySelectorAll('button, summary, [role=button], input, select, a[href]')]
    .filter((e) => (e.offsetParent !== null || e.closest('svg')) && !e.closest('[hidden]')
                   && !e.closest('details:not([open]) > :not(summary)'))
    .map((e) => {
      const t = (e.type === 'radio' || e.type === 'checkbox') ? e.closest('label') : (e.querySelector(':scope > .hit') || e);
      return [e, t.getBoundingClientRect(), shown(t)];
    }).filter(([e, r]) => r.width > 0 && r.height > 0);
  for (const [e, r] of controls)
    if (r.width < minTarget - 0.5 || r.height < minTarget - 0.5) out.push(`too small to tap: ${name(e)} ${Math.round(r.width)}x${Math.round(r.height)}`);
  for (let i = 0; i < controls.length; i++)
    for (let j = i + 1; j < controls.length; j++) {
      const [a, , p] = controls[i], [b, , q] = controls[j];
      if (!p || !q) continue;                      // scrolled out of sight: not on the screen now
      if (a.contains(b) || b.contains(a)) continue;
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left), h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 2 && h > 2) out.push(`controls overlap: ${name(a)} and ${name(b)}`);
    }
  return [...new Set(out)];
}
"""


def problems(page) -> list[str]:
    """Everything on the page a player would call cut off, hidden, tiny or overlapping."""
    return page.evaluate(PROBLEMS_JS, [MIN_TARGET, MIN_TEXT])


_AXE: str | None = None


def axe_problems(page) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each."""
    global _AXE
    if _AXE is None:
        from importlib.resources import files
        _AXE = files("axe_playwright_python").joinpath("axe.min.js").read_text()
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(_AXE)
    result: dict[str, Any] = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    out = []
    for v in result["violations"]:
        if v["impact"] in ("serious", "critical"):
            where = "; ".join(n["target"][0] if isinstance(n["target"][0], str) else str(n["target"][0])
                              for n in v["nodes"][:4])
            out.append(f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])}x: {where})")
    return out
