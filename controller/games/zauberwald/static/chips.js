// Ingredient chips: every colour always shows its letter (colour-blind safe), plus the
// chip-grid used to enter a basket (or a physical recipe card) by taps.
import { el } from "/static/js/ui.js";

let palette = [];          // [{id, letter, hex, ink}] in the game's own order

/** Black or white letters, whichever contrasts more with the chip (WCAG luminance). */
function inkFor(hex) {
  const rgb = String(hex || "#888888").replace("#", "").match(/../g).map((h) => {
    const c = parseInt(h, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
  return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) ? "#000" : "#fff";
}

export function learnPalette(colours) {
  palette = (colours || []).map((c) => ({ ...c, letter: c.letter || c.id[0].toUpperCase(), ink: inkFor(c.hex) }));
  return palette;
}

export const colourOrder = () => palette.map((c) => c.id);
const info = (id) => palette.find((c) => c.id === id) || { id, letter: String(id)[0].toUpperCase(), hex: "#888", ink: "#000" };

/** One chip: filled with the colour, showing its letter. `hollow` = still missing. */
export function chip(id, { size = "", hollow = false } = {}) {
  const c = info(id);
  // a missing ingredient: a faint chip with a dashed rim, its letter still readable
  const style = hollow ? `border-color:${c.hex === "#000000" ? "#8f86bd" : c.hex};background:${c.hex}33;color:#f6f2ff`
    : `background:${c.hex};color:${c.ink}`;
  return el(`span.zw-chip${size ? "." + size : ""}${hollow ? ".hollow" : ""}`,
    { style, title: id, "aria-label": `${hollow ? "missing " : ""}${id}`, dataset: { colour: id } }, c.letter);
}

/** {yellow: 1, white: 2} → chips in the game's colour order (one chip per ingredient). */
export function chipRow(counts, opts = {}) {
  const out = [];
  for (const c of colourOrder()) for (let i = 0; i < (counts?.[c] || 0); i++) out.push(chip(c, opts));
  return el("span.zw-chips", {}, out.length ? out : el("span.zw-none", {}, opts.empty ?? "nothing"));
}

/** "1 yellow, 2 white" */
export function words(counts) {
  const parts = colourOrder().filter((c) => counts?.[c]).map((c) => `${counts[c]} ${c}`);
  return parts.length ? parts.join(", ") : "nothing";
}

export const total = (counts) => Object.values(counts || {}).reduce((a, b) => a + b, 0);

/**
 * Tap-to-count grid: a big chip button per colour adds one, "−" takes one away.
 * `counts` is changed in place; `onChange()` redraws. `max(colour)` caps a colour,
 * `limit` caps the total.
 */
export function chipGrid(counts, { onChange, max = () => Infinity, limit = Infinity }) {
  const sum = total(counts);
  return el("div.zw-grid", { role: "group", "aria-label": "ingredients" }, palette.map((c) => {
    const n = counts[c.id] || 0;
    const full = n >= max(c.id) || sum >= limit;
    return el("div.zw-cell", { dataset: { colour: c.id } },
      el("button.zw-add", {
        type: "button", style: `background:${c.hex};color:${c.ink}`, disabled: full,
        "aria-label": `add one ${c.id} (${n} in the basket)`, dataset: { colour: c.id },
        onclick: () => { counts[c.id] = n + 1; onChange(); },
      }, el("span.zw-letter", {}, c.letter), el("span.zw-word", {}, c.id),
      el("span.zw-count", {}, n ? `×${n}` : "")),
      el("button.zw-minus", {
        type: "button", disabled: !n, "aria-label": `take one ${c.id} away`, dataset: { colour: c.id },
        onclick: () => { counts[c.id] = Math.max(0, n - 1); if (!counts[c.id]) delete counts[c.id]; onChange(); },
      }, "−"));
  }));
}
