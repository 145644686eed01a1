// Elixir: pieces shared by the tablet (tablet.js) and the phones (phone.js).
import { el } from "/static/js/ui.js";

export const STEPS = ["", "Red chips", "Gold", "Move", "Shop", "Laboratory", "Unknown", "Experiment", "Potion"];
const GROUP_SHAPE = { herb: "●", special: "■", gem: "◆" };   // shape as well as colour

/** Ingredient facts from the view's shop list: {id: {name, group, letter, price, value, stock}}. */
export function ingredientTable(state) {
  return Object.fromEntries((state.shops || []).map((s) => [s.id, s]));
}

/** A chip for one ingredient: group colour, group shape and a short letter code. */
export function chip(id, info, n = 1, extra = "") {
  const i = info[id] || { letter: id.slice(0, 2), group: "herb", name: id };
  return el(`span.ex-chip.g-${i.group}${extra ? "." + extra : ""}`, { title: i.name, "aria-label": `${n} ${i.name}` },
    el("span.ex-chip-shape", { "aria-hidden": "true" }, GROUP_SHAPE[i.group] || ""),
    el("span.ex-chip-letter", {}, i.letter), n > 1 ? el("span.ex-chip-n", {}, `×${n}`) : null);
}

/** What the letters on the chips mean, one tap away: every ingredient's full name, its
 *  group (shape) and its price or value. */
export function legend(info, id) {
  const what = (i) => (i.group === "gem" ? `gemstone, value ${i.value}`
    : i.group === "herb" ? "herb" : "special product");
  return el("details.ex-legend", { id },
    el("summary", {}, "What Ma, Ni, … R3 mean"),
    el("ul.ex-legend-list", {}, Object.values(info).map((i) => el("li", { dataset: { ingredient: i.id } },
      chip(i.id, info), el("b", {}, cap(i.name)), el("small", {}, ` ${what(i)} · ${i.price} gold`)))));
}

/** Chips for {ingredient: n}, in the data's order; "nothing" when empty. */
export function chips(counts, info, extra = "") {
  const ids = Object.keys(info).filter((k) => counts?.[k]);
  if (!ids.length) return el("span.ex-none", {}, "nothing");
  return el("span.ex-chips", {}, ids.map((k) => chip(k, info, counts[k], extra)));
}

export function seatMark(seat, name) {
  return el(`span.seat-chip.seat-${seat}.ex-seat`, { "aria-hidden": "true" }, (name || "?").slice(0, 1).toUpperCase());
}

/** "mandrake" → "Mandrake" */
export const cap = (s) => String(s || "").replace(/^./, (c) => c.toUpperCase());

/** A red-chip timer: one box per round, filled up to the chip. */
export function timer(use) {
  const boxes = [];
  for (let r = 1; r <= use.rounds; r += 1) {
    boxes.push(el(`span.ex-tick${r <= use.chip ? ".on" : ""}`, { "aria-hidden": "true" }, r <= use.chip ? "●" : "○"));
  }
  return el(`span.ex-timer${use.active ? ".active" : ""}`,
    { title: use.effect, "aria-label": `${use.name}: round ${use.chip} of ${use.rounds}` },
    el("b", {}, cap(use.name)), " ", boxes, " ", el("small", {}, use.active ? `${use.chip}/${use.rounds}` : "from next round"));
}
