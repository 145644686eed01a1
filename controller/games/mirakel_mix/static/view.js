// Drawing the Mirakel Mix table from a session (the game's public view + its legal actions).
import { $, el, fill, colourDot, colourLetter, playerMarks } from "/static/js/ui.js";
import { potionIcon } from "/static/js/icons.js";
import { moveWords, optionFor, renderCave, shortCard } from "./cave.js";
import { pretty } from "./words.js";

const CARD_KINDS = ["flame_wall", "poison_pit", "lightning_grid", "monster_crypt", "double_speed", "place_swap"];
const cap = (text) => String(text).replace(/^./, (c) => c.toUpperCase());

/** What a button says for an action the view has no special place for. */
export function actionLabel(action) {
  if (action.label) return action.label;
  switch (action.type) {
    case "move": return action.to === null || action.to === undefined ? "Stay here (let the steps go)" : `Move to ${action.to}`;
    case "place_swap": return `Swap places${action.with_name ? " with " + action.with_name : ""} (space ${action.space})` +
      (action.spend?.length ? `, gives up ${action.spend.map(pretty).join(" + ")}` : "");
    case "fix_drop": return action.bowl !== undefined
      ? `It was bowl ${action.bowl + 1}` : `It was ${action.colour}`;
    case "empty_bowl": return `Empty bowl ${action.bowl + 1} into the cauldron`;
    case "place_apprentice": return `Start on ${action.space}`;
    case "pass_disk": return "No free space: place nothing";
    case "dismiss_warning": return "Dismiss";
    case "drop": return action.colour ? `A ${action.colour} drop fell` : "A drop fell";
    default: break;
  }
  const fields = Object.entries(action).filter(([k]) => k !== "type")
    .map(([k, v]) => `${k.replace(/_/g, " ")} ${Array.isArray(v) ? v.join(", ") : v}`);
  return pretty(action.type) + (fields.length ? `: ${fields.join(", ")}` : "");
}

const isFix = (a) => a.type === "dismiss_warning" || a.type.startsWith("fix_");

/** Sort legal actions by where they appear on the page. */
export function sortActions(legal) {
  const groups = { place: [], name: [], bowl: [], manualDrop: [], fix: [], other: [],
    moves: [], stay: [], starts: [], swaps: [], undo: [] };
  for (const a of legal) {
    if (a.type === "place_disk") groups.place.push(a);
    else if (a.type === "move" && a.to !== null && a.to !== undefined) groups.moves.push(a);
    else if (a.type === "move") groups.stay.push(a);
    else if (a.type === "place_apprentice") groups.starts.push(a);
    else if (a.type === "place_swap") groups.swaps.push(a);
    else if (a.type === "name_drop") groups.name.push(a);
    else if (a.type === "empty_bowl") groups.bowl.push(a);
    else if (a.type === "drop") groups.manualDrop.push(a);
    else if (a.type === "undo") groups.undo.push(a);         // the shell's one undo button
    else if (isFix(a)) groups.fix.push(a);
    else groups.other.push(a);
  }
  return groups;
}

function playerChip(seat, marks, names, extra = "") {
  const two = String(marks[seat] ?? "").length > 1 ? ".two" : "";
  return el(`span.disk.seat-${seat}${two}${extra ? "." + extra : ""}`,
    { title: names[seat] ?? `seat ${seat + 1}`, "aria-label": `${names[seat]}'s disk` }, marks[seat] ?? "?");
}

/** A potion card kind: its picture and, when given, a count ("3"). */
export function cardChip(kind, count = null) {
  return el(`span.card-chip.ob-${kind}${count === 0 ? ".none" : ""}`,
    { title: pretty(kind), "aria-label": count === null ? pretty(kind) : `${count} ${pretty(kind)}`,
      dataset: { card: kind } },
    potionIcon(kind, 18), count === null ? null : el("span.card-count", {}, String(count)));
}

const seatOf = (view, space) => {
  const hit = Object.entries(view.cave?.apprentices || {}).find(([, sp]) => sp === space);
  return hit ? Number(hit[0]) : null;
};

export function renderTable(session, { perform, choose, names, simulated = false, undo = null, scores = null, replay = false }) {
  const view = session.state || {};
  const legal = sortActions(session.legal_actions || []);
  const marks = playerMarks(names);
  const phase = view.phase || "";
  document.body.dataset.phase = phase;
  $("#table-view").classList.toggle("has-cave", Boolean(view.cave));
  $("#table-view").classList.toggle("coached", Boolean(view.coach));
  const coach = session.outcome ? null : view.coach || null;

  renderPrompt(session, view, marks, names);
  renderWarnings(view, legal.fix, perform);
  renderLab(view, legal.place, perform, marks, names, coach);
  renderDrop(view, undo, coach);
  renderMoves(session, view, legal, perform, choose, names);
  renderBowls(view, legal.bowl, perform, coach);
  renderCauldron(view);
  renderActions(session, legal, perform, simulated);
  renderPlayers(session, view, marks);
  renderCave(view, { moves: legal.moves, starts: legal.starts, swaps: legal.swaps, perform, choose, marks, names });
  renderOutcome(session, view, marks, names, scores, replay);
}

function renderPrompt(session, view, marks, names) {
  const prompt = $("#prompt");
  if (session.outcome) {
    const winners = session.outcome.winner_names ||
      (session.outcome.winners || []).map((s) => names[s]).filter(Boolean);
    fill(prompt,
      (session.outcome.winners || []).slice(0, 1).map((s) => playerChip(s, marks, names, "big")),
      el("span.prompt-text", {},
        winners.length ? `${winners.join(" and ")} ${winners.length > 1 ? "win" : "wins"}!` : "The game is over."));
    return;
  }
  const active = view.movement ? view.movement.mover : Number.isInteger(view.active) ? view.active : null;
  fill(prompt,
    active !== null && view.phase !== "fill_bowls" && view.phase !== "name_drop"
      ? playerChip(active, marks, names, "big") : null,
    el("span.prompt-text", {}, session.prompt || ""));
}

function renderWarnings(view, fixes, perform) {
  const box = $("#warnings");
  const warnings = view.warnings || [];
  if (!warnings.length) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  fill(box, warnings.map((w, i) => {
    const text = typeof w === "string" ? w : (w.message || w.text || "The table needs a fix.");
    const mine = Array.isArray(w.fixes) ? w.fixes
      : fixes.filter((a) => a.id === undefined || a.id === w.id || a.id === i);
    return el("div.warning", { dataset: { kind: w.kind || "", id: String(w.id ?? i) } },
      el("span.warning-icon", { "aria-hidden": "true" }, "!"),
      el("span.warning-text", {}, cap(text), w.repeats > 1 ? ` (${w.repeats} times)` : ""),
      el("span.warning-fixes", {}, mine.map((a) => {
        const label = actionLabel(a);
        return el(`button.big-button.fix${a.type === "dismiss_warning" ? ".dismiss" : ""}`,
          { type: "button", onclick: () => perform(a), dataset: { fix: a.type } },
          a.colour ? el(`span.dot.small.c-${a.colour}`, { "aria-hidden": "true" }, colourLetter(a.colour)) : null,
          label);
      })));
  }));
}

function renderLab(view, placeActions, perform, marks, names, coach) {
  const lab = $("#lab");
  const legalAt = new Map(placeActions.map((a) => [`${a.flask}/${a.space}`, a]));
  const tip = coach?.suggestion && coach.suggestion.flask !== undefined
    ? `${coach.suggestion.flask}/${coach.suggestion.space}` : null;
  fill(lab, (view.lab || []).map((flask) =>
    el(`article.flask${flask.complete ? ".complete" : ""}`, { dataset: { flask: flask.flask } },
      el("header.flask-head", {},
        el("span.flask-name", {}, cap(flask.name || pretty(flask.flask))),
        // the card pile below the flask: its picture and how many cards are left
        el("span.flask-pile", {
          title: `${flask.pile ?? "?"} potion ${flask.pile === 1 ? "card" : "cards"} left`,
          "aria-label": `${flask.pile} cards left` }, potionIcon(flask.flask, 18), String(flask.pile ?? ""))),
      el("div.spaces", {}, flask.spaces.map((space) => {
        const key = `${flask.flask}/${space.index}`;
        const action = legalAt.get(key);
        const taken = space.disk !== null && space.disk !== undefined;
        const suggested = action && key === tip;
        const label = `${pretty(flask.flask)}, ${space.colour} space` +
          (taken ? `, ${names[space.disk]}'s disk` : action ? ", tap to put your disk here" : "") +
          (suggested ? ", the coach suggests this one" : "");
        return el(`button.space.c-${space.colour}${action ? ".legal" : ""}${taken ? ".taken" : ""}${suggested ? ".coach-tip" : ""}`,
          {
            type: "button", "aria-label": label, disabled: !action,
            dataset: { flask: flask.flask, space: String(space.index), colour: space.colour },
            onclick: action ? () => perform(action) : null,
          },
          el("span.space-letter", {}, space.letter || colourLetter(space.colour)),
          taken ? playerChip(space.disk, marks, names) : null,
          suggested ? el("span.coach-star", { "aria-hidden": "true" }, "★") : null);
      })))));
  lab.classList.toggle("placing", placeActions.length > 0);
}

function renderDrop(view, undo, coach) {
  const box = $("#drop");
  const turn = view.turn || {};
  const fallen = turn.drops || [];
  // A drop the beam saw but no sensor named sits in the bowl as null until a player names it.
  const unnamed = view.phase === "name_drop";
  const drop = unnamed ? null : (turn.pending || view.last_drop || null);
  const dot = (c) => (c ? colourDot(c, "small") : el("span.dot.small.unknown", { "aria-label": "unnamed drop" }, "?"));
  const chances = coach?.chances && !["move", "finished", "place_apprentices"].includes(view.phase)
    ? (view.colours?.length ? view.colours.map((c) => [c.id, coach.chances[c.id] ?? 0]) : Object.entries(coach.chances))
    : null;
  fill(box,
    el("div.drop-title", {}, unnamed || turn.pending ? "This drop" : drop ? "Last drop" : "Drop"),
    drop ? el(`span.dot.huge.c-${drop}`, { id: "drop-big", "aria-label": `${drop} drop` }, colourLetter(drop))
      : el(`span.dot.huge${unnamed ? ".unknown" : ".empty"}`, { id: "drop-big",
        "aria-label": unnamed ? "a drop of unknown colour" : "no drop yet" }, unnamed ? "?" : "–"),
    drop ? el("div.drop-name.colour-name", {}, drop)
      : el("div.drop-name", {}, unnamed ? "Which colour?" : "None yet"),
    (turn.bowl !== null && turn.bowl !== undefined) || fallen.length
      ? el("div.turn-drops", { "aria-label": "drops this turn" },
        el("span.turn-count", {}, `${fallen.length} of 4`), fallen.map(dot))
      : null,
    skippedNote(turn),
    undo,                               // the shell's one undo button, placed here
    chances ? el("div.coach-chances", { "aria-label": "coach: chance of each colour for the next drop" },
      el("span.coach-title", {}, "Next drop"),
      chances.map(([c, p]) => el(`span.chance${p ? "" : ".none"}`, { dataset: { colour: c } },
        el(`span.dot.tiny.c-${c}`, { "aria-hidden": "true" }, colourLetter(c)),
        `${Math.round(p * 100)}%`))) : null);
}

/** "No disk for that drop: no disk left" when the engine skipped a placement this turn. */
function skippedNote(turn) {
  const skipped = (turn.placements || []).filter((p) => p && p.skipped);
  if (!skipped.length) return null;
  return el("div.skipped-note", { role: "status" },
    `${skipped.length === 1 ? "One drop" : `${skipped.length} drops`} placed no disk: ${skipped[skipped.length - 1].skipped}`);
}

/** The side panel while apprentices move: who moves, every destination with its cost, swaps, stay. */
function renderMoves(session, view, legal, perform, choose, names) {
  const box = $("#moves");
  const m = view.movement;
  if (!m || session.outcome) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const byTo = new Map();
  for (const a of legal.moves) {
    if (!byTo.has(a.to)) byTo.set(a.to, []);
    byTo.get(a.to).push(a);
  }
  const exit = view.cave?.exit;
  const place = (to) => (to === exit ? "the exit" : `space ${to}`);
  const order = (view.cave?.spaces || []).concat(exit ? [exit] : []);
  const targets = [...byTo.keys()].sort((a, b) => order.indexOf(b) - order.indexOf(a));   // furthest first
  const queue = m.queue || [];
  fill(box,
    el("div.move-queue", { "aria-label": "movement queue" }, queue.map((q, i) =>
      el(`span.queue-item${i === 0 ? ".now" : ""}`, { dataset: { seat: String(q.seat) } },
        i === 0 ? (m.text || `${q.name} moves next: ${m.steps_left} steps`) + (m.double_speed_used ? " (double speed)" : "")
          : `then ${q.name}: ${q.steps}`))),
    el("div.move-options", {}, targets.map((to) => {
      const ways = byTo.get(to);
      const first = optionFor(view, ways[0]);
      const go = () => (ways.length === 1 ? perform(ways[0])
        : choose(`How should ${m.mover_name} get to ${place(to)}?`,
          ways.map((w) => ({ label: moveWords(optionFor(view, w)), action: w }))));
      const spent = [...(first.spend || []), ...(first.double_speed ? ["double_speed"] : [])];
      const steps = ways.length > 1 ? `${ways.length} ways`
        : first.steps !== undefined ? `${first.steps} step${first.steps === 1 ? "" : "s"}` : "";
      const cost = ways.length > 1 ? "" : spent.length ? `, gives up ${spent.map(pretty).join(" and ")}` : ", no card needed";
      // where the side is narrow the cards show as their pictures alone: the words stay in
      // the button's name and the picture's tooltip
      return el("button.big-button.move-option", { type: "button", onclick: go,
        "aria-label": `${to === exit ? "to the exit" : `to ${to}`}: ${steps}${cost}`,
        dataset: { action: "move-to", to: String(to) } },
        el("span.move-to", {}, to === exit ? "EXIT" : `→ ${to}`),
        el("span.move-cost", {},
          el("span.move-steps", {}, steps),
          ways.length > 1 ? null : spent.length
            ? el("span.move-spend", {}, el("span.gives", {}, "gives up"), spent.map((k) =>
              el(`span.spend-chip`, { title: pretty(k) }, potionIcon(k, 18), el("span.spend-word", {}, pretty(k)))))
            : el("span.move-free", {}, "no card needed")));
    })),
    legal.swaps.map((a) => {
      const other = seatOf(view, a.space);
      return el("button.big-button.swap-option", { type: "button", onclick: () => perform(a),
        "aria-label": actionLabel({ ...a, with_name: other !== null ? names[other] : null }),
        dataset: { action: "place_swap", space: String(a.space) } },
        potionIcon("place_swap", 22),
        el("span.swap-words", {}, other !== null ? `Swap with ${names[other]}` : "Swap places",
          el("small.swap-space", {}, ` (space ${a.space})`),
          a.spend?.length ? el("small", {}, `, gives up ${a.spend.map(pretty).join(" + ")}`) : null));
    }),
    legal.stay.map((a) => el("button.big-button.quiet.stay", { type: "button", onclick: () => perform(a),
      dataset: { action: "move" } }, m.steps_left ? "Stay here (let the steps go)" : "Done")));
}

function renderBowls(view, bowlActions, perform, coach) {
  const box = $("#bowls");
  const legalBowl = new Map(bowlActions.map((a) => [a.bowl, a]));
  const tip = bowlActions.length && coach?.suggestion?.bowl !== undefined ? coach.suggestion.bowl : null;
  fill(box, el("h3.panel-title", {}, "Bowls"),
    el("div.bowl-row", {}, (view.bowls || []).map((bowl) => {
      const action = legalBowl.get(bowl.index);
      const slots = [...bowl.drops.map((c) => (c ? colourDot(c, "small")
        : el("span.dot.small.unknown", { "aria-label": "unnamed drop" }, "?"))),
        ...[...Array(Math.max(0, 4 - bowl.drops.length))].map(() => el("span.dot.small.empty", {}, ""))];
      return el(`button.bowl${action ? ".legal" : ""}${bowl.full ? ".full" : ""}${tip === bowl.index ? ".coach-tip" : ""}`,
        {
          type: "button", disabled: !action, dataset: { bowl: String(bowl.index) },
          "aria-label": `bowl ${bowl.index + 1}: ${bowl.drops.join(", ") || "empty"}` +
            (action ? ", tap to empty it into the cauldron" : "") +
            (tip === bowl.index ? ", the coach suggests this one" : ""),
          onclick: action ? () => perform(action) : null,
        },
        el("span.bowl-name", {}, `Bowl ${bowl.index + 1}`, tip === bowl.index ? el("span.coach-star", {}, " ★") : null),
        el("span.bowl-drops", {}, slots));
    })));
}

function renderCauldron(view) {
  const box = $("#cauldron");
  const contents = view.cauldron || {};
  const total = view.cauldron_total ?? Object.values(contents).reduce((a, b) => a + b, 0);
  fill(box, el("h3.panel-title", {}, `In the cauldron: ${total}`),
    el("div.cauldron-row", {}, Object.entries(contents).map(([c, n]) =>
      el(`span.count${n ? "" : ".none"}`, { "aria-label": `${n} ${c}` }, colourDot(c, "small"), `×${n}`))));
}

function renderActions(session, legal, perform, simulated) {
  const box = $("#actions");
  const buttons = legal.other.map((a) => el("button.big-button", { type: "button", onclick: () => perform(a),
    dataset: { action: a.type } }, actionLabel(a)));
  // Without a drop sensor the players say what fell; the simulation panel covers it in --sim.
  const manual = simulated || session.outcome ? [] : legal.manualDrop.filter((a) => a.colour);
  const details = manual.length
    ? el("details.manual-drop", {},
      el("summary", {}, "No drop sensor? Tap the colour that fell"),
      el("div.colour-buttons", {}, manual.map((a) =>
        el(`button.colour-button.c-${a.colour}`, { type: "button", onclick: () => perform(a),
          "aria-label": `a ${a.colour} drop fell` }, colourLetter(a.colour)))))
    : null;
  fill(box, buttons, details);
  // Keep an opened "by hand" panel open across updates.
  if (details && box.dataset.manualOpen === "yes") details.open = true;
  details?.addEventListener("toggle", () => { box.dataset.manualOpen = details.open ? "yes" : "no"; });
}

function renderPlayers(session, view, marks) {
  const box = $("#players");
  const players = view.players || session.players.map((name, seat) => ({ seat, name }));
  const moving = view.movement?.mover;
  box.classList.toggle("four", players.length >= 4);
  fill(box, players.map((p) => {
    const cards = p.cards || {};
    const kinds = CARD_KINDS.filter((k) => k in cards).concat(Object.keys(cards).filter((k) => !CARD_KINDS.includes(k)));
    const now = session.outcome ? (session.outcome.winners || []).includes(p.seat)
      : (moving !== undefined && moving !== null ? p.seat === moving : p.seat === view.active);
    return el(`div.player${now ? ".active" : ""}`, { dataset: { seat: String(p.seat) } },
      el(`span.disk.big.seat-${p.seat}${String(marks[p.seat]).length > 1 ? ".two" : ""}`, { "aria-hidden": "true" }, marks[p.seat]),
      el("div.player-info", {},
        el("div.player-line", {}, el("span.player-name", {}, p.name),
          p.disks_left !== undefined ? el("span.disks-left", { title: "disks left" }, `${p.disks_left} disks`) : null),
        kinds.length ? el("div.player-cards", { role: "group", "aria-label": `${p.name}'s potion cards` },
          kinds.map((k) => cardChip(k, cards[k] || 0))) : null));
  }));
}

/** The end: who won and why, with New game (the board stays visible behind it). */
function renderOutcome(session, view, marks, names, scores, replay = false) {
  const box = $("#outcome");
  const outcome = session.outcome;
  if (!outcome) { box.hidden = true; box.replaceChildren(); delete box.dataset.closed; return; }
  const key = `${session.id}`;
  if (box.dataset.closed === key) { box.hidden = true; return; }
  const winners = outcome.winners || [];
  const winnerNames = outcome.winner_names || winners.map((s) => names[s]);
  box.hidden = false;
  fill(box, el("div.outcome-box", { role: "status" },
    el("div.outcome-tokens", {}, winners.map((s) => playerChip(s, marks, names, "huge"))),
    el("h2.outcome-title", { id: "outcome-title" },
      winnerNames.length ? `${winnerNames.join(" and ")} ${winnerNames.length > 1 ? "win" : "wins"}!` : "The game is over"),
    // the sentence (reason is a code for scripts); then how close everyone else came
    el("p.outcome-reason", {}, cap(outcome.message || "") + (outcome.turns ? ` after ${outcome.turns} turns.` : "")),
    rankingList(outcome, names, marks),
    el("div.outcome-buttons", {},
      el("button.big-button.quiet", { type: "button", id: "btn-see-board",
        onclick: () => { box.dataset.closed = key; box.hidden = true; } }, "See the board"),
      // a replay's end is not the live table's: "Back to the table" is in the replay's bar
      replay ? null : el("button.big-button.go", { type: "button", id: "btn-play-again",
        onclick: () => document.dispatchEvent(new CustomEvent("potionpi:new-game")) }, "New game")),
    scores?.()));              // the shell's score panel, beside the ranking
}

/** The places after the winner: "2nd Houdini, 3 steps from the exit" (the score is the
 *  steps still to go; null: the apprentice never entered the cave). */
function rankingList(outcome, names, marks) {
  const winners = outcome.winners || [];
  const rest = (outcome.ranking || []).filter((p) => !winners.includes(p.seat));
  if (!rest.length) return null;
  const ordinal = (n) => `${n}${n % 10 === 1 && n !== 11 ? "st" : n % 10 === 2 && n !== 12 ? "nd" : n % 10 === 3 && n !== 13 ? "rd" : "th"}`;
  const far = (steps) => (steps === null || steps === undefined ? "not in the cave"
    : steps === 0 ? "at the exit" : `${steps} step${steps === 1 ? "" : "s"} from the exit`);
  return el("ol.outcome-ranking", { "aria-label": "the others" }, rest.map((p) =>
    el("li.outcome-place", { dataset: { seat: String(p.seat), place: String(p.place) } },
      el("span.outcome-ordinal", {}, ordinal(p.place)), playerChip(p.seat, marks, names),
      el("span.outcome-name", {}, names[p.seat] ?? `seat ${p.seat + 1}`),
      el("span.outcome-far", {}, far(p.score)))));
}

/**
 * The six big colour buttons for naming a drop the beam saw without a colour: every colour
 * of the game, the ones the cauldron no longer holds greyed out (it cannot be one of them).
 */
export function renderPicker(nameActions, perform, colours = []) {
  const modal = $("#picker");
  if (!nameActions.length) { modal.hidden = true; return; }
  const byColour = new Map(nameActions.map((a) => [a.colour, a]));
  const all = colours.length ? colours.map((c) => c.id) : nameActions.map((a) => a.colour);
  fill($("#picker-colours"), all.map((c) => {
    const a = byColour.get(c);
    return el(`button.colour-button.huge.c-${c}${a ? "" : ".gone"}`, {
      type: "button", "aria-label": a ? c : `${c}: none left in the cauldron`, dataset: { colour: c },
      disabled: !a, onclick: a ? () => perform(a) : null,
    }, el("span.letter", {}, colourLetter(c)), el("span.word", {}, a ? c : "none left"));
  }));
  modal.hidden = false;
}

export { shortCard };
