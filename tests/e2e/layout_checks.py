"""What a player would notice on a screen of any size, measured in the page.

``problems(page)`` lists, in words, everything that is cut off, hangs off the side,
is ellipsised, too small to tap or read, overlaps another control, is cut by a box that
clips (a space of the cave's map off its panel's edge), or makes a panel scroll sideways;
an empty list means the screen is fine. ``offscreen_controls(page)`` lists every enabled
control of the step on show (the open dialog's, else the board's and the top bar's) that
is not all on the screen without scrolling, or is covered by something else, and every
panel named that is not whole on the screen. ``axe_problems(page)`` runs axe-core (the
copy shipped in the axe-playwright-python wheel, injected into the page: no CDN) and
lists its serious and critical violations.
"""
from __future__ import annotations

from typing import Any

# Thresholds: the project brief says 48 px touch targets (the issue says 44: we hold 48),
# and text readable from 1 m: no visible text under 16 px.
MIN_TARGET = 48
MIN_TEXT = 16

# What both checks share: what counts as shown, a control's name in a message, and the
# dialog on top (a player looks at an open dialog: the page behind it is not checked).
_SHARED_JS = """
  const W = window.innerWidth, H = window.innerHeight;
  const visible = (e) => {
    if (e.closest('[hidden]') || e.closest('details:not([open]) > :not(summary)')) return false;
    const s = getComputedStyle(e);
    if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (e) => {
    const t = (e.innerText || e.textContent || e.getAttribute('aria-label') || '').trim().replace(/\\s+/g, ' ').slice(0, 30);
    const cls = typeof e.className === 'string' ? e.className.split(' ')[0] : (e.className?.baseVal || '').split(' ')[0];
    return `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : cls ? '.' + cls : ''} "${t}"`;
  };
  const dialogs = [...document.querySelectorAll('body > .modal, .outcome, .side-sheet, .offline-cover, [aria-modal="true"]')]
    .filter((m) => !m.hidden && visible(m));
  const dialog = dialogs.length ? dialogs[dialogs.length - 1] : null;
"""

PROBLEMS_JS = """
([minTarget, minText]) => {
  const out = [];
""" + _SHARED_JS + """
  // 1. the page itself never scrolls sideways, nor does any panel on it (a swipe sideways
  //    to find a space or a number is a swipe nobody at the table thinks of)
  const doc = document.scrollingElement;
  if (doc.scrollWidth > W + 1) out.push(`the page scrolls sideways: ${doc.scrollWidth} px wide in ${W}`);
  for (const e of document.querySelectorAll('body *')) {
    if (!/(auto|scroll)/.test(getComputedStyle(e).overflowX) || e.scrollWidth <= e.clientWidth + 1 || !visible(e)) continue;
    out.push(`scrolls sideways: ${name(e)} is ${e.scrollWidth} px wide in ${e.clientWidth}`);
  }
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
  const scope = dialog || document.body;
  // the box a text is seen in: itself or the nearest box drawn with a border or a background
  const seen = (c) => c && c !== 'transparent' && !/rgba\\(.*, 0\\)$/.test(c);
  const framed = (e) => {
    for (let a = e; a && a !== document.body && !['MAIN', 'HTML'].includes(a.tagName); a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.display === 'inline' || s.display === 'contents') continue;
      if (seen(s.backgroundColor) || (parseFloat(s.borderLeftWidth) > 0 && seen(s.borderLeftColor))) return a;
    }
    return null;
  };
  // is (x, y) inside what every clipping or scrolling box around e lets you see? (its
  // inside, borders and scroll bar left out; a point on its bottom or right edge is the next
  // box's: half a row scrolled out of a panel is cut by the panel, not covered)
  const inView = (e, x, y) => {
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const q = a.getBoundingClientRect(), left = q.left + a.clientLeft, top = q.top + a.clientTop;
      if (x < left || x >= left + a.clientWidth || y < top || y >= top + a.clientHeight) return false;
    }
    return true;
  };
  // a notice fixed over the page until it is dismissed (the firmware's, a toast): it sits
  // over the board by design, not over one card's words; and a toast's own words are on top
  // of the page even where a tap goes through them (pointer-events: none, so the page's
  // element is what a point finds there)
  const notice = (hit, e) => {
    for (let a = hit; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).position === 'fixed') return !a.contains(e);
    for (let a = e; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.position === 'fixed' && s.pointerEvents === 'none') return true;
    }
    return false;
  };
  const textRect = (e) => {
    let l = Infinity, r = -Infinity;
    for (const n of e.childNodes) {
      if (n.nodeType !== 3 || !n.textContent.trim()) continue;
      const range = document.createRange(); range.selectNodeContents(n);
      for (const q of range.getClientRects()) if (q.width > 0) { l = Math.min(l, q.left); r = Math.max(r, q.right); }
    }
    return l < r ? { left: l, right: r } : null;
  };
  const texty = [...scope.querySelectorAll('*')].filter((e) =>
    !['SCRIPT', 'STYLE', 'svg', 'SVG'].includes(e.tagName) && !e.closest('svg') &&
    [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && visible(e));
  for (const e of texty) {
    const r = e.getBoundingClientRect();
    const s = getComputedStyle(e);
    // 2. text cut or ellipsised in its own box
    if ((s.overflowX !== 'visible' || s.textOverflow === 'ellipsis') && e.scrollWidth > e.clientWidth + 1)
      out.push(`text cut: ${name(e)} needs ${e.scrollWidth} px, has ${e.clientWidth}`);
    // 2b. text that runs into the rim of the box it is drawn in (a button, a chip, a panel:
    //     the nearest one with a border or a background), or past it
    const box = framed(e);
    if (box) {
      const t = textRect(e), b = box.getBoundingClientRect(), bs = getComputedStyle(box);
      const inner = [b.left + parseFloat(bs.borderLeftWidth) + 2, b.right - parseFloat(bs.borderRightWidth) - 2];
      if (t && (t.left < inner[0] - 0.5 || t.right > inner[1] + 0.5))
        out.push(`text touches its box's edge: ${name(e)} (${Math.round(t.left)}..${Math.round(t.right)} in ${name(box)} ${Math.round(b.left)}..${Math.round(b.right)})`);
    }
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
    // 6. words under something drawn over them (a badge on a card's name)
    const t = textRect(e);
    if (t) {
      const x = (t.left + t.right) / 2, y = (r.top + r.bottom) / 2;
      const hit = x >= 0 && x < W && y >= 0 && y < H ? document.elementFromPoint(x, y) : null;
      if (hit && !e.contains(hit) && !hit.contains(e) && inView(e, x, y) && !notice(hit, e))
        out.push(`words covered: ${name(e)} lies under ${name(hit)}`);
    }
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
  // 7. touch targets, and controls that overlap each other
  const controls = [...scope.querySelectorAll('button, summary, [role=button], input, select, a[href]')]
    .filter((e) => (e.offsetParent !== null || e.closest('svg')) && !e.closest('[hidden]')
                   && !e.closest('details:not([open]) > :not(summary)'))
    .map((e) => {
      const t = (e.type === 'radio' || e.type === 'checkbox') ? e.closest('label') : (e.querySelector(':scope > .hit') || e);
      return [e, t.getBoundingClientRect(), shown(t)];
    }).filter(([e, r]) => r.width > 0 && r.height > 0);
  for (const [e, r] of controls) {
    if (r.width < minTarget - 0.5 || r.height < minTarget - 0.5) out.push(`too small to tap: ${name(e)} ${Math.round(r.width)}x${Math.round(r.height)}`);
    // a control (a space on the cave's map too) cut by a box that clips and does not scroll,
    // or off the side of a page that does not scroll sideways
    if ((r.left < -1 || r.right > W + 1) && !scroller(e, 'x')) out.push(`off the screen sideways: ${name(e)} at ${Math.round(r.left)}..${Math.round(r.right)}`);
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (scrolls(a)) break;
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const q = a.getBoundingClientRect();
      if (r.left < q.left - 1 || r.right > q.right + 1 || r.top < q.top - 1 || r.bottom > q.bottom + 1)
        out.push(`control cut off: ${name(e)} by ${name(a)}`);
      break;
    }
  }
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


# The controls of the step on show: every enabled one in the open dialog, else on the board
# (the game's view, the start form or a seat's page) and in the top bar; a control a game
# marks data-anytime (a list of earlier rounds) is for any moment and may lie below the fold.
# Each must lie whole inside the part of the screen that its clipping and scrolling boxes
# show (nothing to scroll to reach it), and a finger at its centre must land on it, not on
# something drawn over it. Panels named by the test (a map, the players) must be whole on
# the screen too.
OFFSCREEN_JS = """
([expect, panels]) => {
  const out = [];
""" + _SHARED_JS + """
  const roots = dialog ? [dialog] : ['#game-view', '#start-view', '#seat-view', '.topbar'].map((q) => document.querySelector(q)).filter(Boolean);
  const all = roots.flatMap((r) => [...r.querySelectorAll('button, [role=button], a[href], input, select, textarea, summary')]);
  // a control marked data-anytime (an earlier rounds' list) is for any moment, not the step's
  const controls = all.filter((e) => !e.disabled && e.getAttribute('aria-disabled') !== 'true' && e.type !== 'hidden'
    && !e.closest('[inert], [data-anytime]') && visible(e));
  const fmt = (r) => `${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},${Math.round(r.bottom)}`;
  // null if box t lies whole in what the screen and every box around it that clips or
  // scrolls let you see, else where it is cut
  const cut = (e, t) => {
    const r = t.getBoundingClientRect();
    let shown = { left: 0, top: 0, right: W, bottom: H }, by = null;
    for (let a = t.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
        const q = a.getBoundingClientRect();
        const c = { left: Math.max(shown.left, q.left + a.clientLeft), top: Math.max(shown.top, q.top + a.clientTop),
                    right: Math.min(shown.right, q.left + a.clientLeft + a.clientWidth),
                    bottom: Math.min(shown.bottom, q.top + a.clientTop + a.clientHeight) };
        if (c.left > shown.left || c.top > shown.top || c.right < shown.right || c.bottom < shown.bottom) by = a;
        shown = c;
      }
      if (s.position === 'fixed') break;          // nothing further up clips a fixed box
    }
    if (r.left >= shown.left - 1 && r.top >= shown.top - 1 && r.right <= shown.right + 1 && r.bottom <= shown.bottom + 1) return null;
    const where = by ? `${name(by)}${/(auto|scroll)/.test(getComputedStyle(by).overflowY + getComputedStyle(by).overflowX) ? ' (scrolls)' : ''}` : 'the screen';
    return `not all on the screen: ${name(e)} at ${fmt(r)}, ${where} shows ${fmt(shown)}`;
  };
  for (const e of controls) {
    const t = (e.type === 'radio' || e.type === 'checkbox') && e.closest('label') ? e.closest('label')
      : (e.querySelector(':scope > .hit') || e);
    const problem = cut(e, t);
    if (problem) { out.push(problem); continue; }
    // its middle and four points a quarter in from its corners: a panel over the top of a
    // button (a monster's "5 cards" over "New game") covers a part a finger aims at
    const r = t.getBoundingClientRect(), w = r.right - r.left, h = r.bottom - r.top;
    for (const [fx, fy] of [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]) {
      const hit = document.elementFromPoint(r.left + fx * w, r.top + fy * h);
      if (hit && (t.contains(hit) || e.contains(hit))) continue;
      out.push(`covered: ${name(e)} at ${fmt(r)} lies under ${hit ? name(hit) : 'nothing'}`);
      break;
    }
  }
  for (const q of expect)
    if (!controls.some((e) => e.matches(q))) out.push(`none of the step's own controls (${q}) is shown and enabled`);
  for (const q of panels) {
    const e = [...document.querySelectorAll(q)].find(visible);
    const problem = e ? cut(e, e) : `${q} is not shown`;
    if (problem) out.push(`panel ${problem}`);
  }
  return [...new Set(out)];
}
"""


def offscreen_controls(page, expect: str | tuple[str, ...] = (), panels: tuple[str, ...] = ()) -> list[str]:
    """Every enabled control of the step on show that is not whole on the screen without
    scrolling, or lies under something else; ``expect`` (CSS selectors) names the step's
    own controls: each must match one checked control, so the check is never empty.
    ``panels`` (CSS selectors): boxes that must be whole on the screen as well."""
    return page.evaluate(OFFSCREEN_JS, [[expect] if isinstance(expect, str) else list(expect), list(panels)])


def scroll_home(page) -> None:
    """Every scrolling box back at its start, as a board is first drawn (a tap by the test
    may have scrolled a control into view)."""
    page.evaluate("""() => { window.scrollTo(0, 0);
      for (const e of document.querySelectorAll('body, body *')) if (e.scrollTop || e.scrollLeft) { e.scrollTop = 0; e.scrollLeft = 0; } }""")


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
