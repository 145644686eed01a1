// The cave map (SVG from the view's positions), apprentices, and where a mover may go.
import { $, el, fill, pretty } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";
const CELL = 100;           // SVG units per grid cell
const R = 38;               // space radius: at the cave's usual size this is >= 48 px on screen

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  for (const c of children.flat()) if (c) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

const SHORT = { flame_wall: "Flame", poison_pit: "Poison", lightning_grid: "Lightning", monster_crypt: "Monster",
  double_speed: "Double", place_swap: "Swap" };
export const shortCard = (id) => SHORT[id] || pretty(id);

/** A player's token in the cave: the same colour and shape as their disks (seat 0-3). */
function apprentice(seat, cx, cy, moving) {
  const cls = `appr seat-${seat}${moving ? " moving" : ""}`;
  const l = cx - 24, r = cx + 24, t = cy - 24, b = cy + 24;
  switch (seat) {
    case 1: return svg("rect", { x: l, y: t, width: 48, height: 48, rx: 10, class: cls });
    case 2: return svg("path", { d: `M${l},${b} L${l},${cy} A24,24 0 0 1 ${r},${cy} L${r},${b} Z`, class: cls });
    case 3: return svg("path", { d: `M${l},${t} L${cx},${t} A24,24 0 0 1 ${r},${cy} L${r},${b} L${cx},${b} A24,24 0 0 1 ${l},${cy} Z`, class: cls });
    default: return svg("circle", { cx, cy, r: 24, class: cls });
  }
}

/** Words for one way of moving, e.g. "3 steps, gives up Flame, double speed". */
export function moveWords(option) {
  const parts = [];
  if (option.steps !== undefined) parts.push(`${option.steps} step${option.steps === 1 ? "" : "s"}`);
  if (option.spend?.length) parts.push(`gives up ${option.spend.map(shortCard).join(" + ")}`);
  if (option.double_speed) parts.push("uses double speed");
  return parts.join(", ") || "free";
}

/**
 * Draw the cave into #cave. `moves` are the legal move actions (with `to`), `starts` the
 * legal place_apprentice actions; tapping a highlighted space performs (or asks which way).
 */
export function renderCave(view, { moves, starts, swaps, perform, choose, marks, names }) {
  const box = $("#cave");
  const cave = view.cave;
  if (!cave || !cave.positions) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const pos = cave.positions;
  const ids = Object.keys(pos);
  const cols = Math.max(...ids.map((k) => pos[k][0])) + 1;
  const rows = Math.max(...ids.map((k) => pos[k][1])) + 1;
  const at = (id) => [pos[id][0] * CELL + CELL / 2, pos[id][1] * CELL + CELL / 2];

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
  const options = new Map((view.movement?.reachable || []).map((o) => [`${o.to}|${o.double_speed}|${o.spend.join(",")}`, o]));

  const map = svg("svg", { viewBox: `-20 -20 ${cols * CELL + 40} ${rows * CELL + 40}`, class: "cave-map",
    role: "img", "aria-label": "cave map" });

  const obstacles = [];
  for (const edge of cave.edges || []) {
    const [a, b] = edge.between;
    if (!pos[a] || !pos[b]) continue;
    const [x1, y1] = at(a); const [x2, y2] = at(b);
    map.append(svg("line", { x1, y1, x2, y2, class: `cave-edge${edge.obstacle ? " obstacle" : ""}` }));
    if (edge.obstacle) obstacles.push([edge.obstacle, x1, y1, x2, y2]);
  }
  // Obstacles go on top of the spaces: a wall across the path, its name beside it
  // (towards the empty grid row, downwards or to the right).
  const walls = [];
  for (const [card, x1, y1, x2, y2] of obstacles) {
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    let nx = -(y2 - y1) / len; let ny = (x2 - x1) / len;
    if (ny < 0 || (ny === 0 && nx < 0)) { nx = -nx; ny = -ny; }
    const mx = (x1 + x2) / 2; const my = (y1 + y2) / 2;
    const lx = mx + nx * 50; const ly = my + ny * 50;
    walls.push(svg("g", { class: `obstacle-badge ob-${card}` },
      svg("title", {}, `${pretty(card)}: crossing here costs a ${pretty(card)} card`),
      svg("line", { x1: mx - nx * 26, y1: my - ny * 26, x2: mx + nx * 26, y2: my + ny * 26, class: "wall" }),
      svg("rect", { x: lx - 46, y: ly - 15, width: 92, height: 30, rx: 8 }),
      svg("text", { x: lx, y: ly + 7, "text-anchor": "middle" }, shortCard(card))));
  }

  for (const id of ids) {
    const [x, y] = at(id);
    const isExit = id === cave.exit;
    const seat = who.get(id);
    const moveHere = reach.get(id);
    const startHere = startAt.get(id);
    const swapHere = swapAt.get(id);
    const action = startHere || swapHere || (moveHere?.length === 1 ? moveHere[0] : null);
    const tappable = Boolean(startHere || swapHere || moveHere);
    const g = svg("g", {
      class: `cave-space${isExit ? " exit" : ""}${tappable ? " legal" : ""}${String(id).startsWith("S") ? " start" : ""}`,
      "data-space": id, role: tappable ? "button" : null, tabindex: tappable ? "0" : null,
      "aria-label": `${isExit ? "exit" : "space " + id}${seat !== undefined ? ", " + names[seat] + "'s apprentice" : ""}`,
    });
    if (tappable) g.append(svg("circle", { cx: x, cy: y, r: CELL / 2, class: "hit" }));
    g.append(isExit
      ? svg("rect", { x: x - R - 6, y: y - R + 4, width: 2 * R + 12, height: 2 * R - 8, rx: 14 })
      : svg("circle", { cx: x, cy: y, r: R, class: "space-ring" }));
    g.append(svg("text", { x, y: seat !== undefined ? y - R + 18 : y + 9, class: "space-id", "text-anchor": "middle" },
      isExit ? "EXIT" : id));
    if (seat !== undefined) {
      g.append(apprentice(seat, x, y + 8, seat === mover));
      g.append(svg("text", { x, y: y + 17, class: `appr-mark seat-ink-${seat}`, "text-anchor": "middle" }, marks[seat]));
    }
    if (moveHere) {
      const best = moveHere.map((m) => options.get(`${m.to}|${m.double_speed}|${(m.spend || []).join(",")}`) || m);
      const cost = best.length === 1 ? moveWords(best[0]) : `${best.length} ways`;
      g.append(svg("text", { x, y: y + R + 22, class: "cost", "text-anchor": "middle" }, cost));
    }
    if (tappable) {
      const go = () => {
        if (action) perform(action);
        else choose(`How should ${names[mover] ?? "the mover"} get to ${id === cave.exit ? "the exit" : "space " + id}?`,
          moveHere.map((m) => ({
            label: moveWords(options.get(`${m.to}|${m.double_speed}|${(m.spend || []).join(",")}`) || m),
            action: m,
          })));
      };
      g.addEventListener("click", go);
      g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") go(); });
    }
    map.append(g);
  }
  map.append(...walls);

  const queue = view.movement?.queue || [];
  fill(box,
    el("div.cave-head", {},
      el("h3.panel-title", {}, cave.name ? `Cave (${cave.name})` : "Cave"),
      queue.length ? el("div.move-queue", {}, queue.map((q, i) =>
        el(`span.queue-item${i === 0 ? ".now" : ""}`, {},
          i === 0 ? `${q.name} moves: ${view.movement.steps_left} step${view.movement.steps_left === 1 ? "" : "s"} left`
            : `then ${q.name} ${q.steps}`)))
        : null),
    map);
}
