// Elixir at the table: whose turn and which step, the die (big), the Unknown read aloud,
// what each wizard may do now, gold, racks, timers, the dead-end street, the winner.
// Secrets (brew cards, formulas) are never here: they are on each wizard's phone (phone.js).
// Drawn by app.js as render(root, session, ctx); the guide is docs/elixir-tablet.md.
import { el } from "/static/js/ui.js";
import { showSeats } from "/static/js/seats.js";
import { STEPS, cap, chip, chips, ingredientTable, legend, seatMark, timer } from "./common.js";

const picks = {};               // what is being chosen on screen: key -> {ingredient: n}
let composer = null;            // the experiment being set out: {key, herb, special, gems}
let boardSeen = null;           // the game whose winner card was closed with "See the board"

export function render(root, session, ctx) {
  const state = session.state;
  const info = ingredientTable(state);
  const names = session.players;
  document.body.dataset.phase = state.step;
  const actions = session.legal_actions || [];
  const tree = el("div.ex", { id: "ex", dataset: { step: state.step, stage: String(state.stage) } },
    el("section.ex-stage.panel", { id: "ex-stage", "aria-live": "polite" },
      header(state, names),
      el("div.ex-stage-row", {}, dieBox(state, names), unknownCard(state, names)),
      decisions(state, session, ctx, info, names, actions),
      ctx.told),          // the shell's "what just happened" line (read aloud from there: 🔈)
    el("aside.ex-side", {}, el("div.ex-side-buttons", {}, ctx.undo, phonesButton(state, ctx)),
      tableBox(state, info, names)),
    el("section.ex-players", { id: "ex-players" }, state.players.map((p) => wizardCard(state, p, info))),
    // a replay (ctx.replay) reaching the end shows it, even of a game whose board was seen
    state.winner !== null && (ctx.replay || boardSeen !== session.id) ? winnerBox(state, session, names, ctx) : null);
  root.replaceChildren(tree);
}

// --- the head: round, whose turn, the steps of a turn -----------------------------------------
function header(state, names) {
  if (state.step === "opening") return el("h2.ex-title", {}, "Who begins? Everyone rolls: the highest number starts");
  if (state.step === "over") return el("h2.ex-title", {}, `${names[state.winner]} wins in round ${state.round}`);
  const steps = [];
  for (let i = 1; i <= 8; i += 1) {
    const cls = i < state.stage ? ".done" : i === state.stage ? ".now" : "";
    steps.push(el(`li.ex-step${cls}`, { dataset: { step: String(i) } }, el("b", {}, String(i)), " ", STEPS[i]));
  }
  return el("div.ex-head", {},
    el("h2.ex-title", {}, seatMark(state.turn, names[state.turn]), ` ${names[state.turn]}'s turn`,
      el("small", {}, ` · round ${state.round}`)),
    el("ol.ex-steps", { "aria-label": "the steps of a turn" }, steps));
}

// --- the die: shown big, while it counts (the opening's rolls, this turn's roll) -------------------
// (short: the die's box is narrow; the story line beside says it whole)
const DOUBTFUL = "stays on the lab table: rolled again next round";

function dieBox(state, names) {
  const d = state.die;
  const counts = d && (state.step === "opening" ? d.for === "who begins"
    : state.step !== "over" && d.for !== "who begins" && d.round === state.round && d.turn === state.turn);
  if (!counts) {
    return el("div.ex-die.empty", { id: "ex-die" }, el("span.ex-die-face", {}, "?"),
      el("small", {}, state.step === "opening" ? "no roll yet" : "no roll this turn"));
  }
  const changed = d.counts !== d.value;
  return el(`div.ex-die.r-${d.result || "plain"}`, { id: "ex-die", dataset: { value: String(d.value), n: String(d.n) } },
    el("span.ex-die-face", { "aria-label": `the die shows ${d.value}` }, String(d.value)),
    el("span.ex-die-who", {}, `${names[d.seat]} · ${d.for}`),
    changed ? el("span.ex-die-counts", {}, `counts ${d.counts}`) : null,
    d.result ? el("b.ex-die-result", {}, { failed: "✗ failed", doubtful: "? doubtful", success: "✓ success",
      hit: "✗ it strikes", miss: "✓ nothing happens" }[d.result] || d.result) : null,
    d.result === "doubtful" ? el("small.ex-why", { id: "ex-die-why" }, DOUBTFUL) : null);
}

// --- the Unknown just drawn (the shell reads it aloud when that is on: it is in the story) -------------
function unknownCard(state, names) {
  const u = state.unknown;
  if (!u) return el("div.ex-unknown.empty", {}, el("small", {}, `${state.unknowns_left} Unknowns in the stack`));
  const words = { hit: "It struck.", miss: "Nothing happened.", declined: "Declined: back under the stack.",
    accepted: "Accepted.", "slid back": "Slid back: the solution to dizziness protects." };
  return el("div.ex-unknown", { id: "ex-unknown", dataset: { unknown: u.id } },
    el("h3", {}, `${names[u.seat]} meets ${u.name}`, u.kind === "hire" ? el("span.ex-price", {}, ` hire: ${u.price} gold`) : null),
    el("p.ex-unknown-text", {}, u.text),
    u.result ? el("p.ex-unknown-result", {}, words[u.result] || u.result) : null);
}

/** Each wizard's brew cards and formula table are on his own phone: the QR codes (PIN first);
 *  not in a replay (ctx.replay): the phone links are the live table's. */
function phonesButton(state, ctx) {
  if (state.winner !== null || ctx.replay) return null;
  return el("button.big-button.ex-phones", { type: "button", id: "ex-phones", onclick: () => showSeats() },
    "Phone links");
}

// --- what can be done now -----------------------------------------------------------------------------
const of = (actions, type) => actions.filter((a) => a.type === type);
const button = (label, action, ctx, cls = "") => el(`button.big-button${cls}`, { type: "button",
  dataset: { action: action.type, to: action.to, ingredient: action.ingredient, value: action.value },
  onclick: () => ctx.perform(action) }, label);

function decisions(state, session, ctx, info, names, actions) {
  const box = el("div.ex-do", { id: "ex-do" });
  const p = state.pending;
  if (state.step === "over") return box;
  if (state.step === "opening" || (p && p.kind === "roll")) {
    box.append(rollButtons(state, actions, ctx, names));
    return box;
  }
  if (p) {
    box.append(el("p.ex-ask", {}, cap(p.words) + "."));
    if (p.kind === "offer") box.append(offer(state, p, actions, ctx, info));
    else if (p.kind === "give" && p.what === "brew") {
      box.append(el("p.ex-phone", {}, `On the phone: ${names[p.seat]} chooses the card. No phone at hand?`));
      of(actions, "give").forEach((a) => box.append(button("Let the table pick one at random", a, ctx)));
    }
    else if (p.kind === "give") box.append(picker(state, "give", state.players[p.seat].carried, p.count, info,
      (ings) => ctx.perform({ type: "give", seat: p.seat, ingredients: ings }), "Put in the dead-end street"));
    else if (p.kind === "loot") box.append(loot(state, p, ctx, info));
    return box;
  }
  const seat = state.turn;
  const me = state.players[seat];
  if (state.step === "move") {
    if (me.at_healer) {
      box.append(el("p.ex-ask", {}, `At the healer: pay ${3} gold to move on, or stay.`));
      of(actions, "pay_healer").forEach((a) => box.append(button("Pay the healer 3 gold", a, ctx, ".go")));
    } else {
      box.append(el("p.ex-ask", {}, `Move up to ${me.range} spaces on the board, then tap where the wizard stopped:`));
    }
    box.append(el("div.ex-places", {}, of(actions, "move").map((a) =>
      button(a.to === "healer" ? "Stay at the healer" : placeWord(state, a.to), a, ctx, ".ex-place"))));
  } else {
    box.append(el("p.ex-ask", {}, `${me.place_name}: ${hereWords(me.place)}`));
    const buys = of(actions, "buy");
    if (buys.length) box.append(el("div.ex-row", {}, buys.map((a) => {
      const i = info[a.ingredient];
      return el("button.big-button.ex-buy", { type: "button", dataset: { action: "buy", ingredient: a.ingredient, free: a.free ? "yes" : "no" },
        onclick: () => ctx.perform(a) }, chip(a.ingredient, info), ` ${a.free ? "free" : i.price + " gold"}`,
      el("small", {}, ` (${i.stock} left)`));
    })));
    of(actions, "deposit").forEach((a) => box.append(button("Put everything carried in the racks", a, ctx, ".go")));
    const dead = state.dead_end;
    if (me.place === "dead_end" && (Object.keys(dead.ingredients).length || dead.brews.length)) {
      box.append(el("div.ex-row", {}, Object.keys(dead.ingredients).map((k) => el("button.big-button.ex-take",
        { type: "button", dataset: { action: "take", ingredient: k }, onclick: () => ctx.perform({ type: "take", seat, ingredients: { [k]: 1 } }) },
        "Take ", chip(k, info))),
      dead.brews.map((b, i) => el("button.big-button.ex-take", { type: "button", dataset: { action: "take", brew: String(i) },
        onclick: () => ctx.perform({ type: "take", seat, brews: [i] }) }, `Take a brew card (from ${session.players[b.from]})`))));
    }
    const composerBox = brewComposer(state, session, ctx, info, actions);
    if (composerBox) box.append(composerBox);
    const steals = of(actions, "steal");
    if (steals.length) box.append(el("div.ex-row", {}, steals.map((a) => button(`Thieves' fluid: steal from ${names[a.target]}`, a, ctx))));
  }
  const plays = of(actions, "play_unknown");
  if (plays.length) box.append(el("div.ex-row.ex-hired", {}, plays.map((a) =>
    button(`Send ${unknownName(state, a.unknown)} at ${names[a.target]}`, a, ctx))));
  of(actions, "end_turn").forEach((a) => box.append(button("End the turn ➜", a, ctx, ".go.ex-end")));
  if (state.step === "arrived") box.append(el("p.ex-phone", {}, "Potions are drunk from the wizard's phone (step 8)."));
  return box;
}

function rollButtons(state, actions, ctx, names) {
  const rolls = of(actions, "roll");
  const bySeat = new Map();
  rolls.forEach((a) => { if (!bySeat.has(a.seat)) bySeat.set(a.seat, []); bySeat.get(a.seat).push(a); });
  const rows = [...bySeat.entries()].map(([seat, list]) => {
    if (state.dice === "digital") return button(`Roll the die for ${names[seat]}`, list[0], ctx, ".go.ex-roll");
    return el("div.ex-roll-row", {}, el("span.ex-roll-who", {}, `${names[seat]} rolled:`),
      list.map((a) => button(String(a.value), a, ctx, ".ex-pip")));
  });
  return el("div.ex-rolls", {}, state.pending ? el("p.ex-ask", {}, cap(state.pending.words) + ".") : null, rows);
}

function offer(state, p, actions, ctx, info) {
  const u = state.unknown;
  const row = el("div.ex-row");
  if (p.unknown === "fool") {
    row.append(picker(state, "fool", state.players[p.seat].carried, null, info,
      (ings) => ctx.perform({ type: "accept", seat: p.seat, ingredients: ings }), "Sell these for 4 gold each"));
  } else if (p.unknown === "simeon") {
    const shop = Object.fromEntries(state.shops.filter((s) => s.group !== "gem" && s.stock).map((s) => [s.id, s.stock]));
    row.append(picker(state, "simeon", shop, 2, info,
      (ings) => ctx.perform({ type: "accept", seat: p.seat, ingredients: ings }), "Buy these 2 for 1 gold"));
  } else if (p.unknown === "clotilda") {
    row.append(el("p.ex-phone", {}, "On the phone: choose the brew card to sell."));
  } else {
    of(actions, "accept").forEach((a) => row.append(button(u.kind === "hire" ? `Hire for ${u.price} gold` : "Pay 4 gold and draw a brew card", a, ctx, ".go")));
  }
  of(actions, "decline").forEach((a) => row.append(button("No, thank you", a, ctx, ".quiet")));
  return row;
}

function loot(state, p, ctx, info) {
  const victim = state.players[p.from];
  const pool = p.source === "carried" ? victim.carried
    : Object.fromEntries(Object.entries(victim.racks).filter(([k]) => info[k]?.group === "gem"));
  const wrap = el("div.ex-loot");
  wrap.append(picker(state, "loot", pool, p.count, info,
    (ings) => ctx.perform({ type: "loot", seat: p.seat, ingredients: ings, to_lab: true }), "Take into my laboratory"));
  wrap.append(el("button.big-button.quiet", { type: "button", onclick: () => {
    const ings = Object.fromEntries(Object.entries(picks.loot || {}).filter(([k, n]) => k !== "key" && n));
    ctx.perform({ type: "loot", seat: p.seat, ingredients: ings, to_lab: false });
  } }, "Carry it instead"));
  return wrap;
}

/** Tap chips to choose some of ``pool`` (exactly ``count`` if given), then the button sends them. */
function picker(state, name, pool, count, info, onsend, label) {
  const key = `${name}:${state.round}:${state.turn}`;
  if (!picks[name] || picks[name].key !== key) picks[name] = { key };
  const chosen = picks[name];
  const total = () => Object.entries(chosen).filter(([k]) => k !== "key").reduce((s, [, n]) => s + n, 0);
  const send = el("button.big-button.go", { type: "button", dataset: { action: name } },
    label, count ? ` (${total()}/${count})` : "");
  const grid = el("div.ex-row.ex-pick", {}, Object.keys(info).filter((k) => pool[k]).map((k) => {
    const b = el("button.big-button.ex-pickable", { type: "button", dataset: { ingredient: k, picked: String(chosen[k] || 0) },
      onclick: () => {
        const n = chosen[k] || 0;
        chosen[k] = n < pool[k] && (!count || total() < count) ? n + 1 : 0;
        b.dataset.picked = String(chosen[k]);
        b.querySelector(".ex-picked").textContent = chosen[k] ? `✓${chosen[k]}` : "";
        send.textContent = label + (count ? ` (${total()}/${count})` : "");
      } }, chip(k, info, pool[k]), el("span.ex-picked", {}, chosen[k] ? `✓${chosen[k]}` : ""));
    return b;
  }));
  send.onclick = () => {
    const ings = Object.fromEntries(Object.entries(chosen).filter(([k, n]) => k !== "key" && n));
    onsend(ings);
  };
  return el("div.ex-picker", {}, grid, send);
}

// --- step 7: setting out an experiment from the racks ----------------------------------------------------
function brewComposer(state, session, ctx, info, actions) {
  const brews = of(actions, "brew");
  if (!brews.length) return null;
  const seat = state.turn;
  const me = state.players[seat];
  const key = `${session.id}:${state.round}:${seat}`;
  if (!composer || composer.key !== key) composer = { key, herb: null, special: null, gems: {} };
  const racks = me.racks;
  const box = el("div.ex-brew.panel", { id: "ex-brew" }, el("div.panel-title", {},
    me.table ? "Roll the doubtful experiment again (you may add gemstones)" : "Experiment: take from your racks"));
  const pickOne = (group, field) => el("div.ex-row", {}, Object.keys(info).filter((k) => info[k].group === group && racks[k]).map((k) =>
    el(`button.big-button.ex-pickable${composer[field] === k ? ".on" : ""}`, { type: "button", dataset: { brew: field, ingredient: k },
      "aria-pressed": String(composer[field] === k), onclick: () => { composer[field] = composer[field] === k ? null : k; rerender(); } },
    chip(k, info), el("span.ex-picked", {}, composer[field] === k ? "✓1" : ""))));       // marked as the gems are
  const gemRow = el("div.ex-row", {}, Object.keys(info).filter((k) => info[k].group === "gem" && racks[k]).map((k) =>
    el("button.big-button.ex-pickable", { type: "button", dataset: { brew: "gem", ingredient: k, picked: String(composer.gems[k] || 0) },
      onclick: () => { const n = composer.gems[k] || 0; composer.gems[k] = n < racks[k] ? n + 1 : 0; rerender(); } },
    chip(k, info, racks[k]), el("span.ex-picked", {}, composer.gems[k] ? `✓${composer.gems[k]}` : ""))));
  const gems = Object.fromEntries(Object.entries(composer.gems).filter(([, n]) => n));
  const value = Object.entries(gems).reduce((s, [k, n]) => s + info[k].value * n, 0);
  if (me.table) {
    box.append(el("p", {}, "On the lab table: ", chips(me.table.gems, info), " with ", chip(me.table.herb, info), " ", chip(me.table.special, info)));
    box.append(gemRow);
    box.append(el("button.big-button.go", { type: "button", dataset: { action: "brew" },
      onclick: () => ctx.perform({ type: "brew", seat, gems }) }, `Roll again${value ? ` with +${value} in gemstones` : ""}`));
  } else {
    box.append(el("div.ex-brew-cols", {}, el("div", {}, el("small", {}, "gemstones"), gemRow),
      el("div", {}, el("small", {}, "one herb"), pickOne("herb", "herb")),
      el("div", {}, el("small", {}, "one special product"), pickOne("special", "special"))));
    const ready = composer.herb && composer.special && value > 0;
    box.append(el("button.big-button.go", { type: "button", dataset: { action: "brew" }, disabled: !ready,
      onclick: () => ctx.perform({ type: "brew", seat, gems, herb: composer.herb, special: composer.special }) },
    ready ? `Brew: die + ${value}` : "Choose gemstones, a herb and a special product"));
  }
  return box;

  function rerender() { box.replaceWith(brewComposer(state, session, ctx, info, actions)); }
}

// --- the table: shops, supply, stacks, the dead-end street -------------------------------------------------
function tableBox(state, info, names) {
  const shops = ["herb", "special", "gem"].map((g) => el("div.ex-shop", {},
    state.shops.filter((s) => s.group === g).map((s) => el("span.ex-stock", { dataset: { ingredient: s.id } },
      chip(s.id, info), el("small", {}, ` ${s.stock} · ${s.price}g`)))));
  const looked = state.formulas.filter((f) => f.seen_by.length);
  const dead = state.dead_end;
  return el("div.ex-table.panel", { id: "ex-table" },
    el("div.ex-counts", {}, el("span", {}, "supply ", el("b", { id: "ex-supply" }, String(state.supply)), " gold"),
      el("span", {}, "brew stack ", el("b", {}, String(state.stack))), el("span", {}, "Unknowns ", el("b", {}, String(state.unknowns_left)))),
    el("div.panel-title", {}, "Shops (left · price)"), shops, legend(info, "ex-legend"),
    el("div.panel-title", {}, "Dead-end street"),
    el("div", { id: "ex-dead-end" }, Object.keys(dead.ingredients).length || !dead.brews.length ? chips(dead.ingredients, info) : null,
      dead.brews.length ? el("span.ex-dead-brews", {}, ` + ${dead.brews.length} brew card${dead.brews.length > 1 ? "s" : ""} (from ${dead.brews.map((b) => names[b.from]).join(", ")})`) : null),
    el("div.panel-title", {}, "Formula cards looked at"),
    el("div.ex-formulas", { id: "ex-formulas" }, looked.length ? looked.map((f) => el("span.ex-formula",
      { title: `${f.herb} + ${f.special}`, dataset: { pair: f.pair } },
      chip(f.herb, info, 1, "tiny"), chip(f.special, info, 1, "tiny"),
      f.seen_by.map((s) => seatMark(s, names[s])))) : el("span.ex-none", {}, "none yet: a successful experiment looks at one")));
}

function wizardCard(state, p, info) {
  const now = p.seat === state.turn && state.step !== "opening" && state.step !== "over";
  return el(`div.ex-wizard.panel${now ? ".now" : ""}`, { dataset: { seat: String(p.seat) } },
    el("div.ex-wizard-head", {}, seatMark(p.seat, p.name), el("b", {}, p.name),
      el("span.ex-gold", { "aria-label": `${p.gold} gold` }, `${p.gold} gold`)),
    el("div.ex-where", {}, p.at_healer ? "✚ at the healer (cursed)" : `at: ${p.place_name}`, p.fatal ? " · ☠ fatal brew" : ""),
    el("div", {}, el("small", {}, "carries "), chips(p.carried, info, "small")),
    el("div", {}, el("small", {}, "racks "), chips(p.racks, info, "small")),
    p.table ? el("div.ex-labtable", {}, el("small", {}, "lab table "),
      chips(p.table.gems, info, "small"), chip(p.table.herb, info, 1, "small"), chip(p.table.special, info, 1, "small"),
      p.table.doubtful ? el("small.ex-why", {}, " doubtful: rolled again next round") : null) : null,
    el("div.ex-brews", {}, el("span.ex-cards", { "aria-label": `${p.brew_cards} brew cards` }, `▮ ${p.brew_cards} brew card${p.brew_cards === 1 ? "" : "s"}`),
      p.hired.map((h) => el("span.ex-hired-card", {}, `✉ ${h.name}`))),
    p.in_use.length ? el("div.ex-timers", {}, p.in_use.map(timer)) : null);
}

/** The end: the winner, then every wizard's place from the engine's ranking (the rules rank
 * only the winner: the others share second place) with what the table can see of them. */
function winnerBox(state, session, names, ctx) {
  const ranking = session.outcome?.ranking || [];
  return el("div.ex-winner", { id: "ex-winner", role: "dialog", "aria-modal": "true", "aria-labelledby": "ex-winner-title" },
    el("div.ex-winner-box", {}, el("div.ex-winner-icon", { "aria-hidden": "true" }, "⚗"),
      el("h2", { id: "ex-winner-title" }, `${names[state.winner]} brewed the elixir of life!`),
      el("p", {}, `All three parts of the elixir are in one wizard's hands (round ${state.round}).`),
      el("ol.ex-standings", { id: "ex-standings", "aria-label": "final standings" }, ranking.map((r) => {
        const p = state.players[r.seat];
        const shared = ranking.filter((x) => x.place === r.place).length > 1;
        return el(`li.ex-standing${r.place === 1 ? ".won" : ""}`, { dataset: { seat: String(r.seat) } },
          el("b.ex-place", {}, `${r.place}${shared ? "=" : ""}`), seatMark(r.seat, names[r.seat]),
          el("span.ex-standing-name", {}, names[r.seat]),
          el("span.ex-standing-what", {}, r.place === 1 ? "★ elixir of life" : "no elixir",
            ` · ${p.gold} gold · ${p.brew_cards} brew card${p.brew_cards === 1 ? "" : "s"}`));
      })),
      el("div.ex-winner-buttons", {},
        // a replay's end is not the live table's: "Back to the table" is in the replay's bar
        ctx.replay ? null : el("button.big-button.go", { type: "button", onclick: () => document.dispatchEvent(new CustomEvent("potionpi:new-game")) }, "New game"),
        el("button.big-button.quiet", { type: "button", id: "ex-see-board",
          onclick: () => { boardSeen = session.id; document.querySelector("#ex-winner")?.remove(); } }, "See the board")),
      ctx.scores?.()));          // the shell's score panel, beside the ranking
}

const PLACE_WORDS = { jeweller: "◆ Jeweller", special_supplies: "■ Special supplies", herbalist: "● Herbalist",
  lab: "⚗ Own laboratory", street: "⇢ Street", dead_end: "↯ Dead-end street", healer: "✚ Healer" };
function placeWord(state, id) { return PLACE_WORDS[id] || state.places.find((p) => p.id === id)?.name || id; }
function hereWords(place) {
  return { jeweller: "buy gemstones, then brew or end the turn.", special_supplies: "buy special products, then brew or end the turn.",
    herbalist: "buy herbs, then brew or end the turn.", lab: "fill the racks, brew, drink.",
    dead_end: "take what lies here for free.", street: "the Unknown has been met.", healer: "waiting to be healed." }[place] || "";
}
function unknownName(state, id) {
  for (const p of state.players) for (const h of p.hired) if (h.id === id) return h.name;
  return id;
}
