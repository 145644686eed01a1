// Mix It cards, drawn the same on the tablet and on a phone: every species has a colour,
// a letter and a shape (never colour alone); star cards have a starred background.
import { el } from "/static/js/ui.js";

const SHAPES = { circle: "●", triangle: "▲", zigzag: "≋", drop: "◆", star: "✦", cloud: "☁" };
const PART_WORDS = { eyes: "eyes", mouth: "mouth", feet: "feet" };
let species = {};

export function learn(state) {
  species = Object.fromEntries((state.species || []).map((s) => [s.id, s]));
}

export function speciesName(id) { return species[id]?.name || id; }

/** A species mark: colour + letter + shape. */
export function mark(id, extra = "") {
  const s = species[id] || { letter: "?", shape: "circle", hex: "#888" };
  return el(`span.mi-mark${extra ? "." + extra : ""}`, { style: `--sp:${s.hex}`, title: s.name },
    el("b", {}, s.letter), el("i", { "aria-hidden": "true" }, SHAPES[s.shape] || ""));
}

/** A part card face: species mark, name, part word, ★ when it has a star background. */
export function partCard(card, { big = false, extra = "", props = {} } = {}) {
  if (!card) return el(`div.mi-card.empty${big ? ".big" : ""}`, props, "free");
  const s = species[card.species] || {};
  return el(`div.mi-card${card.star ? ".star" : ""}${big ? ".big" : ""}${extra ? "." + extra : ""}`,
    { style: `--sp:${s.hex || "#888"}`, dataset: { card: card.id }, ...props },
    mark(card.species),
    el("span.mi-card-name", {}, s.name || card.species),
    el("span.mi-card-part", {}, PART_WORDS[card.part] || card.part),
    card.star ? el("span.mi-star", { title: "star background" }, "★") : null);
}

/** A goal card: the three species, eyes over mouth over feet. */
export function goalCard(goal, { extra = "" } = {}) {
  if (!goal) return el("div.mi-goal.empty", {}, "no goal");
  return el(`div.mi-goal${extra ? "." + extra : ""}`, { dataset: { goal: goal.id } },
    ["eyes", "mouth", "feet"].map((p) => el("div.mi-goal-row", {},
      mark(goal[p]), el("span", {}, `${speciesName(goal[p])} ${p}`))));
}

/** Cookies as a count with a shape (one ◉ per cookie, ✪ for the EXTRA COOKIE). */
export function cookies(player) {
  const marks = "◉".repeat(player.goal_cookies) + (player.extra_cookie ? "✪" : "");
  return el("span.mi-cookies", { title: `${player.cookies} cookies` },
    el("b", {}, String(player.cookies)), " ", el("span.mi-cookie-marks", {}, marks || "–"));
}
