// Im großen Zauberwald at the table: the master's tile, direction and turn (with countdown
// and STOP), the search timer, basket checks with every penalty explained, the recipe cards.
// Drawn by app.js as render(root, session, ctx); served from /games/zauberwald/ beside its
// modules (imported relatively); the guide is docs/zauberwald-tablet.md.
import { el } from "/static/js/ui.js";
import { askPin, isUnlocked } from "/static/js/pinpad.js";
import { chipGrid, chipRow, learnPalette, total, words } from "./chips.js";
import {
  antsWords, cancelCountdown, countingDown, dirArrow, dirWords, floor, floorPanel, followFloor, seedFloor,
  hasMotor, moving, pollSoon, startCountdown, unmount as unmountFloor,
} from "/devices/forest_floor/floor.js";
import { playersStrip, resultsPanel, seatToken, stopPanel } from "./panels.js";

const ORDINAL = ["first", "second", "third"];
const DIRECTIONS = ["clockwise", "counter_clockwise"];

let last = null;             // {root, session, ctx}: what we drew last, to redraw on floor news
let ticking = null;          // the search clock's interval while the board is up
const chosenDirection = {};  // round key -> direction the master tapped (not sent until "turn")
const baskets = {};          // round key + seat -> {colour: n} being entered
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const roundKey = (session) => `${session.id}:${session.state.round_number}`;

export function render(root, session, ctx) {
  last = { root, session, ctx };
  seedFloor(ctx.devices?.forest_floor);
  draw();
  if (ctx.replay) return;         // a replay draws the game's floor, not the table's: nothing to follow
  followFloor((big) => (big ? draw() : refreshFloor()),
    () => ["turn", "turning"].includes(last?.session.state.phase) || countingDown());
  ticking ??= setInterval(tick, 250);
}

/** The shell takes the board down (another game, the start screen, a replay): stop the
 *  floor's polling, the countdown and the search clock. */
export function unmount() {
  unmountFloor();
  clearInterval(ticking);
  ticking = null;
  last = null;
}

function draw() {
  if (!last) return;
  const { root, session, ctx } = last;
  const state = session.state;
  learnPalette(state.colours);
  document.body.dataset.phase = state.phase;
  if (state.phase !== "turn") cancelCountdown();        // someone else moved the game on
  const names = session.players || state.players.map((p) => p.name);
  const stage = STAGES[state.phase] || stageOver;
  const parts = stage(state, session, ctx, names);
  const tree = el("div.zw", { id: "zw", dataset: { phase: state.phase } },
    el("section.zw-stage.panel", { id: "zw-stage", "aria-live": "polite" }, parts.body),
    el("aside.zw-side", {},
      ctx.undo,
      // a replay (ctx.replay) shows the game, not the live table's "stop!" calls and floor
      ctx.replay ? null : stopPanel(state, names, { onStop: (seat) => ctx.perform({ type: "stop", seat }) }),
      ctx.replay ? replayFloor(state)
        : floorPanel({ toast: ctx.toast, send: ctx.send, gamePosition: state.floor.position,
                       mayHome: !["turning"].includes(state.phase) }),
      ctx.told,           // the shell's "what just happened" line: in the column that never scrolls it away
      resultsPanel(state, names)),
    playersStrip(state, names));
  // the STOP on screen stays the same button across redraws, so a finger on it is never lost
  const oldStop = document.querySelector("#zw-stop");
  const newStop = tree.querySelector("#zw-stop");
  if (oldStop && newStop) newStop.replaceWith(oldStop);
  root.replaceChildren(tree);
}

/** The floor in a replay: where the game counted it then (the table's floor is not asked). */
function replayFloor(state) {
  return el("section.zw-floor.panel", { id: "zw-floor-replay" }, el("div.panel-title", {}, "Forest floor"),
    el("div.zw-floor-state", {}, `The game counted the floor at ant ${state.floor.position}.`));
}

/** Between big changes only the dial and the progress line move (the STOP button stays put). */
function refreshFloor() {
  if (!last) return;
  const old = document.querySelector("#zw-floor");
  if (!old) return;
  const { session, ctx } = last;
  const fresh = floorPanel({ toast: ctx.toast, send: ctx.send, gamePosition: session.state.floor.position,
                             mayHome: session.state.phase !== "turning" });
  old.dataset.state = fresh.dataset.state;
  old.dataset.position = fresh.dataset.position;
  old.querySelector(".zw-floor-row")?.replaceWith(fresh.querySelector(".zw-floor-row"));
  const progress = document.querySelector("#zw-turn-progress");
  // while the link is cut mid-turn the line says hands off, not how far it got (stageTurning)
  const s = floor.status;
  const cut = s?.state === "moving" && s.link && s.link.state !== "connected";
  if (progress && !cut) progress.textContent = progressWords(session.state.round);
}

// --- undo: the shell's button takes back the last entry (it names it: "Linus's basket") -------------
/** After an undo, put a taken-back basket or recipe card back into its grid: one wrong tap
 *  is then one tap to put right, not a whole basket to enter again. */
export function undone(beforeSession, body) {
  const before = beforeSession.state;
  const after = body.state;
  if (after.phase === "check" && before.round && after.round_number === before.round_number) {
    const seat = after.round.to_check[0];
    const taken = before.phase === "penalty" ? before.round.pending
      : before.round.results[before.round.results.length - 1];
    if (taken && taken.seat === seat && taken.basket) {
      baskets[`${body.id}:${after.round_number}:${seat}`] = { ...taken.basket };
    }
  } else if (after.phase === "cards") {
    for (const p of after.players) {
      p.cards.forEach((card, slot) => {
        const was = before.players[p.seat].cards[slot];
        if (!card && was) baskets[`cards:${body.id}:${p.seat}:${slot}`] = { ...was.recipe };
      });
    }
  }
  draw();
}

// --- choose & turn: the master magician -----------------------------------------------------
function stageMaster(state, session, ctx, names) {
  const m = state.master;
  const master = state.players[m];
  const chosen = state.phase === "turn" ? state.round.tile : null;
  if (ctx.replay) {               // the game then, not the master's buttons
    return { body: [el("h2.zw-title", {}, seatToken(m, names), ` ${names[m]} is the master magician`),
      el("p.zw-needs", {}, chosen ? `Magic tile ${chosen}: ${plural(chosen, "ingredient")} to collect, ${plural(chosen, "ant")} to turn.`
        : `${names[m]} chooses a magic tile.`)] };
  }
  const values = [...new Set([...master.tiles, ...(chosen ? [chosen] : [])])].sort((a, b) => a - b);
  const key = roundKey(session);
  const direction = chosenDirection[key] || null;
  const motor = hasMotor() || !floor.known;

  const tiles = values.map((v) => {
    const left = master.tiles.filter((t) => t === v).length + (v === chosen ? 1 : 0);
    return el(`button.zw-tile.big${v === chosen ? ".chosen" : ""}`, {
      type: "button", dataset: { tile: String(v) }, "aria-pressed": v === chosen ? "true" : "false",
      onclick: () => { if (v !== chosen) ctx.perform({ type: "choose_tile", seat: m, tile: v }); },
    }, el("span.zw-tile-number", {}, String(v)), el("span.zw-tile-left", {}, `${left} left`));
  });
  const arrows = DIRECTIONS.map((d) => el(`button.zw-direction${d === direction ? ".chosen" : ""}`, {
    type: "button", dataset: { direction: d }, "aria-pressed": d === direction ? "true" : "false",
    onclick: () => { chosenDirection[key] = d; draw(); },
  }, el("span.zw-arrow", { "aria-hidden": "true" }, dirArrow(d)), el("span.zw-dir-word", {}, dirWords(d))));

  const ready = chosen && direction;
  const label = !ready ? "Turn the floor"
    : motor ? `Turn ${plural(chosen, "ant")} ${dirWords(direction)}`
      : `Turn by hand: ${plural(chosen, "ant")} ${dirWords(direction)}`;
  const turn = el("button.big-button.go.zw-turn", { type: "button", id: "zw-turn", disabled: !ready || moving(),
    onclick: () => turnTheFloor(ctx, m, chosen, direction) }, label);

  return {
    body: [
      el("h2.zw-title", {}, seatToken(m, names), ` ${names[m]} is the master magician`),
      el("div.zw-step", {}, el("div.zw-step-label", {}, "1 · Magic tile: ingredients to collect and ants to turn"),
        el("div.zw-tile-row", {}, tiles)),
      el("div.zw-step", {}, el("div.zw-step-label", {}, "2 · Which way?"), el("div.zw-direction-row", {}, arrows)),
      el("div.zw-step", {}, el("div.zw-step-label", {},
        motor ? "3 · Turn (the tablet counts down three seconds first)" : "3 · No motor here: you turn the floor by hand"),
      turn),
    ],
  };
}

async function turnTheFloor(ctx, seat, tile, direction) {
  const action = { type: "turn", seat, direction };
  if (floor.known && !hasMotor()) {           // nothing moves by itself: no countdown needed
    await ctx.perform(action);
    return;
  }
  if (moving()) { ctx.toast("The forest floor is still moving. Wait until it stands still.", "warn"); return; }
  // the PIN first, so the countdown is never followed by a PIN pad and a late start
  if (!isUnlocked() && !(await askPin())) return;
  startCountdown(`The forest floor turns ${plural(tile, "ant")} ${dirWords(direction)} in`, async () => {
    pollSoon();
    await ctx.perform(action);
    pollSoon();
  });
}

// --- turning: the floor moves, or the master turns it by hand ---------------------------------
function progressWords(rnd) {
  const t = floor.turn;
  if (!t || !rnd) return "";
  return `${t.travelled.toFixed(1)} of ${plural(rnd.ants, "ant")} ${dirWords(rnd.direction)}`;
}

function stageTurning(state, session, ctx, names) {
  const rnd = state.round;
  if (ctx.replay) {               // the table's floor now says nothing about the game then
    return { body: [el("h2.zw-title", {}, `${dirArrow(rnd.direction)} The forest floor turns ${plural(rnd.ants, "ant")} ${dirWords(rnd.direction)}`)] };
  }
  const s = floor.status;
  const thisTurn = floor.turn && floor.turn.ants === rnd.ants && floor.turn.direction === rnd.direction;
  if (s && s.state === "moving") {
    // The link to the Pico is down mid-turn: a Pico on the motor supply may still be
    // turning the floor, so hands off until it is back or the floor gives the turn up.
    const cut = s.link && s.link.state !== "connected";
    return {
      body: [
        el("h2.zw-title", {}, `${dirArrow(rnd.direction)} The forest floor is turning`),
        cut ? el("p.zw-big-line", { id: "zw-turn-progress" }, "The link to its motor is lost: it may still be turning.")
          : el("p.zw-big-line", { id: "zw-turn-progress" }, progressWords(rnd)),
        el("p.zw-hint", {}, cut
          ? "Hands off for a few seconds: the turn goes on if the link comes back; if not, this screen says how to finish it by hand."
          : "Tap the red STOP if a tree tips over or a hand is in the way: the floor halts at once."),
      ],
    };
  }
  if (s && s.last_move?.result === "done" && s.state === "idle" && thisTurn) {
    return {
      body: [el("h2.zw-title", {}, "The floor has turned"), el("p.zw-hint", {}, "The search starts in a moment…"),
        doneButton(ctx, "quiet", "It has turned: start the search")],
    };
  }
  // No motor, a stop or a fault: the master finishes by hand.
  let remaining = rnd.ants;
  let why = floor.known ? "There is no motor on this table." : "";
  let from = "";
  if (s) {
    if (thisTurn) remaining = floor.turn.remaining;
    if (s.position_lost) {
      // The link to the motor was lost mid-turn: it may have got part, all or none of the
      // way, so the whole turn is counted from where the floor stood before it, by eye.
      remaining = rnd.ants;
      from = " from where it stood before this turn";
      why = "The link to the floor's motor was lost during the turn, so where the floor stands is unknown "
        + "(it may have got part or all of the way). Set it by hand; home it before the next turn.";
    }
    else if (s.state === "fault" && String(s.fault || "").startsWith("jam")) {
      // The motor's count says nothing about where a jammed floor stands: the whole turn
      // is counted from where the floor stood before it, by eye.
      remaining = rnd.ants;
      from = " from where it stood before this turn";
      why = "The forest floor jammed: it did not turn as far as the motor did, so how far it got is lost. "
        + "Free it, then set it by hand; home it before the next turn.";
    }
    else if (s.state === "fault") {
      const fault = String(s.fault || "a fault").replace(/: turn it by hand$/, "");
      why = thisTurn ? `The floor stopped after ${antsWords(rnd.ants - remaining)} of ${plural(rnd.ants, "ant")}: ${fault}.`
        : `The floor could not turn: ${fault}.`;
    }
    else if (s.last_move?.result === "stopped") {
      why = `The floor was stopped after ${antsWords(rnd.ants - remaining)} of ${plural(rnd.ants, "ant")}.`;
    } else why = "The floor did not turn by itself.";
  }
  const more = remaining < rnd.ants ? " more" : "";
  const n = antsWords(remaining);
  return {
    body: [
      el("p.zw-why", {}, why),
      el("h2.zw-title.zw-by-hand", { id: "zw-by-hand" },
        el("span.zw-arrow.huge", { "aria-hidden": "true" }, dirArrow(rnd.direction)),
        el("span", {}, `Turn the floor by hand: ${n}${more} ant${n === "1" ? "" : "s"} ${dirWords(rnd.direction)}${from}`)),
      el("p.zw-hint", {}, "Hold the centre of the main tree and count the ants on the rim as they pass your basket."),
      doneButton(ctx, "go", "Done: the floor is turned"),
    ],
  };
}

function doneButton(ctx, kind, label) {
  return el(`button.big-button.${kind}.zw-done`, { type: "button", id: "zw-done",
    onclick: () => ctx.perform({ type: "floor_turned", manual: true }) }, label);
}

// --- search: the timer and "end your search!" ----------------------------------------------
function searchStart(session) {
  const key = `zw-search:${roundKey(session)}`;
  let start = Number(sessionStorage.getItem(key));
  if (!start) {
    start = Date.now();
    try { sessionStorage.setItem(key, String(start)); } catch (_) { /* private mode: per page only */ }
  }
  return start;
}

function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function tick() {
  const t = document.querySelector("#zw-timer");
  if (t) t.textContent = clock(Date.now() - Number(t.dataset.start));
}

function stageSearch(state, session, ctx, names) {
  const rnd = state.round;
  const m = state.master;
  const counts = rnd.end_search_counts || [rnd.tile];
  const live = !ctx.replay;       // a replay: no clock of today and no button of the live table
  const start = live ? searchStart(session) : 0;
  const stoppers = state.players.filter((p) => p.may_stop);
  return {
    body: [
      el("div.zw-search-head", {},
        el("h2.zw-title", {}, "Search!"),
        live ? el("span.zw-timer", { id: "zw-timer", dataset: { start: String(start) }, role: "timer" }, clock(Date.now() - start)) : null),
      el("p.zw-needs", {}, `The floor turned ${plural(rnd.ants, "ant")} ${dirWords(rnd.direction)}.`),
      el("p.zw-hint", {}, `Everyone rakes for their leftmost recipe card. ${names[m]} (master) needs exactly `
        + `${plural(rnd.tile, "ingredient")} in the basket to call “end your search!”`),
      counts.length > 1 ? el("p.zw-hint.zw-special", {}, specialCase(names[m], counts)) : null,
      live ? el("div.zw-end-row", {}, counts.map((n) => el("button.big-button.go.zw-end", {
        type: "button", dataset: { count: String(n) },
        onclick: () => ctx.perform({ type: "end_search", seat: m, count: n }),
      }, el("span", {}, "End your search!"), el("small", {}, `${plural(n, "ingredient")} in ${names[m]}'s basket`)))) : null,
      stoppers.length ? el("p.zw-hint", {}, `${stoppers.map((p) => p.name).join(" and ")} may call “stop!” `
        + (live ? "(buttons beside the board) " : "") + "when the third potion is in the basket.") : null,
    ],
  };
}

/** The rulebook's special case: a master who needs fewer than the tile (or nothing). */
function specialCase(master, counts) {
  const most = counts[counts.length - 1];
  if (!counts[0]) return `${master} has cooked all three potions, so anything from 0 to ${most} in the basket ends the search.`;
  return `${master} needs only ${plural(counts[0], "more ingredient")} for the last potion, `
    + `so ${counts[0]} to ${most} in the basket is enough.`;
}

// --- check: one basket after the other, master first ------------------------------------------
function stageCheck(state, session, ctx, names) {
  const rnd = state.round;
  const seat = rnd.to_check[0];
  const p = state.players[seat];
  const isMaster = seat === state.master;
  const limit = isMaster ? (rnd.ended_by === "master" ? rnd.count : rnd.tile) : Infinity;
  const key = `${roundKey(session)}:${seat}`;
  const counts = (baskets[key] ||= {});
  const card = p.current_card !== null ? p.cards[p.current_card] : null;
  const n = total(counts);
  const role = rnd.stoppers.includes(seat) ? " (called “stop!”)" : isMaster ? " (master magician)" : "";
  const check = async () => {
    const body = await ctx.perform({ type: "basket", seat, ingredients: { ...counts } });
    if (body) delete baskets[key];
  };
  return {
    body: [
      el("div.zw-order", { "aria-label": "baskets still to check" }, el("span.zw-small-label", {}, "to check:"),
        rnd.to_check.map((s, i) => el(`span.zw-order-item${i === 0 ? ".now" : ""}`, {}, seatToken(s, names), names[s]))),
      el("h2.zw-title", {}, `${names[seat]}'s basket${role}`),
      card ? el("p.zw-needs", {}, `${ORDINAL[p.current_card]} recipe card still needs: `,
        chipRow(card.missing, { size: "small" })) : null,
      // a replay: the basket is told in the step's line, not entered again here
      ...(ctx.replay ? [] : [
      el("p.zw-hint", {}, "Tap a colour once for every ingredient in the basket"
        + (isMaster ? ` (at most ${limit}).` : ".")),
      chipGrid(counts, { onChange: draw, max: (c) => state.forest[c] || 0, limit }),
      el("div.zw-basket-row", {},
        el("span.zw-basket-sum", { id: "zw-basket-sum" }, `In the basket: ${n} `, chipRow(counts, { size: "small", empty: "" })),
        el("button.big-button.quiet", { type: "button", disabled: !n, onclick: () => { baskets[key] = {}; draw(); } }, "Clear"),
        el("button.big-button.go", { type: "button", id: "zw-check", onclick: check },
          n ? `Check ${names[seat]}'s basket` : `${names[seat]}'s basket is empty`))]),
    ],
  };
}

// --- penalty: which correct ingredients go back -----------------------------------------------
function stagePenalty(state, session, ctx, names) {
  const pending = state.round.pending;
  const seat = pending.seat;
  const reasons = [];
  if (total(pending.wrong)) reasons.push(`${total(pending.wrong)} wrong (${words(pending.wrong)})`);
  if (pending.shortfall) reasons.push(`${pending.shortfall} fewer than the magic tile says`);
  const options = (session.legal_actions || []).filter((a) => a.type === "return_ingredients");
  return {
    body: [
      el("h2.zw-title", {}, `${names[seat]} puts back ${plural(pending.count, "correct ingredient")}`),
      el("p.zw-needs", {}, "Collected correctly this round: ", chipRow(pending.choose_from, { size: "small" })),
      el("p.zw-why", {}, `Penalty for ${reasons.join(" and ")}: for each, one ingredient collected correctly this `
        + `round goes back into the forest.${ctx.replay ? "" : " Which?"}`),
      el("div.zw-penalty-row", {}, options.map((a) => el("button.big-button.zw-penalty", {
        type: "button", dataset: { choice: words(a.ingredients) },
        onclick: () => ctx.perform(a),
      }, chipRow(a.ingredients), el("span", {}, words(a.ingredients))))),
    ],
  };
}

// --- cards: entering the physical recipe cards --------------------------------------------------
function stageCards(state, session, ctx, names) {
  let seat = 0, slot = 0;
  outer: for (const p of state.players) {
    for (let i = 0; i < p.cards.length; i++) if (!p.cards[i]) { seat = p.seat; slot = i; break outer; }
  }
  const key = `cards:${session.id}:${seat}:${slot}`;
  const counts = (baskets[key] ||= {});
  const n = total(counts);
  const all = state.players.reduce((sum, p) => sum + p.cards.length, 0);
  const done = state.players.reduce((sum, p) => sum + p.cards.filter(Boolean).length, 0);
  // the card as tapped so far, at full chip size, with an empty place for each one still to tap
  const places = [chipRow(counts, { empty: "" }),
    ...Array.from({ length: Math.max(0, 7 - n) }, () => el("span.zw-chip.zw-place", { "aria-hidden": "true" }))];
  return {
    body: [
      el("h2.zw-title", {}, seatToken(seat, names), ` ${names[seat]}'s ${ORDINAL[slot]} recipe card (left to right)`),
      ...(ctx.replay ? [el("p.zw-hint", {}, `The printed recipe cards are entered (card ${done + 1} of ${all}).`)] : [
      el("p.zw-hint", {}, `Tap the seven ingredients printed on the card (card ${done + 1} of ${all}).`),
      chipGrid(counts, { onChange: draw, limit: 7 }),
      el("div.zw-basket-row", {},
        el("span.zw-basket-sum.zw-card-preview", { id: "zw-card-sum" }, `${n} of 7 `, places),
        el("button.big-button.quiet", { type: "button", id: "zw-clear-card", disabled: !n,
          onclick: () => { baskets[key] = {}; draw(); } }, "Clear"),
        el("button.big-button.go", { type: "button", id: "zw-enter-card", disabled: n !== 7, onclick: async () => {
          if (await ctx.perform({ type: "enter_card", seat, slot, ingredients: { ...counts } })) delete baskets[key];
        } }, "Enter this card"))]),
    ],
  };
}

// --- over ----------------------------------------------------------------------------------------
/** [player, place, shared] best first: the outcome's ranking where there is one. */
function ranked(players, outcome) {
  const ranking = outcome.ranking || [];
  if (!ranking.length) return players.map((p) => [p, null, false]);
  return ranking.map((r) => [players[r.seat], r.place, ranking.filter((x) => x.place === r.place).length > 1])
    .filter(([p]) => p);
}
function stageOver(state, session, ctx, names) {
  const outcome = session.outcome || state.result || { winners: [], scores: { potions: [], ingredients_on_card: [] } };
  const winners = outcome.winners.map((s) => names[s]);
  const who = winners.length > 1 ? `${winners.slice(0, -1).join(", ")} and ${winners[winners.length - 1]} win`
    : `${winners[0]} wins`;
  const how = outcome.ended_by === "stop"
    ? `${winners[0]} called “stop!” with all three magic potions cooked.`
    : "Every magic tile has been used. The most magic potions wins; a tie goes to the most ingredients on the "
      + "recipe card being collected; if still tied, they all win.";
  return {
    body: [
      el("h2.zw-title.zw-winner", { id: "zw-winner" }, `★ ${who}! ★`),
      el("p.zw-why", {}, how),
      el("div.zw-scores-wrap", { tabindex: "0", role: "region", "aria-label": "Scores" }, el("table.zw-scores", {},
        el("thead", {}, el("tr", {}, el("th", {}, "Place"), el("th", {}, "Player"), el("th", {}, "Potions"),
          el("th", {}, "On the card"))),
        // best first, from the engine's ranking (potions, then ingredients on the card)
        el("tbody", {}, ranked(state.players, outcome).map(([p, place, shared]) => el(`tr${outcome.winners.includes(p.seat) ? ".won" : ""}`,
          { dataset: { seat: String(p.seat), place: String(place) } },
          el("td.zw-place", {}, place ? `${place}${shared ? "=" : "."}` : "–"),
          el("td", {}, seatToken(p.seat, names), ` ${p.name}`),
          el("td", {}, String(outcome.scores.potions[p.seat] ?? p.potions)),
          el("td", {}, String(outcome.scores.ingredients_on_card[p.seat] ?? 0))))))),
      // a replay's end is not the live table's: "Back to the table" is in the replay's bar
      ctx.replay ? null : el("button.big-button.go", { type: "button",
        onclick: () => document.dispatchEvent(new CustomEvent("potionpi:new-game")) }, "New game"),
      ctx.scores?.(),             // the shell's score panel, beside the ranking
    ],
  };
}

const STAGES = {
  cards: stageCards, choose: stageMaster, turn: stageMaster, turning: stageTurning,
  search: stageSearch, check: stageCheck, penalty: stagePenalty, over: stageOver,
};
