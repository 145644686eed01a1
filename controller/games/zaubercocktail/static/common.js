// Zaubercocktail pieces shared by the tablet and the player's phone: ingredient badges,
// a +/− counter row, and talking to the game's own routes.
import { el as uiEl } from "/static/js/ui.js";
import { postJSON } from "/static/js/net.js";

export const API = "/api/v1/zaubercocktail";

/** ui.js's el() plus an id: el("button.big-button#zc-reveal", ...). */
export function el(tag, props = {}, ...children) {
  const [spec, id] = tag.split("#");
  return uiEl(spec, id ? { ...(props || {}), id } : props, ...children);
}

// Two letters per ingredient: the cards are told apart by name, never by colour alone.
const CODES = {
  blue_schlums: "BS", greenwurz: "GW", lead_earth: "LE", giraffe_extract: "GE", troll_hair: "TH",
  yellow_schlums: "YS", silver_grass: "SG", white_berries: "WB", faran_leaf: "FL", gold_rose: "GR",
  black_something: "?",
};

export function kindBadge(id, extra = "") {
  return el(`span.zc-kind.k-${id}${extra ? "." + extra : ""}`, { "aria-hidden": "true" },
    CODES[id] || String(id).slice(0, 2).toUpperCase());
}

export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");
export const sentence = (text) => String(text || "").replace(/^./, (s) => s.toUpperCase()).replace(/([^.!?])$/, "$1.");

/** "3× Troll Hair (1 Black Something) 42" */
export function setLine(s) {
  return el("span.zc-set", {},
    kindBadge(s.kind, "small"),
    el("span.zc-set-n", {}, `${s.n}× ${s.name}`),
    s.black ? el("span.zc-set-black", { title: "Black Somethings in this set" },
      `(${s.black} Black Something${s.black > 1 ? "s" : ""})`) : null,
    el("b.zc-set-points", {}, String(s.points)));
}


/**
 * A counter: [−] n [+] with a label; the buttons are ≥ 56 px.
 * Returns the row; onChange(delta) is called with −1 or +1.
 */
export function counter({ value, onChange, minusOff = false, plusOff = false, label, testid, extra = "" }) {
  return el(`span.zc-counter${extra ? "." + extra : ""}`, { dataset: { testid } },
    el("button.zc-step.minus", { type: "button", disabled: minusOff || value <= 0, "aria-label": `one ${label} fewer`,
      onclick: () => onChange(-1) }, "−"),
    el("span.zc-count", { "aria-live": "polite" }, String(value)),
    el("button.zc-step.plus", { type: "button", disabled: plusOff, "aria-label": `one more ${label}`,
      onclick: () => onChange(+1) }, "+"));
}

/** POST to one of the game's routes without the table's busy lock (live previews). */
export function ask(path, payload) {
  return postJSON(API + path, payload);
}

/** Drop zero counts (the engine reads {} as "nothing"). */
export function compact(table) {
  return Object.fromEntries(Object.entries(table || {}).filter(([, n]) => n > 0));
}

/** A suggestion from the helper: its sets, points and what stays in the hand. */
export function suggestionBox(title, lay, kinds, { action } = {}) {
  if (!lay) {
    return el("div.zc-suggestion.none", {}, el("h3", {}, title),
      el("p", {}, "Nothing legal to lay: you need two cards of one kind (a Black Something never counts alone)."),
      action || null);
  }
  const names = Object.fromEntries(kinds.map((k) => [k.id, k.name]));
  const kept = Object.entries(lay.kept || {}).map(([id, n]) => `${n}× ${names[id] || id}`);
  if (lay.kept_black) kept.push(`${lay.kept_black}× Black Something`);
  return el("div.zc-suggestion", { dataset: { points: String(lay.points) } },
    el("h3", {}, title, el("span.zc-sugg-points", {}, `${lay.points} points`)),
    el("div.zc-sets", {}, lay.sets.map(setLine)),
    el("p.zc-kept", {}, `${lay.cards_played} cards laid. `, kept.length ? `Keep: ${kept.join(", ")}.` : "Nothing kept."),
    action || null);
}
