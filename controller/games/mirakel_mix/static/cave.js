// The cave map: an SVG drawn to the panel's pixel size from the view's grid positions,
// with the apprentices, the obstacles, the exit, and where the mover may go.
import { $, el, fill } from "/static/js/ui.js";
import { potionGlyph } from "/static/js/icons.js";
import { pretty } from "./words.js";

const NS = "http://www.w3.org/2000/svg";
const GAP = 0.45;          // an empty grid row/column shrinks to this share of a cell
const MARGIN = 6;          // px around the drawing
const MIN_R = 24;          // a space is never smaller than 48 px across (a fingertip)

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  for (const c of children.flat()) if (c) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

const SHORT = { flame_wall: "Flame", poison_pit: "Poison", lightning_grid: "Lightning", monster_crypt: "Monster",
  double_speed: "Double", place_swap: "Swap" };
export const shortCard = (id) => SHORT[id] || pretty(id);

/** Words for one way of moving, e.g. "3 steps, gives up Flame wall, uses double speed". */
export function moveWords(option) {
  const parts = [];
  if (option.steps !== undefined) parts.push(`${option.steps} step${option.steps === 1 ? "" : "s"}`);
  if (option.spend?.length) parts.push(`gives up ${option.spend.map(pretty).join(" + ")}`);
  if (option.double_speed) parts.push("uses double speed");
  return parts.join(", ") || "free";
}

/** The view's description of a move action (steps, cost), if the engine listed it. */
export function optionFor(view, move) {
  return (view.movement?.reachable || []).find((o) => o.to === move.to &&
    Boolean(o.double_speed) === Boolean(move.double_speed) &&
    (o.spend || []).join(",") === (move.spend || []).join(",")) || move;
}

/** One grid axis: used coordinates get a full cell, empty ones a thin gap. */
function axis(values) {
  const used = new Set(values);
  const min = Math.min(...values); const max = Math.max(...values);
  const centre = {};
  let at = 0;
  for (let c = min; c <= max; c += 1) {
    const size = used.has(c) ? 1 : GAP;
    centre[c] = at + size / 2;
    at += size;
  }
  return { centre, total: at };
}

/** Pixel positions and the space radius for a stage of `width` x `height` px (`fit`: the
 *  radius the stage allows, before the fingertip minimum). */
export function layout(positions, width, height) {
  const ids = Object.keys(positions);
  const xs = axis(ids.map((k) => positions[k][0]));
  const ys = axis(ids.map((k) => positions[k][1]));
  const ux = (width - 2 * MARGIN) / xs.total;
  const uy = (height - 2 * MARGIN) / ys.total;
  const fit = Math.min(ux * 0.38, uy * 0.46, 48);
  const r = Math.max(MIN_R, fit);
  const at = {};
  for (const id of ids) {
    at[id] = [MARGIN + xs.centre[positions[id][0]] * ux, MARGIN + ys.centre[positions[id][1]] * uy];
  }
  return { at, r, ux, uy, fit };
}

/** The board turned a quarter clockwise: its first row becomes the right-hand column. */
function quarterTurn(positions) {
  const maxY = Math.max(...Object.values(positions).map(([, y]) => y));
  return Object.fromEntries(Object.entries(positions).map(([id, [x, y]]) => [id, [maxY - y, x]]));
}

/** The board as printed, or turned a quarter where that gives bigger spaces (a phone held
 *  upright: the whole cave fits its width, nothing to scroll sideways). */
function bestLayout(positions, width, height) {
  const plain = layout(positions, width, height);
  const turned = layout(quarterTurn(positions), width, height);
  return turned.fit > plain.fit * 1.15 ? turned : plain;
}

/** A player's token: the same colour and shape as their disks (seat 0-3), size `a` = half-width. */
function apprentice(seat, cx, cy, a, moving) {
  const cls = `appr seat-${seat}${moving ? " moving" : ""}`;
  const l = cx - a, r = cx + a, t = cy - a, b = cy + a;
  switch (seat) {
    case 1: return svg("rect", { x: l, y: t, width: 2 * a, height: 2 * a, rx: a * 0.4, class: cls });
    case 2: return svg("path", { d: `M${l},${b} L${l},${cy} A${a},${a} 0 0 1 ${r},${cy} L${r},${b} Z`, class: cls });
    case 3: return svg("path", { d: `M${l},${t} L${cx},${t} A${a},${a} 0 0 1 ${r},${cy} L${r},${b} L${cx},${b} A${a},${a} 0 0 1 ${l},${cy} Z`, class: cls });
    default: return svg("circle", { cx, cy, r: a, class: cls });
  }
}

// --- label placement: keep every obstacle's name clear of spaces, badges and other labels
const overlapsCircle = (box, [cx, cy, rad]) => {
  const nx = Math.max(box.x, Math.min(cx, box.x + box.w));
  const ny = Math.max(box.y, Math.min(cy, box.y + box.h));
  return (nx - cx) ** 2 + (ny - cy) ** 2 < rad * rad;
};
const overlapsBox = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

function placeLabel(mx, my, nx, ny, w, h, dist, obstacles, taken, bounds, signs = [1, -1]) {
  const candidates = [];
  for (const d of dist) for (const sign of signs) for (const slide of [0, 0.5, -0.5, 1, -1, 1.6, -1.6]) {
    candidates.push([mx + sign * nx * d - ny * slide * w * 0.5, my + sign * ny * d + nx * slide * w * 0.5]);
  }
  let best = null;
  for (const [cx, cy] of candidates) {
    const box = { x: cx - w / 2, y: cy - h / 2, w, h };
    let bad = 0;
    if (box.x < bounds.x || box.y < bounds.y || box.x + w > bounds.w || box.y + h > bounds.h) bad += 5;
    for (const c of obstacles) if (overlapsCircle(box, c)) bad += 2;
    for (const t of taken) if (overlapsBox(box, t)) bad += 3;
    if (!best || bad < best.bad) best = { box, bad };
    if (bad === 0) break;
  }
  return best;
}

/** Where a badge of `w` x 24 px goes on a space's rim: below, else right, left, above
 *  (never off the map's `bounds`). */
function badgeSpot(x, y, r, w, circles, taken, bounds) {
  const spots = [[x - w / 2, y + r - 12], [x + r - 8, y - 12], [x - r - w + 8, y - 12], [x - w / 2, y - r - 12]];
  let best = null;
  for (const [bx, by] of spots) {
    const box = { x: bx, y: by, w, h: 24 };
    let bad = bx < bounds.x || by < bounds.y || bx + w > bounds.w || by + 24 > bounds.h ? 5 : 0;
    for (const c of circles) if ((c[0] !== x || c[1] !== y) && overlapsCircle(box, [c[0], c[1], c[2] - 4])) bad += 1;
    for (const t of taken) if (overlapsBox(box, t)) bad += 1;
    if (!best || bad < best.bad) best = { box, bad };
    if (!bad) break;
  }
  return best.box;
}

let last = null;          // the latest arguments, to redraw when the panel changes size
let observer = null;
let observed = null;      // the #cave element watched (a new one after the page was rebuilt)
let drawnSize = "";       // the stage size the map was last drawn for

/** The board is taken down: stop watching the old panel's size (the next renderCave
 *  watches whichever panel it draws into). */
export function unmountCave() {
  observer?.disconnect();
  observer = null;
  observed = null;
  last = null;
}

/**
 * Draw the cave into #cave. `moves` are the legal move actions (with `to`), `starts` the
 * legal place_apprentice actions, `swaps` the legal place_swap actions; tapping a lit space
 * performs its action (or asks which way when there are several).
 */
export function renderCave(view, ctx) {
  const box = $("#cave");
  const cave = view.cave;
  if (!cave || !cave.positions) { box.hidden = true; box.replaceChildren(); last = null; return; }
  box.hidden = false;
  last = [view, ctx];
  fill(box, el("div.cave-stage", { id: "cave-stage" }));
  if (observed !== box && "ResizeObserver" in window) {
    observer?.disconnect();
    // A new panel (the page's first drawing): the observer's first call comes after the
    // frame's layout and before its paint, so the map is drawn there, once, at its final
    // size. Reading the size now would lay the whole page out an extra time first.
    drawnSize = "";
    observer = new ResizeObserver(() => {
      const stage = $("#cave-stage");
      const now = stage ? `${stage.clientWidth}x${stage.clientHeight}` : "";
      if (now !== drawnSize && last) drawMap();
    });
    observer.observe(box);
    observed = box;
    return;
  }
  drawMap();
}

function drawMap() {
  const [view, { moves, starts, swaps, perform, choose, marks, names }] = last;
  const stage = $("#cave-stage");
  if (!stage) return;
  const cave = view.cave;
  drawnSize = `${stage.clientWidth}x${stage.clientHeight}`;
  const width = stage.clientWidth || 700;
  const height = stage.clientHeight || 380;
  const { at, r, ux, uy } = bestLayout(cave.positions, width, height);
  const ids = Object.keys(at);

  const who = new Map();   // space -> seat
  for (const [seat, space] of Object.entries(cave.apprentices || {})) if (space) who.set(String(space), Number(seat));
  const reach = new Map(); // space -> [move actions]
  for (const m of moves) if (m.to !== null && m.to !== undefined) {
    if (!reach.has(m.to)) reach.set(m.to, []);
    reach.get(m.to).push(m);
  }
  const startAt = new Map(starts.map((a) => [a.space, a]));
  const swapAt = new Map(swaps.map((a) => [a.space, a]));
  const mover = view.movement?.mover;
  const moverAt = mover !== undefined && mover !== null ? cave.apprentices?.[String(mover)] : null;

  const map = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: "cave-map",
    role: "group", "aria-label": `cave map, ${cave.name || ""}` });
  const fs = Math.round(Math.max(16, Math.min(r * 0.78, 30)));    // space numbers
  const labelFs = Math.round(Math.max(15, Math.min(r * 0.62, 21)));

  // paths first, walls and labels last (on top)
  const blockers = ids.map((id) => [at[id][0], at[id][1], r + 4]);
  const walls = [];
  const obstacleEdges = [];
  for (const edge of cave.edges || []) {
    const [a, b] = edge.between;
    if (!at[a] || !at[b]) continue;
    const [x1, y1] = at[a]; const [x2, y2] = at[b];
    map.append(svg("line", { x1, y1, x2, y2, class: `cave-edge${edge.obstacle ? " obstacle" : ""}` }));
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    for (let d = r; d < len - r; d += 10) blockers.push([x1 + (x2 - x1) * d / len, y1 + (y2 - y1) * d / len, 5]);
    if (edge.obstacle) obstacleEdges.push([edge.obstacle, x1, y1, x2, y2, len]);
  }

  // cost badges of reachable spaces sit on a rim clear of other spaces and of the walls'
  // lines; labels keep off them
  const spaces = ids.map((id) => [at[id][0], at[id][1], r]);
  const wallLength = Math.min(r * 0.9, 30);
  const wallBoxes = obstacleEdges.map(([, x1, y1, x2, y2, len]) => {
    const nx = -(y2 - y1) / len; const ny = (x2 - x1) / len;
    const mx = (x1 + x2) / 2; const my = (y1 + y2) / 2;
    const w = Math.abs(nx) * 2 * wallLength + 12; const h = Math.abs(ny) * 2 * wallLength + 12;
    return { x: mx - w / 2, y: my - h / 2, w, h };
  });
  const taken = [];
  const badges = new Map();
  for (const id of ids) {
    const moveHere = reach.get(id);
    if (!moveHere && !swapAt.has(id)) continue;
    let icons = ["place_swap"];
    let extra = false;
    if (moveHere) {
      const first = optionFor(view, moveHere[0]);
      icons = [...(first.spend || []), ...(first.double_speed ? ["double_speed"] : [])];
      extra = moveHere.length > 1;
    }
    const w = icons.length ? icons.length * 22 + 12 + (extra ? 20 : 0) : 54;
    const box = badgeSpot(at[id][0], at[id][1], r, w, spaces, [...taken, ...wallBoxes], { x: 0, y: 0, w: width, h: height });
    taken.push(box);
    badges.set(id, { box, icons, extra });
  }

  const bounds = { x: 0, y: 0, w: width, h: height };
  for (const [card, x1, y1, x2, y2, len] of obstacleEdges) {
    let nx = -(y2 - y1) / len; let ny = (x2 - x1) / len;
    if (ny < 0 || (ny === 0 && nx < 0)) { nx = -nx; ny = -ny; }
    const mx = (x1 + x2) / 2; const my = (y1 + y2) / 2;
    const h = labelFs + 12;
    // just beside the spaces, or in the middle of the gap to the next row/column
    const dists = [r + h / 2 + 8, Math.max(r + h / 2 + 16, Math.abs(ny) * uy + Math.abs(nx) * ux)];
    // below (or right of) the wall first, where a neighbouring row's walls do not compete;
    // the full name, else the short one, else the picture alone: the first that fits clear
    let spot = null; let words = ""; let w = 0;
    const tries = [[1, pretty(card)], [1, shortCard(card)], [-1, pretty(card)], [-1, shortCard(card)], [1, ""], [-1, ""]];
    for (const [sign, text] of tries) {
      const width = text ? labelFs * 0.64 * text.length + labelFs + 22 : h;
      const found = placeLabel(mx, my, nx, ny, width, h, dists, blockers, taken, bounds, [sign]);
      if (!spot || found.bad < spot.bad) { spot = found; words = text; w = width; }
      if (!found.bad) break;
    }
    taken.push(spot.box);
    const { x, y } = spot.box;
    const wall = wallLength;
    walls.push(svg("g", { class: `obstacle-badge ob-${card}`, "data-obstacle": card },
      svg("title", {}, `${pretty(card)}: crossing here costs a ${pretty(card)} card`),
      svg("line", { x1: mx - nx * wall, y1: my - ny * wall, x2: mx + nx * wall, y2: my + ny * wall, class: "wall" }),
      svg("rect", { x, y, width: w, height: h, rx: h / 2, class: "ob-label" }),
      potionGlyph(card, words ? x + 8 : x + (w - labelFs - 2) / 2, y + (h - labelFs - 2) / 2, labelFs + 2),
      words ? svg("text", { x: x + labelFs + 14, y: y + h / 2 + labelFs * 0.36, class: "ob-text", "font-size": labelFs }, words)
        : null));
  }

  for (const id of ids) {
    const [x, y] = at[id];
    const isExit = id === cave.exit;
    const seat = who.get(id);
    const moveHere = reach.get(id);
    const startHere = startAt.get(id);
    const swapHere = swapAt.get(id);
    const action = startHere || swapHere || (moveHere?.length === 1 ? moveHere[0] : null);
    const tappable = Boolean(startHere || swapHere || moveHere);
    const isStart = (cave.start || []).includes(id) || String(id).startsWith("S");
    const g = svg("g", {
      class: `cave-space${isExit ? " exit" : ""}${tappable ? " legal" : ""}${swapHere ? " swap" : ""}` +
        `${isStart ? " start" : ""}${id === moverAt ? " from" : ""}`,
      "data-space": id, role: tappable ? "button" : null, tabindex: tappable ? "0" : null,
      "aria-label": `${isExit ? "exit" : "space " + id}${seat !== undefined ? ", " + names[seat] + "'s apprentice" : ""}` +
        (swapHere ? ", tap to swap places" : moveHere ? ", tap to move here" : startHere ? ", tap to start here" : ""),
    });
    // the tap target: at least a 48 px square, even where the drawing is tight
    const hx = Math.max(24, Math.min(r + 8, ux / 2)); const hy = Math.max(24, Math.min(r + 8, uy / 2));
    if (tappable) g.append(svg("rect", { x: x - hx, y: y - hy, width: 2 * hx, height: 2 * hy, class: "hit" }));
    if (isExit) {
      g.append(svg("rect", { x: x - r * 1.3, y: y - r, width: r * 2.6, height: r * 2, rx: 14, class: "space-ring" }));
      g.append(svg("text", { x, y: y + fs * 0.36, class: "space-id exit-word", "text-anchor": "middle", "font-size": fs }, "EXIT"));
    } else {
      g.append(svg("circle", { cx: x, cy: y, r, class: "space-ring" }));
    }
    if (!isExit && seat === undefined) {
      g.append(svg("text", { x, y: y + fs * 0.36, class: "space-id", "text-anchor": "middle", "font-size": fs }, id));
    }
    if (seat !== undefined) {
      const a = r * 0.7;
      g.append(apprentice(seat, x, y, a, seat === mover));
      g.append(svg("text", { x, y: y + a * 0.42, class: `appr-mark seat-ink-${seat}`, "text-anchor": "middle",
        "font-size": Math.round(a * (String(marks[seat]).length > 1 ? 0.82 : 1.15)) }, marks[seat]));
      // which space it stands on, as a small tag on the rim
      const tx = x + r * 0.78; const ty = y - r * 0.78; const tr = Math.max(11, r * 0.36);
      g.append(svg("circle", { cx: tx, cy: ty, r: tr, class: "space-tag" }));
      g.append(svg("text", { x: tx, y: ty + tr * 0.4, class: "space-tag-text", "text-anchor": "middle",
        "font-size": Math.round(tr * 1.05) }, id));
    }
    const badge = badges.get(id);
    if (badge) {
      const { box: b, icons, extra } = badge;
      const tag = svg("g", { class: `cost${icons.length ? "" : " free"}${swapHere ? " swap-badge" : ""}` },
        svg("rect", { x: b.x, y: b.y, width: b.w, height: 24, rx: 12 }));
      if (!icons.length) tag.append(svg("text", { x: b.x + b.w / 2, y: b.y + 18, "text-anchor": "middle" }, "free"));
      icons.forEach((card, i) => tag.append(potionGlyph(card, b.x + 6 + i * 22, b.y + 2, 20)));
      if (extra) tag.append(svg("text", { x: b.x + b.w - 12, y: b.y + 18, "text-anchor": "middle" }, "…"));
      g.append(tag);
    }
    if (tappable) {
      const go = () => {
        if (action) { perform(action); return; }
        choose(`How should ${names[mover] ?? "the mover"} get to ${isExit ? "the exit" : "space " + id}?`,
          moveHere.map((m) => ({ label: moveWords(optionFor(view, m)), action: m })));
      };
      g.addEventListener("click", go);
      g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") go(); });
    }
    map.append(g);
  }
  map.append(...walls);
  // the board side, in a free corner only (it must never cover a space or a name)
  const caption = { x: 4, y: height - 24, w: 10 * (cave.name || "").length + 60, h: 22 };
  if (cave.name && !spaces.some((c) => overlapsCircle(caption, c)) && !taken.some((t) => overlapsBox(caption, t))) {
    map.append(svg("text", { x: caption.x + 4, y: height - 8, class: "cave-caption" }, `Cave: ${cave.name}`));
  }
  stage.replaceChildren(map);
}
