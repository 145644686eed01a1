// Elixir on a wizard's own phone: his brew cards (drink, or choose the one Phil takes or
// Clotilda buys), his formula table (what he has learnt, filled in by the table, plus his
// own pencil notes), his hired Unknowns and what only he has been told.
// Loaded by the seat page as render(root, seatSession, ctx); ctx.act(action) sends with the
// seat's token. Only seatSession.private holds secrets, and only this wizard's.
import { el } from "/static/js/ui.js";
import { cap, chip, ingredientTable, legend, timer } from "./common.js";

let editing = null;          // the formula square whose note is being written

export function render(root, seatSession, ctx) {
  const state = seatSession.state;
  const mine = seatSession.private || {};
  const seat = seatSession.seat;
  const info = ingredientTable(state);
  const me = state.players[seat];
  const actions = mine.legal_actions || [];
  root.replaceChildren(el("div.exp", { id: "exp", dataset: { seat: String(seat) } },
    el("h2", {}, `${me.name}'s secrets`),
    el("p.exp-part", { id: "exp-parts" }, `Elixir of life: ${(mine.elixir_parts || []).length} of 3 parts`),
    turnLine(state, seat, seatSession.players, actions, seatSession.prompt),
    brewCards(mine, actions, ctx, seat),
    me.in_use.length ? el("div", {}, el("div.panel-title", {}, "In use"), me.in_use.map(timer)) : null,
    formulaTable(mine, info, ctx, seat, () => render(root, seatSession, ctx)),
    hired(mine),
    news(mine)));
  document.body.dataset.version = String(seatSession.version);
}

function turnLine(state, seat, names, actions, prompt) {
  if (state.winner !== null && state.winner !== undefined) return null;      // the seat page says who won, first
  const p = state.pending;
  if (p && p.seat === seat) return el("p.ex-ask", { id: "exp-ask" }, cap(p.words) + ".");
  if (actions.some((a) => a.type === "drink")) return el("p.ex-ask", { id: "exp-ask" }, "Your turn: drink a potion here, or end the turn on the tablet.");
  if (state.turn === seat) return el("p.ex-ask", { id: "exp-ask" }, "Your turn: the tablet shows the steps.");
  return el("p.ex-phone", {}, prompt || "");
}

function brewCards(mine, actions, ctx, seat) {
  const cards = mine.brews || [];
  const verbs = { drink: "Drink it", give: "Put it in the dead-end street", accept: "Sell it to Clotilda" };
  const box = el("div.exp-brews", { id: "exp-brews" }, el("div.panel-title", {}, `Your brew cards (${cards.length})`));
  if (!cards.length) box.append(el("p.ex-none", {}, "No brew cards yet: brew in your laboratory."));
  const seen = new Set();
  for (const card of cards) {
    const first = !seen.has(card.id);
    seen.add(card.id);
    const mineNow = first ? actions.filter((a) => a.brew === card.id && verbs[a.type]) : [];
    box.append(el("div.exp-brew", { dataset: { brew: card.id } },
      el("b", {}, cap(card.name)), el("small", {}, card.effect),
      el("div.ex-row", {}, mineNow.map((a) => el(`button.big-button${a.type === "drink" ? ".go" : ""}`,
        { type: "button", dataset: { action: a.type, brew: a.brew },
          onclick: () => ctx.act({ ...a, seat }) }, verbs[a.type])))));
  }
  return box;
}

function formulaTable(mine, info, ctx, seat, redraw) {
  const squares = mine.formula_table || [];
  const herbs = [...new Set(squares.map((f) => f.herb))];
  const specials = [...new Set(squares.map((f) => f.special))];
  // a plain grid of buttons (each names its herb and product), not an ARIA grid widget
  const grid = el("div.exp-grid", { id: "exp-formulas" }, el("span"),
    specials.map((s) => el("span.exp-head", {}, chip(s, info, 1, "tiny"))));
  for (const h of herbs) {
    grid.append(el("span.exp-head", {}, chip(h, info, 1, "tiny")));
    for (const s of specials) {
      const f = squares.find((x) => x.herb === h && x.special === s);
      const label = f.learnt ? cap(f.learnt_name || f.learnt.replace(/_/g, " ")) : f.note ? `✎ ${f.note}` : "?";
      grid.append(el(`button.exp-cell${f.learnt ? ".learnt" : f.note ? ".noted" : ""}`,
        { type: "button", dataset: { pair: f.pair }, "aria-label": `${h} and ${s}: ${label}`,
          onclick: () => { editing = f.pair; redraw(); } }, label));
    }
  }
  const box = el("div", {}, el("div.panel-title", {}, "Your formula table (green: learnt by brewing)"), grid,
    legend(info, "exp-legend"));
  if (editing) {
    const f = squares.find((x) => x.pair === editing);
    const input = el("input.exp-input", { type: "text", maxlength: "40", value: f?.note || "", "aria-label": "your note" });
    box.append(el("div.exp-note", { id: "exp-note" }, el("span", {}, `Note for ${editing.replace("+", " + ").replace(/_/g, " ")}: `), input,
      el("button.big-button.go", { type: "button", dataset: { action: "note" }, onclick: () => {
        ctx.act({ type: "note", seat, pair: editing, text: input.value });
        editing = null;
      } }, "Write"),
      el("button.big-button.quiet", { type: "button", onclick: () => { editing = null; redraw(); } }, "Close")));
  }
  return box;
}

function hired(mine) {
  if (!(mine.hired || []).length) return null;
  return el("div", {}, el("div.panel-title", {}, "Hired Unknowns (play them from the tablet on your turn)"),
    mine.hired.map((h) => el("div.exp-brew", {}, el("b", {}, h.name), el("small", {}, h.text))));
}

function news(mine) {
  const lines = mine.news || [];
  if (!lines.length) return null;
  return el("div", {}, el("div.panel-title", {}, "Only you know"),
    el("ul.exp-news", { id: "exp-news" }, lines.slice().reverse().map((t) => el("li", {}, cap(t)))));
}
