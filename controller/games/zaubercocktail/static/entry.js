// A player's hidden lay-down entry: +/− per ingredient and Black Somethings given to a
// kind, live points from the engine's preview, refusals in the rule's own words, and a
// word where a count goes beyond the cards of a kind that surely remain (from the table's
// sample of lay-downs, asked for when the entry opens: the live message does not carry it).
import { fill } from "/static/js/ui.js";
import { getJSON } from "/static/js/net.js";
import { ask, compact, counter, el, kindBadge, sentence, signed } from "./common.js";
import { closeModal, modalKind, openModal } from "./modal.js";

// {seat, gameId, cards, black, preview, seq, sure, entered, redraw} while the modal is open
let entry = null;

const enteredCount = (view) => view.players.filter((p) => p.entered).length;

export function mayEnter(view, seat) {
  const p = view.players[seat];
  return view.phase === "laying" || (view.phase === "trading" && Boolean(p?.dropped_out));
}

/** Close the entry when the table moved on (round scored, undo of a dropout, new game). */
export function syncEntry(session) {
  if (!entry || modalKind() !== "entry") { entry = null; return; }
  if (session.id !== entry.gameId || !mayEnter(session.state, entry.seat)) { closeModal(); return; }
  // another player entered: fewer cards of each kind surely remain
  if (enteredCount(session.state) !== entry.entered) loadSample(entry, session.state);
}

/** The most cards of each kind a lay-down surely may hold now, whatever the others hid
 * (GET .../lay-downs/<seat>: laying nothing and every single set surely left). */
async function loadSample(mine, view) {
  mine.entered = enteredCount(view);
  try {
    const answer = await getJSON(`/api/v1/zaubercocktail/lay-downs/${mine.seat}`);
    if (entry !== mine) return;
    const sure = {};
    for (const a of answer.lay_downs) for (const [kind, n] of Object.entries(a.cards)) sure[kind] = Math.max(sure[kind] || 0, n);
    mine.sure = sure;
    mine.redraw?.();
  } catch {
    // only a hint: the table still checks every entry against the cards that exist
  }
}

export function openEntry(session, seat, ctx, mark) {
  const view = session.state;
  const name = session.players[seat];
  entry = { seat, gameId: session.id, cards: {}, black: {}, preview: null, seq: 0, sure: null, entered: 0, redraw: null };
  const rows = el("div.zc-entry-rows");
  const foot = el("div.zc-entry-foot", { "aria-live": "polite" });
  const kinds = view.kinds;
  const jokerName = view.black_something.name;
  const jokerMax = view.black_something.cards;

  const blackUsed = () => Object.values(entry.black).reduce((a, b) => a + b, 0);
  const anyCards = () => Object.keys(compact(entry.cards)).length + Object.keys(compact(entry.black)).length > 0;

  // beyond what surely exists whatever the others hid: said on that row only (the table
  // still takes it when the cards are there; its refusal would name the count)
  const beyond = (k, nat) => Boolean(entry.sure) && nat > (entry.sure[k.id] || 0);

  function draw() {
    const p = entry.preview;
    fill(rows, kinds.map((k) => {
      const nat = entry.cards[k.id] || 0, blk = entry.black[k.id] || 0;
      const more = p?.one_more?.[k.id];
      const blocked = more?.blocked;
      const inSet = p?.ok ? (p.sets.find((s) => s.kind === k.id)?.points ?? null) : null;
      const n = nat + blk;
      const livePts = n >= view.entry_rules.min_per_kind ? k.points[Math.min(n, k.most)] : 0;
      return el(`div.zc-entry-row${n ? ".on" : ""}`, { dataset: { kind: k.id } },
        kindBadge(k.id),
        el("span.zc-entry-name", {}, el("span.zc-entry-kind", {}, k.name, el("small", {}, ` most ${k.most}`)),
          el("span.zc-entry-more", {},
            blocked ? el("small.blocked", {}, sentence(blocked)) :
            more && n > 0 ? `one more ${signed(more.adds)}` : "",
            beyond(k, nat) ? el("small.zc-entry-left", { title: `${entry.sure[k.id] || 0} surely left, whatever the others hid` },
              " · the table checks the cards left") : null)),
        counter({ value: nat, label: k.name, testid: `cards-${k.id}`, extra: "natural",
          plusOff: Boolean(blocked) || nat >= k.cards,
          onChange: (d) => change("cards", k.id, d) }),
        counter({ value: blk, label: `${jokerName} as ${k.name}`, testid: `black-${k.id}`, extra: "black",
          // a Black Something is never laid alone: only beside a real card of its kind
          plusOff: Boolean(blocked) || nat === 0 || blackUsed() >= jokerMax,
          onChange: (d) => change("black", k.id, d) }),
        el("span.zc-entry-points", { title: "points for this set" }, n ? String(inSet ?? livePts) : ""));
    }));
    const ok = p?.ok && anyCards();
    fill(foot,
      el("div.zc-entry-total", {},
        el("span", {}, "Points "),
        el("b.zc-total#zc-entry-total", {}, p?.ok ? String(p.points) : "–"),
        p?.ok && p.cards_played ? el("span.zc-entry-cards", {}, ` with ${p.cards_played} cards`) : null),
      el("p.zc-refusal#zc-entry-refusal", { role: "alert" }, p && !p.ok ? sentence(p.refusal) : ""),
      el("div.zc-entry-buttons", {},
        el("button.big-button.quiet", { type: "button", onclick: () => closeModal() }, "Cancel"),
        el("button.big-button#zc-lay-nothing", { type: "button", onclick: () => submit(true) },
          "I lay nothing"),
        el("button.big-button.go#zc-entry-done", { type: "button", disabled: !ok, onclick: () => submit(false) },
          "Done – hide it")));
  }

  async function refresh() {
    const mine = ++entry.seq;
    try {
      const p = await ask("/preview", { cards: compact(entry.cards), black: compact(entry.black) });
      if (!entry || mine !== entry.seq) return;
      entry.preview = p;
    } catch (err) {
      if (!entry || mine !== entry.seq) return;
      entry.preview = { ok: false, refusal: err.message, one_more: entry.preview?.one_more || {} };
    }
    draw();
  }

  function change(which, kind, d) {
    const t = entry[which];
    t[kind] = Math.max(0, (t[kind] || 0) + d);
    if (which === "cards" && t[kind] === 0 && entry.black[kind]) {
      // removing the last real card takes its Black Somethings back too
      entry.black[kind] = 0;
    }
    entry.preview = entry.preview && { ...entry.preview, ok: false, refusal: "" };
    draw();
    refresh();
  }

  async function submit(nothing) {
    const action = { type: "lay_down", seat,
      cards: nothing ? {} : compact(entry.cards), black: nothing ? {} : compact(entry.black) };
    const body = await ctx.perform(action);
    if (body) closeModal();       // the player's card now says "entered (hidden)"
  }

  openModal("entry", el("div.zc-entry", { dataset: { seat: String(seat) } },
    el("div.zc-entry-head", {}, mark,
      el("h2", {}, `${name}'s lay-down`),
      el("p.zc-secret", {}, "Only you look: it stays hidden until the host reveals all.")),
    el("div.zc-entry-legend", {}, el("span", {}, "Ingredient"), el("span", {}, "cards"),
      el("span", {}, jokerName + "s"), el("span", {}, "points")),
    rows, foot), { closed: () => { entry = null; } });
  entry.redraw = draw;
  draw();
  refresh();
  loadSample(entry, view);
}
