// A Mix It player's own phone: my goal, my hand, the two monsters with my legal moves
// highlighted, CHANGE goal, and the MONSTER! button that lights up when my goal shows.
// Loaded by the generic seat page (/seat/<token>) as render(root, seatSession, ctx).
import { el } from "/static/js/ui.js";
import { cookies, goalCard, learn, partCard } from "./cards.js";

const PARTS = ["eyes", "mouth", "feet"];
let chosen = null;          // the hand card picked to place (kept across redraws)

export function render(root, session, ctx) {
  const state = session.state;
  const mine = session.private;
  learn(state);
  const acts = mine.legal_actions || [];
  const claim = acts.find((a) => a.type === "claim");
  const places = acts.filter((a) => a.type === "place");
  const moves = new Map(acts.filter((a) => a.type === "move").map((a) => [`${a.monster}-${a.part}`, a]));
  const change = acts.find((a) => a.type === "change_goal");
  const me = state.players[session.seat];
  const myTurn = state.turn === session.seat && !state.outcome;
  if (chosen && !places.some((a) => a.card === chosen)) chosen = null;
  const hand = state.variant === "express" ? (state.deck.top ? [state.deck.top] : []) : mine.hand;
  const prompt = document.querySelector("#prompt");
  if (prompt) prompt.textContent = `${me.name} · Mix It`;
  root.replaceChildren(el("div.mi-phone", { id: "mi-phone", dataset: { myTurn: myTurn ? "yes" : "no" } },
    el("button.mi-shout-button", { type: "button", id: "mi-claim", disabled: !claim,
      dataset: { lit: claim ? "yes" : "no" }, onclick: () => claim && ctx.act({ type: "claim" }) },
      mine.claimed ? "Shouted: show your card!" : "MONSTER!"),
    el("section.mi-my-goal.panel", {},
      el("div.panel-title", {}, "My secret goal", mine.showing ? el("b.mi-showing", {}, ` — on Monster ${mine.showing.monster + 1}!`) : null),
      goalCard(mine.goal)),
    el("p.mi-status", { id: "mi-status" }, el("span", {}, state.outcome ? "" : myTurn
      ? (state.claims.length ? "Wait: the table checks a MONSTER!" : "Your turn: place, move or change goal.")
      : `${state.players[state.turn].name}'s turn.`), el("span.mi-my-cookies", {}, "Cookies ", cookies(me))),
    el("section.mi-hand.panel", {},
      el("div.panel-title", {}, state.variant === "express" ? "Face-up deck" : "My hand"),
      el("div.mi-hand-cards", {}, hand.map((c) => {
        const can = places.some((a) => a.card === c.id);
        return el("button.mi-hand-card", { type: "button", disabled: !can,
          dataset: { card: c.id, chosen: chosen === c.id ? "yes" : "no" },
          onclick: () => { chosen = chosen === c.id ? null : c.id; render(root, session, ctx); } }, partCard(c));
      })),
      chosen ? el("div.mi-place-row", {}, places.filter((a) => a.card === chosen).map((a) =>
        el("button.big-button.go", { type: "button", dataset: { place: a.monster },
          onclick: () => { chosen = null; ctx.act({ type: "place", card: a.card, monster: a.monster }); } },
          `Place on Monster ${a.monster + 1}`))) : null),
    change ? el("button.big-button", { type: "button", id: "mi-change", onclick: () => ctx.act({ type: "change_goal" }) },
      "Change goal (only once)") : null,
    el("section.mi-mini-table", {}, state.monsters.map((m, i) => el("div.mi-mini.panel", { dataset: { monster: i } },
      el("div.panel-title", {}, `Monster ${m.number}`),
      PARTS.map((part) => {
        const move = moves.get(`${i}-${part}`);
        const top = m.slots[part].top;
        const target = chosen && places.some((a) => a.card === chosen && a.monster === i) &&
          (state.variant === "express" ? state.deck.top?.part : mine.hand.find((c) => c.id === chosen)?.part) === part;
        const locked = state.locked && state.locked.monster === i && state.locked.part === part;
        const face = partCard(top, { extra: `${target ? "target" : ""}${locked ? " locked" : ""}`.trim().replace(" ", ".") });
        return move
          ? el("button.mi-mini-slot.movable", { type: "button", dataset: { move: `${i}-${part}` },
              onclick: () => ctx.act({ type: "move", monster: i, part }) }, face,
              el("span.mi-move-hint", {}, i === 0 ? "move →" : "← move"))
          : el("div.mi-mini-slot", { dataset: { part } }, face, locked ? el("span.mi-lock", { title: "moved last: locked for the next player" }, "⊘") : null);
      })))),
));
}
