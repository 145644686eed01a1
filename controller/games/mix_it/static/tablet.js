// Mix It at the table: the two monsters big, the card moved last marked (the next player
// may not move it), whose turn, the deck, cookies per player, every "MONSTER!" to check
// and confirm, and the phone links. Hands and goals live on the phones (phone.js).
// Drawn by app.js as render(root, session, ctx); the guide is docs/mix-it-tablet.md.
import { el, playerMarks } from "/static/js/ui.js";
import { showSeats } from "/static/js/seats.js";
import { cookies, goalCard, learn, partCard } from "./cards.js";

const PARTS = ["eyes", "mouth", "feet"];

/** A player's chip: the seat's colour and the same letter as the score's (the monsters are
 *  the ones numbered 1 and 2). */
const seatChip = (seat, names) => el(`span.seat-chip.seat-${seat}`, { "aria-hidden": "true" }, playerMarks(names)[seat]);

export function render(root, session, ctx) {
  const state = session.state;
  learn(state);
  const names = session.players;
  const moves = new Map(session.legal_actions.filter((a) => a.type === "move")
    .map((a) => [`${a.monster}-${a.part}`, a]));
  root.replaceChildren(el("div.mi", { id: "mi", dataset: { variant: state.variant, turn: state.turn } },
    el("section.mi-table", { "aria-label": "the two monsters" },
      state.monsters.map((m, i) => monster(m, i, state, moves, ctx, names))),
    el("aside.mi-side", {},
      claimsPanel(state, session, ctx),
      turnPanel(state, names, ctx, session),
      state.outcome ? null : playersPanel(state, names),      // at the end the standings say it
      el("div.mi-buttons", {},
        ctx.replay ? null           // a replay: neither is the replayed game's (the bar leads back)
        : state.outcome             // the game is over: no more secrets to look at, a rematch instead
          ? el("button.big-button.go", { type: "button", id: "mi-new-game",
              onclick: () => document.dispatchEvent(new CustomEvent("potionpi:new-game")) }, "New game")
          : el("button.big-button", { type: "button", id: "mi-phones", onclick: () => showSeats() }, "Phone links"),
        ctx.undo),
      // the shell's score panel under the ranking and the rematch, so "New game" stays on the screen
      state.outcome ? ctx.scores?.() : null),
    el("div.mi-last", { id: "mi-last" }, ctx.told)));      // the shell's "what just happened" line
}

function monster(m, index, state, moves, ctx, names) {
  // at the end nothing is locked any more: no stale "not for ..." on the winner screen
  const locked = !state.outcome && state.locked && state.locked.monster === index ? state.locked : null;
  return el("div.mi-monster.panel", { dataset: { monster: index } },
    el("h2.mi-monster-title", {}, `Monster ${m.number}`),
    PARTS.map((part) => {
      const slot = m.slots[part];
      const move = moves.get(`${index}-${part}`);
      const isLocked = locked && locked.part === part && slot.top && slot.top.id === locked.card.id;
      const face = partCard(slot.top, { big: true, extra: isLocked ? "locked" : "" });
      const badges = el("div.mi-badges", {},
        move ? el("span.mi-move-hint", {}, index === 0 ? "tap: move →" : "← tap: move") : null,
        slot.depth > 1 ? el("span.mi-depth", { title: "cards in this stack" }, `${slot.depth} cards`) : null,
        isLocked ? el("span.mi-lock", {}, `⊘ moved by ${names[locked.by]}: not for ${names[state.turn]}`) : null);
      const label = el("span.mi-slot-label", {}, part);
      if (move) {
        return el("button.mi-slot.movable", { type: "button", dataset: { part, move: `${index}-${part}` },
          "aria-label": `move the ${part} of Monster ${m.number} to Monster ${2 - index}`,
          onclick: () => ctx.perform(move) }, label, face, badges);
      }
      return el("div.mi-slot", { dataset: { part } }, label, face, badges);
    }));
}

function turnPanel(state, names, ctx, session) {
  const over = state.outcome;
  const places = session.legal_actions.filter((a) => a.type === "place");   // Express: the face-up deck
  return el("div.mi-turn.panel", {},
    over ? el("p.mi-winner", { id: "mi-winner" }, `★ ${over.message}`) : null,
    over ? standings(session, names)
      : el("p.mi-whose", {}, seatChip(state.turn, names), ` ${names[state.turn]}'s turn`),
    el("div.mi-deck", { id: "mi-deck" },
      el("span.mi-pile", {}, el("b", {}, String(state.deck.count)), state.deck.count === 1 ? " card in the deck" : " cards in the deck"),
      state.variant === "classic" ? el("span.mi-pile", {}, el("b", {}, String(state.goal_pile)), " goal cards") : null),
    state.deck.top ? el("div.mi-deck-top", {}, el("span.panel-title", {}, "Face up:"), partCard(state.deck.top),
      places.map((a) => el("button.big-button.go", { type: "button", dataset: { place: a.monster },
                                                     onclick: () => ctx.perform(a) }, `Place on Monster ${a.monster + 1}`)))
      : null,
    over ? null : el("p.mi-rule", {}, state.variant === "express"
      ? "Express: place from the face-up deck or move a card. Build your goal first!"
      : `Place, move, or change goal once. ${state.cookies_to_win} cookies win.`));
}

/** The end: every player's place from the engine's ranking (cookies; in Express, who built
 * the goal), ties marked "=". */
function standings(session, names) {
  const ranking = session.outcome.ranking || [];
  const express = session.state.variant === "express";
  return el("ol.mi-standings", { id: "mi-standings", "aria-label": "final standings" }, ranking.map((r) => {
    const shared = ranking.filter((x) => x.place === r.place).length > 1;
    return el(`li.mi-standing${r.place === 1 ? ".won" : ""}`, { dataset: { seat: r.seat } },
      el("b.mi-place", {}, `${r.place}${shared ? "=" : ""}`), seatChip(r.seat, names),
      el("span.mi-player-name", {}, names[r.seat]),
      el("span.mi-standing-score", {}, express ? (r.score ? "built the goal" : "—")
        : `${r.score} cookie${r.score === 1 ? "" : "s"}`));
  }));
}

function claimsPanel(state, session, ctx) {
  if (!state.claims.length) return null;
  const confirm = session.legal_actions.find((a) => a.type === "confirm");
  return el("div.mi-claims.panel", { id: "mi-claims", role: "alert" },
    el("h2.mi-shout", {}, "MONSTER!"),
    state.claims.map((c) => el("div.mi-claim", { dataset: { seat: c.seat } },
      el("p", {}, seatChip(c.seat, session.players), ` ${c.name}'s goal, on Monster ${c.monster + 1}`,
        c.star ? el("b.mi-star-claim", {}, " ★ all stars") : null),
      goalCard(c.goal))),
    confirm ? el("button.big-button.go", { type: "button", id: "mi-confirm", onclick: () => ctx.perform(confirm) },
      "It is right: cookie!") : null);
}

function playersPanel(state, names) {
  return el("div.mi-players.panel", { id: "mi-players" },
    el("div.panel-title", {}, "Cookies"),
    state.players.map((p) => el("div.mi-player", { dataset: { seat: p.seat,
      turn: p.seat === state.turn && !state.outcome ? "yes" : "no",
      won: state.outcome?.winners.includes(p.seat) ? "yes" : "no" } },
      seatChip(p.seat, names),
      el("span.mi-player-name", {}, p.name),
      cookies(p),
      p.changed_goal ? el("span.mi-note", { title: "has changed goal" }, "⇄") : null,
      p.claiming ? el("span.mi-note.shout", {}, "MONSTER!") : null,
      state.outcome?.winners.includes(p.seat) ? el("span.mi-note.shout", {}, "★ won") : null)));
}
