// Drawing the table from a session (the game's public view + its legal actions).
import { $, el, fill, colorDot, colorLetter, pretty, playerMarks } from "./ui.js";
import { renderCave, shortCard } from "./cave.js";

/** What a button says for an action the view has no special place for. */
export function actionLabel(action) {
  if (action.label) return action.label;
  switch (action.type) {
    case "move": return action.to === null || action.to === undefined ? "Stop moving here" : `Move to ${action.to}`;
    case "place_swap": return `Swap places${action.with_name ? " with " + action.with_name : ""} (space ${action.space})` +
      (action.spend?.length ? `, gives up ${action.spend.map(shortCard).join(" + ")}` : "");
    case "fix_drop": return action.bowl !== undefined
      ? `It was a ${action.color} drop from bowl ${action.bowl + 1}` : `It was a real ${action.color} drop`;
    case "empty_bowl": return `Empty bowl ${action.bowl + 1} into the cauldron`;
    case "place_apprentice": return `Start on ${action.space}`;
    case "pass_disk": return "No free space: place nothing";
    case "undo": return "Undo";
    case "dismiss_warning": return "Dismiss";
    case "drop": return action.color ? `A ${action.color} drop fell` : "A drop fell";
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
    moves: [], starts: [], swaps: [] };
  for (const a of legal) {
    if (a.type === "place_disk") groups.place.push(a);
    else if (a.type === "move" && a.to !== null && a.to !== undefined) groups.moves.push(a);
    else if (a.type === "place_apprentice") groups.starts.push(a);
    else if (a.type === "place_swap") { groups.swaps.push(a); groups.other.push(a); }
    else if (a.type === "name_drop") groups.name.push(a);
    else if (a.type === "empty_bowl") groups.bowl.push(a);
    else if (a.type === "drop") groups.manualDrop.push(a);
    else if (isFix(a)) groups.fix.push(a);
    else groups.other.push(a);
  }
  return groups;
}

function playerChip(seat, marks, names, extra = "") {
  return el(`span.disk.seat-${seat}${extra ? "." + extra : ""}`,
    { title: names[seat] ?? `seat ${seat + 1}`, "aria-label": `${names[seat]}'s disk` }, marks[seat] ?? "?");
}

export function renderTable(session, { perform, choose, names, simulated = false }) {
  const view = session.state || {};
  const legal = sortActions(session.legal_actions || []);
  const marks = playerMarks(names);
  const phase = view.phase || "";
  document.body.dataset.phase = phase;
  document.body.classList.toggle("has-cave", Boolean(view.cave));

  renderPrompt(session, view, marks, names);
  renderWarnings(view, legal.fix, perform);
  renderLab(view, legal.place, perform, marks, names);
  renderDrop(view, legal.other.find((a) => a.type === "undo"), perform);
  renderBowls(view, legal.bowl, perform);
  renderCauldron(view);
  renderActions(session, legal, perform, simulated);
  renderPlayers(session, view, marks);
  renderCave(view, { moves: legal.moves, starts: legal.starts, swaps: legal.swaps, perform, choose, marks, names });
}

function renderPrompt(session, view, marks, names) {
  const prompt = $("#prompt");
  if (session.outcome) {
    const winners = session.outcome.winner_names ||
      (session.outcome.winners || []).map((s) => names[s]).filter(Boolean);
    fill(prompt, el("span.prompt-text", {},
      winners.length ? `${winners.join(" and ")} ${winners.length > 1 ? "win" : "wins"}!`
        : "The game is over."));
    return;
  }
  const active = Number.isInteger(view.active) ? view.active : null;
  fill(prompt,
    active !== null ? playerChip(active, marks, names, "big") : null,
    el("span.prompt-text", {}, view.prompt || ""));
}

function renderWarnings(view, fixes, perform) {
  const box = $("#warnings");
  const warnings = view.warnings || [];
  if (!warnings.length && !fixes.length) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const items = warnings.length ? warnings : [{ message: "The table needs a fix." }];
  fill(box, items.map((w, i) => {
    const text = typeof w === "string" ? w : (w.message || w.text || "The table needs a fix.");
    const mine = Array.isArray(w.fixes) ? w.fixes
      : fixes.filter((a) => a.id === undefined || a.id === w.id || a.id === i);
    return el("div.warning", {},
      el("span.warning-icon", { "aria-hidden": "true" }, "!"),
      el("span.warning-text", {}, text.replace(/^./, (c) => c.toUpperCase())),
      el("span.warning-fixes", {}, mine.map((a) =>
        el("button.big-button.fix", { type: "button", onclick: () => perform(a) }, actionLabel(a)))));
  }));
}

function renderLab(view, placeActions, perform, marks, names) {
  const lab = $("#lab");
  const legalAt = new Map(placeActions.map((a) => [`${a.flask}/${a.space}`, a]));
  fill(lab, (view.lab || []).map((flask) =>
    el(`article.flask${flask.complete ? ".complete" : ""}`, { dataset: { flask: flask.flask } },
      el("header.flask-head", {},
        el("span.flask-name", {}, (flask.name || pretty(flask.flask)).replace(/^./, (c) => c.toUpperCase())),
        flask.pile === undefined ? null : el("span.flask-pile", {
          title: `${flask.pile} potion ${flask.pile === 1 ? "card" : "cards"} left`,
          "aria-label": `${flask.pile} cards left` }, `${flask.pile} ▤`)),
      el("div.spaces", {}, flask.spaces.map((space) => {
        const action = legalAt.get(`${flask.flask}/${space.index}`);
        const taken = space.disk !== null && space.disk !== undefined;
        const label = `${pretty(flask.flask)}, ${space.color} space` +
          (taken ? `, ${names[space.disk]}'s disk` : action ? ", tap to put your disk here" : "");
        return el(`button.space.c-${space.color}${action ? ".legal" : ""}${taken ? ".taken" : ""}`,
          {
            type: "button", "aria-label": label, disabled: !action,
            dataset: { flask: flask.flask, space: String(space.index), color: space.color },
            onclick: action ? () => perform(action) : null,
          },
          el("span.space-letter", {}, colorLetter(space.color)),
          taken ? playerChip(space.disk, marks, names) : null);
      })))));
  lab.classList.toggle("placing", placeActions.length > 0);
}

function renderDrop(view, undo, perform) {
  const box = $("#drop");
  const turn = view.turn || {};
  const fallen = turn.drops || [];
  // A drop the beam saw but no sensor named sits in the bowl as null until a player names it.
  const unnamed = view.phase === "name_drop";
  const drop = unnamed ? null : (turn.pending || view.last_drop || null);
  const dot = (c) => (c ? colorDot(c, "small") : el("span.dot.small.unknown", { "aria-label": "unnamed drop" }, "?"));
  fill(box,
    el("div.drop-title", {}, unnamed || turn.pending ? "This drop" : drop ? "Last drop" : "Drop"),
    drop ? el(`span.dot.huge.c-${drop}`, { id: "drop-big", "aria-label": `${drop} drop` }, colorLetter(drop))
      : el(`span.dot.huge${unnamed ? ".unknown" : ".empty"}`, { id: "drop-big",
        "aria-label": unnamed ? "a drop of unknown colour" : "no drop yet" }, unnamed ? "?" : "–"),
    drop ? el("div.drop-name.color-name", {}, drop)
      : el("div.drop-name", {}, unnamed ? "Which colour?" : "None yet"),
    (turn.bowl !== null && turn.bowl !== undefined) || fallen.length
      ? el("div.turn-drops", { "aria-label": "drops this turn" },
        el("span.turn-count", {}, `${fallen.length} of 4`), fallen.map(dot))
      : null,
    undo ? el("button.big-button.quiet.undo", { type: "button", dataset: { action: "undo" },
      onclick: () => perform(undo) }, "Undo") : null);
}

function renderBowls(view, bowlActions, perform) {
  const box = $("#bowls");
  const legalBowl = new Map(bowlActions.map((a) => [a.bowl, a]));
  fill(box, el("h3.panel-title", {}, "Bowls"),
    el("div.bowl-row", {}, (view.bowls || []).map((bowl) => {
      const action = legalBowl.get(bowl.index);
      const slots = [...bowl.drops.map((c) => (c ? colorDot(c, "small")
        : el("span.dot.small.unknown", { "aria-label": "unnamed drop" }, "?"))),
        ...[...Array(Math.max(0, 4 - bowl.drops.length))].map(() => el("span.dot.small.empty", {}, ""))];
      return el(`button.bowl${action ? ".legal" : ""}${bowl.full ? ".full" : ""}`,
        {
          type: "button", disabled: !action, dataset: { bowl: String(bowl.index) },
          "aria-label": `bowl ${bowl.index + 1}: ${bowl.drops.join(", ") || "empty"}` +
            (action ? ", tap to empty it into the cauldron" : ""),
          onclick: action ? () => perform(action) : null,
        },
        el("span.bowl-name", {}, `Bowl ${bowl.index + 1}`),
        el("span.bowl-drops", {}, slots));
    })));
}

function renderCauldron(view) {
  const box = $("#cauldron");
  const contents = view.cauldron || {};
  const total = view.cauldron_total ?? Object.values(contents).reduce((a, b) => a + b, 0);
  fill(box, el("h3.panel-title", {}, `In the cauldron: ${total}`),
    el("div.cauldron-row", {}, Object.entries(contents).map(([c, n]) =>
      el(`span.count${n ? "" : ".none"}`, { "aria-label": `${n} ${c}` }, colorDot(c, "small"), `×${n}`))));
}

function renderActions(session, legal, perform, simulated) {
  const box = $("#actions");
  const buttons = [];
  if (session.outcome) {
    buttons.push(el("button.big-button.go", { type: "button", id: "btn-play-again",
      onclick: () => document.dispatchEvent(new CustomEvent("potionpi:new-game")) }, "Play again"));
  }
  for (const a of legal.other.filter((x) => x.type !== "undo")) {
    const label = a.type === "place_swap"
      ? actionLabel({ ...a, with_name: session.players[Object.entries(session.state?.cave?.apprentices || {})
        .find(([, sp]) => sp === a.space)?.[0]] }) : actionLabel(a);
    buttons.push(el(`button.big-button${a.type === "undo" ? ".quiet" : ""}`, { type: "button", onclick: () => perform(a),
      dataset: { action: a.type } }, label));
  }
  // Without a drop sensor the players say what fell; the simulation panel covers it in --sim.
  const manual = simulated ? [] : legal.manualDrop.filter((a) => a.color);
  const details = manual.length
    ? el("details.manual-drop", {},
      el("summary", {}, "No drop sensor? Tap the colour that fell"),
      el("div.color-buttons", {}, manual.map((a) =>
        el(`button.color-button.c-${a.color}`, { type: "button", onclick: () => perform(a),
          "aria-label": `a ${a.color} drop fell` }, colorLetter(a.color)))))
    : null;
  fill(box, buttons, details);
  // Keep an opened "by hand" panel open across updates.
  if (details && box.dataset.manualOpen === "yes") details.open = true;
  details?.addEventListener("toggle", () => { box.dataset.manualOpen = details.open ? "yes" : "no"; });
}

function renderPlayers(session, view, marks) {
  const box = $("#players");
  const players = view.players || session.players.map((name, seat) => ({ seat, name }));
  fill(box, players.map((p) => {
    const cards = Object.entries(p.cards || {}).filter(([, n]) => n > 0);
    return el(`div.player${p.seat === view.active && !session.outcome ? ".active" : ""}`,
      { dataset: { seat: String(p.seat) } },
      el(`span.disk.big.seat-${p.seat}`, { "aria-hidden": "true" }, marks[p.seat]),
      el("div.player-info", {},
        el("div.player-name", {}, p.name),
        el("div.player-stats", {},
          p.disks_left !== undefined ? el("span", {}, `${p.disks_left} disks`) : null,
          p.apprentice ? el("span", {}, `at ${p.apprentice}`) : null,
          cards.map(([potion, n]) => el(`span.card-chip.ob-${potion}`, { title: pretty(potion) },
            `${shortCard(potion)}${n > 1 ? " ×" + n : ""}`)))));
  }));
}

/** The six big colour buttons for naming a drop the beam saw without a colour. */
export function renderPicker(nameActions, perform) {
  const modal = $("#picker");
  if (!nameActions.length) { modal.hidden = true; return; }
  fill($("#picker-colors"), nameActions.map((a) =>
    el(`button.color-button.huge.c-${a.color}`, {
      type: "button", "aria-label": a.color, dataset: { color: a.color },
      onclick: () => perform(a),
    }, el("span.letter", {}, colorLetter(a.color)), el("span.word", {}, a.color))));
  modal.hidden = false;
}
