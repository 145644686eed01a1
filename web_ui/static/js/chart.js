// Line charts as inline SVG (no library, no build step): the score sheet's rounds and the
// statistics' wins and scores over time. Every line differs in four ways, so none needs its
// colour to be told apart: its colour (Okabe-Ito, light enough on the dark panel), its dash,
// its marker's shape, and its name written at its end (and in the legend under the chart).
// The chart is drawn at the width it gets on the page, so its text is really 16 px or more.
import { el } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
// in the order of the seats' chips where a chip's colour shows on the panel (seat 1's chip is
// white like seat 0's border: it gets orange)
export const INKS = ["#ffffff", "#e69f00", "#56b4e9", "#a7a7a7", "#cc79a7", "#f0e442", "#009e73", "#d55e00"];
const DASHES = ["", "10 5", "3 5", "14 5 3 5"];
const SHAPES = ["circle", "square", "triangle", "diamond", "down", "plus", "cross", "star"];
const TEXT = 16;             // px: the smallest text on the table

function node(tag, attrs = {}, ...children) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) n.setAttribute(k, String(v));
  for (const c of children) n.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return n;
}

/** A marker of ``shape`` centred on (x, y), r its half size. */
export function marker(shape, x, y, r, ink) {
  const line = { fill: ink, stroke: "#140f26", "stroke-width": 2 };
  const pts = (list) => list.map(([a, b]) => `${(x + a * r).toFixed(1)},${(y + b * r).toFixed(1)}`).join(" ");
  switch (shape) {
    case "square": return node("rect", { x: x - r * 0.85, y: y - r * 0.85, width: r * 1.7, height: r * 1.7, ...line });
    case "triangle": return node("polygon", { points: pts([[0, -1.1], [1, 0.8], [-1, 0.8]]), ...line });
    case "down": return node("polygon", { points: pts([[0, 1.1], [1, -0.8], [-1, -0.8]]), ...line });
    case "diamond": return node("polygon", { points: pts([[0, -1.15], [1.15, 0], [0, 1.15], [-1.15, 0]]), ...line });
    case "plus": return node("polygon", { points: pts([[-0.35, -1], [0.35, -1], [0.35, -0.35], [1, -0.35], [1, 0.35], [0.35, 0.35],
      [0.35, 1], [-0.35, 1], [-0.35, 0.35], [-1, 0.35], [-1, -0.35], [-0.35, -0.35]]), ...line });
    case "cross": return node("polygon", { points: pts([[-1, -0.6], [-0.6, -1], [0, -0.4], [0.6, -1], [1, -0.6], [0.4, 0], [1, 0.6],
      [0.6, 1], [0, 0.4], [-0.6, 1], [-1, 0.6], [-0.4, 0]]), ...line });
    case "star": return node("polygon", { points: pts([...Array(10)].map((_, i) => {
      const a = -Math.PI / 2 + i * Math.PI / 5, k = i % 2 ? 0.5 : 1.15;
      return [Math.cos(a) * k, Math.sin(a) * k];
    })), ...line });
    default: return node("circle", { cx: x, cy: y, r, ...line });
  }
}

/** A small swatch of series ``i`` (its line, dash and marker) for a legend or a table. */
export function swatch(i) {
  const ink = INKS[i % INKS.length];
  return node("svg", { width: 44, height: 24, viewBox: "0 0 44 24", "aria-hidden": "true", class: "chart-swatch" },
    node("line", { x1: 2, y1: 12, x2: 42, y2: 12, stroke: ink, "stroke-width": 3, "stroke-dasharray": DASHES[i % DASHES.length] }),
    marker(SHAPES[i % SHAPES.length], 22, 12, 7, ink));
}

/** Whole-number ticks from lo to hi, at most ``most`` of them. */
function ticks(lo, hi, most = 5) {
  const span = Math.max(1, hi - lo);
  const step = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000].find((s) => span / s <= most - 1) || Math.ceil(span / (most - 1));
  const out = [];
  for (let t = Math.floor(lo / step) * step; t <= hi; t += step) if (t >= lo) out.push(t);
  return out;
}

/** Labels that would overlap are pushed apart (at least ``gap`` px), inside [top, bottom]
 *  where they fit, never on top of each other. */
function spread(items, gap, top, bottom) {
  const sorted = [...items].sort((a, b) => a.y - b.y);
  const down = () => sorted.forEach((s, i) => { s.y = Math.max(s.y, i ? sorted[i - 1].y + gap : top); });
  down();
  if (sorted.length && sorted[sorted.length - 1].y > bottom) {
    sorted[sorted.length - 1].y = bottom;
    for (let i = sorted.length - 2; i >= 0; i--) sorted[i].y = Math.min(sorted[i].y, sorted[i + 1].y - gap);
    down();
  }
  return items;
}

/** The SVG of a line chart ``width`` px wide (see lineChart). The points are evenly spaced
 *  under ``xLabels``, or placed at ``xValues`` (numbers: e.g. the step of the game) with
 *  whole-number ticks; ``stepped``: a value holds until the next point (a score does). */
export function chartSvg({ series, xLabels = [], xValues = null, xTitle = "", yTitle = "", title = "", stepped = false,
                           width = 480, height = 300 }) {
  const values = series.flatMap((s) => s.values).filter((v) => v !== null && v !== undefined);
  const lo = Math.min(0, ...values), hi = Math.max(1, ...values);
  const names = series.map((s) => s.name);
  // names at the lines' ends when there is room; on a narrow panel the legend alone names them
  const labelled = width >= 420;
  // 16 px bold is about 10.5 px a letter, after a 12 px gap from the line's end
  const nameWidth = labelled ? Math.min(180, 20 + 11 * Math.max(3, ...names.map((n) => n.length))) : 16;
  const m = { left: 20 + 10 * String(hi).length, right: nameWidth, top: 14 + (yTitle ? TEXT + 6 : 0),
              bottom: 34 + (xTitle ? TEXT + 4 : 0) };
  const w = Math.max(120, width - m.left - m.right), h = Math.max(120, height - m.top - m.bottom);
  const n = Math.max(1, xValues ? xValues.length : xLabels.length);
  const x0 = xValues ? xValues[0] : 0, x1 = xValues ? xValues[n - 1] : n - 1;
  const x = xValues ? (i) => m.left + (x1 === x0 ? w / 2 : ((xValues[i] - x0) * w) / (x1 - x0))
    : (i) => m.left + (n === 1 ? w / 2 : (i * w) / (n - 1));
  const y = (v) => m.top + h - ((v - lo) / (hi - lo)) * h;
  const svg = node("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart",
                            "aria-label": title || yTitle },
    node("title", {}, title || yTitle));
  const grid = node("g", { class: "chart-grid" });
  for (const t of ticks(lo, hi)) {
    grid.append(node("line", { x1: m.left, x2: m.left + w, y1: y(t), y2: y(t), stroke: "#5a4f97", "stroke-width": 1 }),
      node("text", { x: m.left - 6, y: y(t) + 5, "text-anchor": "end", "font-size": TEXT, fill: "#bdb3dc" }, t));
  }
  // x labels: the first, the last and as many between as fit without touching
  const fit = Math.max(3, Math.floor(w / 70));
  const every = Math.max(1, Math.ceil(n / fit));
  const xText = (px, label) => grid.append(node("text", { x: px, y: m.top + h + 24, "text-anchor": "middle",
                                                           "font-size": TEXT, fill: "#bdb3dc" }, label));
  if (xValues) {
    for (const t of ticks(x0, x1, fit)) xText(m.left + (x1 === x0 ? w / 2 : ((t - x0) * w) / (x1 - x0)), t);
  } else {
    xLabels.forEach((label, i) => {
      if (i % every && i !== n - 1) return;
      if (i !== n - 1 && n - 1 - i < every) return;          // too close to the last one
      xText(x(i), label);
    });
  }
  if (xTitle) grid.append(node("text", { x: m.left + w, y: height - 2, "text-anchor": "end", "font-size": TEXT, fill: "#bdb3dc" }, xTitle));
  if (yTitle) grid.append(node("text", { x: 4, y: TEXT, "font-size": TEXT, fill: "#bdb3dc", "font-weight": 700 }, yTitle));
  svg.append(grid);
  const ends = [];
  series.forEach((s, i) => {
    const ink = INKS[i % INKS.length];
    // a score held level by several players: their lines side by side, a few px apart, not one on another
    const apart = stepped ? (i - (series.length - 1) / 2) * 3 : 0;
    const pts = s.values.map((v, j) => (v === null || v === undefined ? null : [x(j), y(v) + apart]));
    const g = node("g", { class: "chart-line", "data-name": s.name });
    let d = "";
    pts.forEach((p, j) => {
      if (!p) return;
      const joined = d && pts[j - 1];
      if (joined && stepped) d += `H${p[0].toFixed(1)}`;          // held until here, then the change
      d += `${joined ? "L" : "M"}${p[0].toFixed(1)},${p[1].toFixed(1)}`;
    });
    g.append(node("path", { d, fill: "none", stroke: ink, "stroke-width": 3, "stroke-dasharray": DASHES[i % DASHES.length],
                            "stroke-linejoin": "round" }));
    const step = Math.max(1, Math.ceil(pts.length / 24));   // a marker on every point, or every few of many
    pts.forEach((p, j) => { if (p && (j % step === 0 || j === pts.length - 1)) g.append(marker(SHAPES[i % SHAPES.length], p[0], p[1], 6, ink)); });
    svg.append(g);
    const last = [...pts].reverse().find(Boolean);
    if (last) ends.push({ i, y: last[1], name: s.name, ink });
  });
  for (const e of labelled ? spread(ends, TEXT + 4, m.top + TEXT / 2, m.top + h) : []) {
    svg.append(node("text", { x: m.left + w + 12, y: e.y + 6, "font-size": TEXT, "font-weight": 700, fill: e.ink,
                              class: "chart-label" }, e.name.length > 15 ? `${e.name.slice(0, 14)}…` : e.name));    // the legend has it whole
  }
  return svg;
}

const LOWEST = 180;           // px: a chart shorter than this is no longer read across the table

/** The box that scrolls the chart up and down (a board's panel, the page), or null: the screen. */
function scroller(node) {
  for (let a = node.parentElement; a && a !== document.body; a = a.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(a).overflowY)) return a;
  }
  return null;
}

/** A chart that draws itself at the width the page gives it, with a legend of every line
 *  under it; as tall as fits, with its legend, in what its scrolling box shows (an end screen
 *  above a replay's bar has a short one), so a player who scrolls to the chart sees its
 *  legend with it. Drawn again when either changes. ``series``: [{name, values: [number|null per x]}]. */
export function lineChart(options) {
  const box = el("div.chart-box");
  const legend = el("ul.chart-legend", {}, options.series.map((s, i) =>
    el("li", { dataset: { name: s.name } }, swatch(i), el("span", {}, s.name))));
  const caption = options.caption ? el("figcaption.sheet-hint", {}, options.caption) : null;
  const figure = el("figure.chart-figure", {}, box, legend, caption);
  let drawn = "", watched = null;
  const seen = new ResizeObserver(() => draw());
  const draw = () => {
    const width = Math.floor(box.clientWidth);
    if (!width) return;
    const around = scroller(figure);
    if (around !== watched) {
      if (watched) seen.unobserve(watched);
      watched = around;
      if (around) seen.observe(around);
    }
    const shown = around ? around.clientHeight : window.innerHeight;
    // the room under the legend, the caption and a little air (the panel's own padding)
    const room = shown - legend.offsetHeight - (caption?.offsetHeight || 0) - 28;
    const height = options.height || Math.round(Math.max(LOWEST, Math.min(320, Math.max(220, width * 0.55), room)));
    if (`${width}x${height}` === drawn) return;
    drawn = `${width}x${height}`;
    box.replaceChildren(chartSvg({ ...options, width, height }));
  };
  seen.observe(box);
  return figure;
}
