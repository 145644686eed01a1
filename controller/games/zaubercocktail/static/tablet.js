// Zaubercocktail on the tablet: the magic path, the recipe card, dropouts, hidden
// lay-downs, tie-break draws and the results of every round.
import { fill, playerMarks } from "/static/js/ui.js";
import { getJSON } from "/static/js/net.js";
import { el, kindBadge, setLine, signed } from "./common.js";
import { mayEnter, openEntry, syncEntry } from "./entry.js";
import { openHelper } from "./helper.js";
import { closeModal, modalKind } from "./modal.js";

const ROW = 13;                 // fields per row of the drawn path (3 rows for a 40-field path)
let cards = null;               // recipe card faces (physical deck), fetched once
let last = null;                // the last render's arguments, to redraw when cards arrive
let lastGame = null;
let falseTrades = null;         // "round:count" of false trades drawn last, to cue a new "Stop!"

export function render(root, session, ctx) {
  last = [root, session, ctx];
  const view = session.state;
  const names = session.players || [];
  const marks = playerMarks(names);
  const legal = session.legal_actions || [];
  document.body.dataset.phase = view.phase;
  if (lastGame !== session.id) { lastGame = session.id; closeModal(); falseTrades = null; }
  // a "Stop!" (false trade) just tapped, here or on another tablet: everyone hears it
  const trades = `${view.round?.number}:${view.round?.false_traders?.length ?? 0}`;
  if (falseTrades !== null && trades !== falseTrades && trades.split(":")[0] === falseTrades.split(":")[0]
      && Number(trades.split(":")[1]) > Number(falseTrades.split(":")[1])) ctx.cue?.("shout");
  falseTrades = trades;
  syncEntry(session);
  if (modalKind() === "helper" && view.phase === "over") closeModal();

  const stone = (seat, extra = "") => el(`span.disk.seat-${seat}${extra ? "." + extra : ""}`,
    { title: names[seat], "aria-label": `${names[seat]}'s stone`, dataset: { seat: String(seat) } }, marks[seat]);
  const helpers = { view, names, marks, legal, ctx, session, stone };

  root.classList.add("zc");
  // after scoring the results come first (they say every move); the path follows
  const results = shownResults(helpers);
  fill(root,
    el("div.zc-top", {}, roundBox(helpers), recipeBox(helpers), boardBox(helpers), el("div.zc-undo", {}, ctx.undo)),
    actionBar(helpers),
    view.phase === "over" ? standingsBox(helpers) : null,
    results ? [results, pathBox(helpers)] : [pathBox(helpers), playersBox(helpers)],
    historyBox(helpers));
}

// --- the top row -------------------------------------------------------------------------
function roundBox({ view }) {
  const r = view.round;
  if (view.phase === "over") {
    const rounds = view.outcome?.rounds_scored ?? view.rounds_before ?? view.history.length;
    return el("section.zc-round.panel", { "aria-label": "Round" },
      el("div.zc-round-no", {}, "Game over"),
      el("div.zc-deal", {}, `${rounds} round${rounds === 1 ? "" : "s"} scored`));
  }
  const deal = view.phase === "scored" ? view.next_deal : r.deal;
  const next = view.phase === "scored" ? `Next: round ${r.number + 1}` : `Round ${r.number}`;
  return el("section.zc-round.panel", { "aria-label": "Round" },
    el("div.zc-round-no", {}, next),
    el("div.zc-deal", {}, "Deal ", el("b", {}, String(deal)), " cards each"),
    el("div.zc-deal-rule", {}, "round 1: 10 · later rounds: 5"));
}

function recipeBox({ view }) {
  const card = view.round.recipe;
  const deck = view.recipe_deck;
  const left = el("div.zc-deck-left", {}, `${deck.remaining} card${deck.remaining === 1 ? "" : "s"} left` +
    (deck.mode === "physical" ? " · printed deck" : ""));
  if (!card) {
    return el("section.zc-recipe.panel.face-down", { "aria-label": "Recipe card" },
      el("div.zc-card-title", {}, "Recipe card"), el("div.zc-card-back", {}, "face down"), left);
  }
  if (card.magic_bolt) {
    return el("section.zc-recipe.panel.bolt", { "aria-label": "Recipe card" },
      el("div.zc-card-title", {}, "Revealed"), el("div.zc-bolt", {}, "⚡ Magic Bolt"), left);
  }
  const places = ["1st", "2nd", "3rd", "4th"];
  return el("section.zc-recipe.panel", { "aria-label": `Recipe card ${card.name}`, dataset: { card: card.id } },
    el("div.zc-card-title", {}, "Recipe card"),
    el("div.zc-values", {},
      card.forward.map((f, i) => el("span.zc-fwd", {}, el("b", {}, `+${f}`), el("small", {}, places[i]))),
      el("span.zc-back", {}, el("b", {}, `−${card.back}`), el("small", {}, "lowest"))),
    left);
}

function boardBox({ view, stone }) {
  const r = view.round;
  const slots = [];
  slots.push(el("span.zc-slot.ring", { title: "The ring: first to stop trading" },
    r.ring !== null && r.ring !== undefined ? stone(r.ring, "small") : el("span.zc-empty", {}, "○")));
  for (let i = 0; i < r.stones_to_end - 1; i++) {
    const s = r.goblet[i];
    slots.push(el("span.zc-slot.goblet", { title: "The goblet" },
      s !== undefined ? stone(s, "small") : el("span.zc-empty", {}, "▽")));
  }
  return el("section.zc-board.panel", { "aria-label": "Ring and goblet" },
    el("div.zc-card-title", {}, "Ring ○ · Goblet ▽"),
    el("div.zc-slots", {}, slots),
    el("div.zc-deck-left", {}, `ring holder: +${view.ring_bonus} if in the best ${view.ring_best}, else −${view.ring_bonus}`));
}

// --- what to do now ------------------------------------------------------------------------
/** What to do now, and beside it the shell's "what just happened" line (the lay-downs and
 *  moves in words), in the row's free room so the players' buttons stay on the screen. */
function actionBar(h) {
  const bar = actionRow(h);
  const told = h.ctx.told;
  if (!told) return bar;
  const room = bar.querySelector(".zc-pick-title, .zc-tiebreak > .zc-say");
  if (room?.classList.contains("zc-say")) {         // the tie: beside its question, above the draws
    const row = el("div.zc-say-row");
    room.replaceWith(row);
    row.append(room, told);
  } else (room || bar).append(told);
  return bar;
}

function actionRow(h) {
  const { view, legal, ctx, session, names, stone } = h;
  const bar = el("section.zc-actions", { "aria-label": "What to do now" });
  const reveals = legal.filter((a) => a.type === "reveal");
  if (view.phase === "over") {
    const winners = (view.outcome?.winners || []);
    const why = view.outcome?.reason === "magic_bolt" ? "The Magic Bolt is out!" : "A stone reached the target field!";
    fill(bar, el("div.zc-winner#zc-winner", {}, el("span.zc-why", {}, why),
      winners.map((s) => stone(s, "big")),
      el("b", {}, `${winners.map((s) => names[s]).join(" and ")} ${winners.length > 1 ? "win" : "wins"}!`),
      el("span", {}, ` on field ${view.players[winners[0]]?.field}`)));
    return bar;
  }
  if (reveals.length && view.recipe_deck.mode === "digital") {
    const first = view.phase === "reveal";
    fill(bar,
      el("button.big-button.go.zc-main#zc-reveal", { type: "button", onclick: () => ctx.perform(reveals[0]) },
        first ? "Everyone has looked: reveal the recipe card" : "Dealt 5 each: reveal the next recipe card"),
      first && view.round.number === 1 && session.version === 0
        ? el("button.big-button.quiet#zc-use-printed", { type: "button", onclick: () => restartWithDeck(session, ctx, "physical") },
          "Printed recipe cards?") : null);
    return bar;
  }
  if (reveals.length) {
    const undecided = view.phase === "reveal" && view.round.number === 1 && session.version === 0;
    fill(bar, el("div.zc-pick", {}, el("div.zc-pick-title", {}, "Tap the recipe card just turned over:",
      undecided ? el("button.big-button.quiet#zc-use-digital", { type: "button",
        onclick: () => restartWithDeck(session, ctx, "digital") }, "Let the tablet shuffle instead") : null),
      el("div.zc-pick-cards", {}, reveals.map((a) => {
        const face = cards?.find((c) => c.id === a.card);
        return el(`button.zc-pick-card${face?.magic_bolt ? ".bolt" : ""}`, { type: "button",
          dataset: { card: a.card }, onclick: () => ctx.perform(a) },
          face ? (face.magic_bolt ? "⚡ Magic Bolt" : face.name) : a.card.replace("recipe_", "card "));
      }))));
    if (!cards) loadCards();
    return bar;
  }
  if (view.phase === "trading") {
    const left = view.round.stones_to_end - view.round.goblet.length - (view.round.ring === null ? 0 : 1);
    fill(bar, el("p.zc-say", {}, view.round.ring === null
      ? "Trade! Tap “Done trading ○” for the first player who stops: their magic stone goes in the ring."
      : `Trading goes on. ${left} more stop${left === 1 ? "s" : ""} and the round ends (goblet).`));
    return bar;
  }
  if (view.phase === "laying") {
    const waiting = view.players.filter((p) => !p.entered).map((p) => p.name);
    const reveal = legal.find((a) => a.type === "reveal_entries");
    fill(bar,
      // a replay shows who had laid down, not the live table's button
      ctx.replay ? null : el("button.big-button.go.zc-main#zc-reveal-entries", { type: "button", disabled: !reveal,
        onclick: () => reveal && ctx.perform(reveal) }, "Reveal all lay-downs"),
      el("p.zc-say", {}, waiting.length ? `Waiting for ${waiting.join(", ")}.` : "Everyone has entered."));
    return bar;
  }
  if (view.phase === "tiebreak") {
    const kinds = [...view.kinds, { id: view.black_something.id, name: view.black_something.name, single_card_value: null }];
    fill(bar, el("div.zc-tiebreak", {},
      el("p.zc-say", {}, "A tie! Each tied player draws a card from the supply pile. Which ingredient?"),
      view.players.filter((p) => p.to_draw).map((p) => el("div.zc-draw-row", { dataset: { seat: String(p.seat) } },
        stone(p.seat), el("b.zc-draw-name", {}, p.name),
        el("div.zc-draw-kinds", {}, kinds.map((k) => {
          const action = legal.find((a) => a.type === "draw" && a.seat === p.seat && a.kind === k.id);
          return el("button.zc-draw", { type: "button", disabled: !action, dataset: { kind: k.id },
            title: k.single_card_value ? `worth ${k.single_card_value}` : "draw again",
            onclick: () => action && ctx.perform(action) }, kindBadge(k.id), el("span", {}, k.name));
        }))))));
    return bar;
  }
  if (view.phase === "scored") return bar;
  return bar;
}

async function loadCards() {
  try {
    cards = await getJSON("/api/v1/zaubercocktail/cards");
    if (last) render(...last);
  } catch (err) { console.warn("recipe cards not loaded", err); }
}

/** Before anything happened: start the same players again with the other recipe deck. */
async function restartWithDeck(session, ctx, deck) {
  const body = await ctx.send("/api/v1/session",
    { game: "zaubercocktail", players: session.players, options: { deck } });
  if (body) ctx.toast(deck === "physical" ? "Now tap the card you turn over each round." : "The tablet shuffles the recipe cards.");
}

// --- the magic path -------------------------------------------------------------------------
function pathBox({ view, stone }) {
  const { start, target } = view.path;
  const at = new Map();
  for (const p of view.players) at.set(p.field, [...(at.get(p.field) || []), p.seat]);
  const stonesAt = (f) => (at.get(f) || []).map((s) => stone(s, "path-stone"));
  const fields = [];
  for (let f = start + 1; f < target; f++) {
    const n = (at.get(f) || []).length;
    fields.push(el(`div.zc-field${n ? ".taken" : ""}${n > 2 ? ".crowded" : n > 1 ? ".pair" : ""}${f % 5 === 0 ? ".fifth" : ""}`,
      { dataset: { field: String(f) } }, el("span.zc-field-no", {}, String(f)), el("span.zc-stones", {}, stonesAt(f))));
  }
  const grid = el("div.zc-fields", { style: `grid-template-columns: repeat(${ROW}, minmax(0, 1fr))` }, fields);
  const compact = view.phase === "scored" || view.phase === "over";
  return el(`section.zc-path.panel${compact ? ".compact" : ""}`, { "aria-label": "The magic path" },
    el("div.zc-field.zc-start", { dataset: { field: String(start) } }, el("span.zc-field-no", {}, "Start"),
      el("span.zc-stones", {}, stonesAt(start))),
    grid,
    el("div.zc-field.zc-target", { dataset: { field: String(target) } }, el("span.zc-field-no", {}, `Target ${target}`),
      el("span.zc-stones", {}, stonesAt(target))));
}

// --- the players during a round --------------------------------------------------------------
function playersBox(h) {
  const { view, legal, ctx, session, stone } = h;
  const dropouts = [view.round.ring, ...view.round.goblet].filter((s) => s !== null && s !== undefined);
  return el("section.zc-players", { "aria-label": "Players", style: `grid-template-columns: repeat(${view.players.length}, minmax(0, 1fr))` },
    view.players.map((p) => {
      const drop = legal.find((a) => a.type === "drop_out" && a.seat === p.seat);
      const stop = legal.find((a) => a.type === "false_trader" && a.seat === p.seat);
      // a replayed step (ctx.replay) opens no entry or helper: they belong to the live game
      const enter = mayEnter(view, p.seat) && view.phase !== "over" && !ctx.replay;
      const order = dropouts.indexOf(p.seat);
      const status = p.dropped_out === "ring" ? el("span.zc-status.ring", {}, "○ ring (1st out)")
        : p.dropped_out === "goblet" ? el("span.zc-status.goblet", {}, `▽ goblet (${order + 1}${order === 1 ? "nd" : "rd"} out)`)
        : view.phase === "trading" ? el("span.zc-status", {}, "trading") : null;
      return el(`article.zc-player${p.dropped_out ? ".out" : ""}`, { dataset: { seat: String(p.seat) } },
        el("div.zc-player-head", {}, stone(p.seat, "big"),
          el("div.zc-player-id", {}, el("div.zc-player-name", {}, p.name),
            el("div.zc-player-field", {}, `field ${p.field}`))),
        el("div.zc-player-state", {}, status,
          p.entered && view.phase !== "scored" ? el("span.zc-status.entered", {}, "✓ entered (hidden)") : null),
        drop ? el("button.big-button.zc-drop", { type: "button", dataset: { action: "drop_out", seat: String(p.seat) },
          onclick: () => ctx.perform(drop) }, dropouts.length ? "Done trading ▽" : "Done trading ○") : null,
        enter ? el(`button.big-button.zc-enter${p.entered ? ".done" : ".go"}`, { type: "button",
          dataset: { action: "enter", seat: String(p.seat) },
          onclick: () => openEntry(session, p.seat, ctx, stone(p.seat, "big")) },
          p.entered ? "Change entry" : "Enter lay-down") : null,
        el("div.zc-player-tools", {},
          stop ? el("button.zc-tool.zc-stop", { type: "button", dataset: { action: "false_trader", seat: String(p.seat) },
            title: `${p.name} traded falsely: one field back`, onclick: () => ctx.perform(stop) }, "False trade −1") : null,
          view.phase !== "over" && !ctx.replay ? el("button.zc-tool.zc-help", { type: "button", dataset: { action: "helper", seat: String(p.seat) },
            title: `${p.name}'s private lay-down helper`, onclick: () => openHelper(session, p.seat, ctx, stone(p.seat, "big")) },
            "Helper") : null));
    }));
}

// --- results ----------------------------------------------------------------------------------
const WHY = { recipe: "recipe card", ring: "ring", laid_nothing: "laid nothing" };

function tieNote(r, draws, kindNames) {
  if (r.tie_break === "cards") return "tie on points: more cards decide";
  if (r.tie_break === "shared") return "tie: place shared";
  if (r.tie_break === "draw") {
    const mine = draws.filter((d) => d.seat === r.seat).map((d) => kindNames[d.kind] || d.kind);
    return `tie: drew ${mine.join(", then ") || "a card"}`;
  }
  return null;
}

export function resultsBox(h, results, rnd) {
  const { view, legal, ctx, stone } = h;
  const kindNames = Object.fromEntries([...view.kinds, view.black_something].map((k) => [k.id, k.name]));
  const rows = [...results].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  return el("section.zc-results.panel", { "aria-label": "Results of the round", tabindex: "0" },
    el("div.zc-results-title", {}, `Round ${rnd.number} – ${rnd.recipe?.name || ""}`),
    el("table.zc-results-table", {},
      el("thead", {}, el("tr", {}, ["Place", "Player", "Laid down", "Points", "Moves", "Field"].map((t) => el("th", {}, t)))),
      el("tbody", {}, rows.map((r) => {
        const stop = legal.find((a) => a.type === "false_trader" && a.seat === r.seat);
        return el(`tr.zc-result${r.moved > 0 ? ".up" : r.moved < 0 ? ".down" : ""}`, { dataset: { seat: String(r.seat), to: String(r.to) } },
          el("td.zc-rank", {}, `${r.rank}${r.shared_rank ? "=" : "."}`),
          el("td.zc-who", {}, stone(r.seat), el("span", {}, r.name),
            r.ring ? el("span.zc-mini", { title: "ring" }, "○") : r.goblet ? el("span.zc-mini", { title: "goblet" }, "▽") : null),
          el("td.zc-laid", {}, r.laid_nothing ? el("span.zc-nothing", {}, "laid nothing")
            : el("div.zc-sets", {}, r.sets.map(setLine)),
            tieNote(r, rnd.draws || [], kindNames) ? el("div.zc-tie", {}, tieNote(r, rnd.draws || [], kindNames)) : null),
          el("td.zc-points", {}, el("b", {}, String(r.points)), el("small", {}, `${r.cards_played} cards`)),
          el("td.zc-moves", {}, r.moves.length ? r.moves.map((m) => el("span.zc-move", {}, `${WHY[m.why] || m.why} ${signed(m.fields)}`))
            : el("span.zc-move.none", {}, "stays")),
          el("td.zc-field-move", {}, el("span.zc-from", {}, `${r.from} → `), el("b", {}, String(r.to)),
            stop && view.phase !== "over" ? el("button.zc-tool.zc-stop", { type: "button", title: `${r.name} traded falsely: one field back`,
              dataset: { action: "false_trader", seat: String(r.seat) }, onclick: () => ctx.perform(stop) }, "−1") : null));
      }))));
}

/** The end: every player's overall place, from the engine's ranking (furthest stone first;
 *  the rulebook has no further tie-break, so stones level share a place). */
function standingsBox({ session, stone, ctx }) {
  const ranking = session.outcome?.ranking || [];
  const best = ranking[0]?.score ?? 0;
  const shared = (place) => ranking.filter((r) => r.place === place).length > 1;
  return el("section.zc-standings.panel", { id: "zc-standings", "aria-label": "Final standings" },
    el("h2.zc-results-title", {}, "Final standings"),
    el("ol.zc-standings-list", {}, ranking.map((r) => el(`li.zc-standing${r.place === 1 ? ".won" : ""}`,
      { dataset: { seat: String(r.seat), place: String(r.place) } },
      el("span.zc-rank", {}, `${r.place}${shared(r.place) ? "=" : "."}`),
      stone(r.seat), el("span.zc-standing-name", {}, session.players[r.seat]),
      el("span.zc-standing-field", {}, `field ${r.score}`),
      el("span.zc-standing-gap", {}, r.score === best ? (shared(r.place) ? "shares the win" : "winner")
        : `${best - r.score} behind`)))),
    el("p.zc-hint", {}, "Stones level on the path share a place: the rulebook has no further tie-break."),
    ctx.scores?.());             // the shell's score sheet: every round, and the chart
}

/** After scoring (and at the end) the results replace the players' buttons. */
function shownResults(h) {
  const { view } = h;
  if (view.phase === "scored" && view.round.results) return resultsBox(h, view.round.results, view.round);
  if (view.phase !== "over") return null;
  if (view.round.results) return resultsBox(h, view.round.results, view.round);
  const prev = view.history[view.history.length - 1];
  return prev?.results ? resultsBox(h, prev.results, prev) : null;
}

// Earlier rounds: the live message carries only the last one (and the count) while the
// game runs; the whole list is fetched when the box is opened, once per new round.
let earlier = { key: null, rounds: [] };
let historyOpen = false;

function historyBox(h) {
  const { view, session } = h;
  const count = view.rounds_before ?? view.history.length;
  if (!count) return null;
  const key = `${session.id}:${count}`;
  if (view.history.length === count) earlier = { key, rounds: view.history };
  const list = el("div.zc-history-list", {}, earlier.key === key ? roundLines(h, earlier.rounds) : []);
  // for any moment, not a step's control: it may lie below the fold (tests/e2e/layout_checks.py)
  const box = el("details.zc-history.panel", { open: historyOpen, dataset: { anytime: "yes" } },
    el("summary", {}, `Earlier rounds (${count})`), list);
  const load = async () => {
    if (earlier.key === key) return;
    const rounds = await getJSON("/api/v1/zaubercocktail/history");
    earlier = { key, rounds };
    fill(list, roundLines(h, rounds));
  };
  box.addEventListener("toggle", () => { historyOpen = box.open; if (box.open) load(); });
  return box;
}

function roundLines({ names }, rounds) {
  return [...rounds].reverse().map((r) => el("div.zc-history-round", {},
    el("b", {}, `Round ${r.number} · ${r.recipe?.name || "–"}`),
    el("span", {}, r.ring !== null ? ` · ring: ${names[r.ring]}` : ""),
    el("div.zc-history-moves", {}, (r.results || []).slice().sort((a, b) => a.rank - b.rank)
      .map((x) => el("span", {}, `${x.rank}. ${x.name} ${x.points} pts ${x.from}→${x.to}`)))));
}
