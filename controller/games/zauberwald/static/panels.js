// The players' strip (tiles left, potions, three recipe cards with what is missing), the
// "stop!" buttons and the basket results with every penalty explained.
import { el, playerMarks } from "/static/js/ui.js";
import { chip, chipRow, colourOrder, total } from "./chips.js";

const ORDINAL = ["first", "second", "third"];

export function seatToken(seat, names, size = "") {
  const marks = playerMarks(names);
  return el(`span.disk.seat-${seat}${size ? "." + size : ""}`, { "aria-hidden": "true" }, marks[seat] || "?");
}

/** One recipe card: seven places, laid ingredients filled, missing ones hollow. */
function recipeCard(card, index, current) {
  if (!card) return el("div.zw-card.empty", {}, el("span.zw-card-label", {}, `${ORDINAL[index]} card: not entered`));
  if (card.finished) {
    return el("div.zw-card.finished", { dataset: { card: String(index) } },
      el("span.zw-card-label", {}, "✓ potion cooked"), el("span.zw-card-done", {}, "card turned over"));
  }
  const places = [];
  for (const c of colourOrder()) {
    const need = card.recipe[c] || 0;
    const laid = card.on_card[c] || 0;
    for (let i = 0; i < need; i++) places.push(chip(c, { size: "small", hollow: i >= laid }));
  }
  const missing = total(card.missing);
  // the card being collected says so; the others are their chips alone (dashed: missing),
  // so three cards and the tiles fit under the board on a 1024×768 tablet
  if (!current) {
    return el("div.zw-card", { dataset: { card: String(index) }, title: `${ORDINAL[index]} card: ${missing} missing` },
      el("span.zw-card-places", { role: "img", "aria-label": `${ORDINAL[index]} recipe card: ${missing} missing` }, places));
  }
  return el("div.zw-card.current", { dataset: { card: String(index) } },
    el("span.zw-card-label", {}, `collecting · ${missing} missing`),
    el("span.zw-card-places", {}, places));
}

function tileRow(player) {
  const left = [...player.tiles].sort((a, b) => a - b);
  return el("span.zw-tiles", { "aria-label": `magic tiles left: ${left.join(", ") || "none"}` },
    left.length ? left.map((t) => el("span.zw-tile.mini", {}, String(t)))
      : el("span.zw-none", {}, "no tiles left"));
}

/** "Name: stop!" for a player whose basket can finish the third potion (the engine's may_stop).
 *  That can be two or three cards at once (collecting for the next card is allowed), so every
 *  such player has the button; it is red for a player on the last card, quieter otherwise. */
function stopButton(p, onStop) {
  const open = p.cards.filter((c) => c && !c.finished);
  const needs = open.reduce((n, c) => n + total(c.missing), 0);
  const early = open.length > 1;
  return el(`button.big-button.zw-stop-call${early ? ".early" : ""}`, {
    type: "button", dataset: { seat: String(p.seat) },
    title: `Only if this basket finishes the third magic potion: ${needs} ingredient${needs === 1 ? "" : "s"} still missing`,
    onclick: () => onStop(p.seat) }, `${p.name}: stop!`);
}

/** The "stop!" calls open now, beside the board: a player shouts and the tablet's keeper taps
 *  the name (in the side column, so the strip below never holds a control the step needs). */
export function stopPanel(state, names, { onStop }) {
  const callers = state.phase === "over" ? [] : state.players.filter((p) => p.may_stop);
  if (!callers.length) return null;
  return el("section.zw-stops.panel", { id: "zw-stops", "aria-label": "“stop!”" },
    el("div.panel-title", {}, "Calls “stop!”"),
    callers.map((p) => stopButton(p, onStop)));
}

export function playersStrip(state, names) {
  const playing = state.phase !== "over";
  // whose cards are being entered (printed cards), so the right player looks up
  const entering = state.phase === "cards" ? state.players.find((p) => p.cards.some((c) => !c))?.seat : null;
  return el("footer.zw-players", { id: "zw-players", "aria-label": "Players" }, state.players.map((p) => {
    const master = p.seat === state.master && playing;
    const checking = (state.round?.to_check?.[0] === p.seat && ["check", "penalty"].includes(state.phase))
      || entering === p.seat;
    return el(`section.zw-player${master ? ".master" : ""}${checking ? ".checking" : ""}`,
      { dataset: { seat: String(p.seat) } },
      el("div.zw-player-head", {},
        seatToken(p.seat, names),
        el("span.zw-player-name", {}, p.name),
        master ? el("span.zw-badge", {}, "master") : null),
      el("div.zw-player-tiles", {}, el("span.zw-small-label", {}, "tiles"), tileRow(p),
        el("span.zw-potions", { title: "magic potions cooked" }, `${p.potions} ${p.potions === 1 ? "potion" : "potions"}`)),
      el("div.zw-cards", {}, p.cards.map((card, i) => recipeCard(card, i, i === p.current_card))));
  }));
}

/** The check of one basket, with the engine's own notes (every penalty explained). */
function resultItem(result, names) {
  const penaltyNote = (n) => /^penalty|wrong|fewer than|"stop!" was wrong/.test(n);
  const goodNote = (n) => /potion is finished|"stop!" was right/.test(n);
  return el(`li.zw-result${total(result.penalty) ? ".penalised" : ""}`, { dataset: { seat: String(result.seat) } },
    el("div.zw-result-head", {},
      seatToken(result.seat, names, ""),
      el("span.zw-result-name", {}, `${names[result.seat]}'s basket`),
      chipRow(result.basket, { size: "small", empty: "empty" }),
      result.stop ? el(`span.zw-badge.${result.stop}`, {}, `stop! ${result.stop}`) : null),
    el("ul.zw-notes", {}, result.notes.map((n) =>
      el(`li${penaltyNote(n) ? ".bad" : goodNote(n) ? ".good" : ""}`, {}, n.replace(/^./, (s) => s.toUpperCase()) + "."))));
}

export function resultsPanel(state, names) {
  const live = state.round && state.round.results?.length && ["check", "penalty"].includes(state.phase);
  // a right "stop!" ends the game in the middle of a round: show that round, not the one before
  const final = state.phase === "over" && state.round?.results?.length;
  const source = live ? { title: "This round's baskets", results: state.round.results }
    : final ? { title: `Round ${state.round_number}: the baskets`, results: state.round.results }
    : state.last_round ? { title: `Round ${state.last_round.round_number}: the baskets`, results: state.last_round.results }
      : null;
  if (!source || !source.results.length) return null;
  return el("section.zw-results.panel", { id: "zw-results", "aria-label": "Basket results", tabindex: "0" },
    el("div.panel-title", {}, source.title),
    el("ul.zw-result-list", {}, source.results.map((r) => resultItem(r, names))));
}
