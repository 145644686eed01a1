// The running score of every game, from the session's ``scores`` (Game.scores): one piece
// for all five. The top bar's Score button names who is ahead; the panel (the More sheet's
// Score tab, and the end screen beside the ranking: ctx.scores) shows every line for every
// player, ★ on whoever is ahead, "?" for what the table cannot know, and for a game scored
// round by round its sheet of rounds with a chart over the game.
import { el, playerMarks } from "./ui.js";
import { getJSON } from "./net.js";

/** Settled once the stylesheet of the score, the charts, the statistics and the replay is
 *  in (loaded with this module, after the board's first frame: not before it). */
export const styled = (() => {
  const href = "/static/scores.css";
  let hashed = href;
  try { hashed = JSON.parse(document.querySelector('script[type="importmap"]').textContent).imports[href] || href; }
  catch { /* no import map: the plain address */ }
  const link = el("link", { rel: "stylesheet", href: hashed });
  const done = new Promise((resolve) => { link.onload = link.onerror = resolve; });
  document.head.append(link);
  return done;
})();

const AHEAD = { higher: "more is better", lower: "fewer is better" };


/** The top bar's Score button: the chip of whoever is ahead on the main line and the
 *  score ("★ (F) 17"), or "Score" while nobody is ahead; its words say it whole. */
export function scoreButton(button, scores, names) {
  const main = scores?.lines?.[0];
  const marks = playerMarks(names);
  const lead = main?.leaders || [];
  const chips = lead.slice(0, 2).map((s) => el(`span.seat-chip.seat-${s % 7}`, { "aria-hidden": "true" }, marks[s]));
  button.querySelector(".score-lead").replaceChildren(...(lead.length
    ? ["★", ...chips, lead.length > 2 ? `+${lead.length - 2}` : "", String(main.values[lead[0]])] : []));
  const words = !main ? "Score" : `Score: ${main.label}, ` + (lead.length
    ? `${lead.map((s) => names[s]).join(" and ")} ahead with ${main.values[lead[0]]}` : "nobody ahead yet");
  button.title = words;
  button.setAttribute("aria-label", words);
}

function chip(seat, marks, names) {
  return el(`span.seat-chip.seat-${seat % 7}`, { title: names[seat], "aria-label": names[seat] }, marks[seat]);
}

function cell(line, seat) {
  const value = line.values[seat];
  const ahead = line.leaders.includes(seat);
  if (value === null || value === undefined) {
    return el("td.score-value.unknown", { dataset: { line: line.key }, title: line.note || "not known to the table" }, "?");
  }
  return el(`td.score-value${ahead ? ".ahead" : ""}`, { dataset: { line: line.key } },
    ahead ? el("span.score-star", { "aria-label": "ahead" }, "★ ") : null, String(value));
}

// where an end screen has room for the whole final score beside its ranking (a landscape
// tablet); on a phone or in portrait it is folded under one tap, so the ranking stays whole
const ROOMY = "(orientation: landscape) and (min-width: 1000px)";
// the tablet turned to portrait (or the window narrowed): an end screen's open panel folds,
// so the ranking stays whole (turned back it stays folded: one tap opens it)
window.matchMedia(ROOMY).addEventListener("change", (e) => {
  if (!e.matches) document.querySelectorAll("#game-view details.score-panel[open]").forEach((d) => { d.open = false; });
});

/** A box that scrolls sideways when a table is wider than the screen: reachable by keyboard. */
const sideways = (label, ...children) => el("div.score-scroll", { tabindex: "0", role: "region", "aria-label": label }, ...children);

/** The score panel of ``session`` (null if its game keeps no score): a row per player, a
 *  column per line. ``final``: titled "Final score"; ``id``: the element's id; ``fold``: an
 *  end screen's, folded (a <details>) where the screen has no room for it open. */
export function scorePanel(session, { final = false, id = null, fold = false } = {}) {
  const scores = session?.scores;
  if (!scores || !scores.lines?.length) return null;
  const names = session.players || [];
  const marks = playerMarks(names);
  const notes = scores.lines.filter((l) => l.note);
  const title = final ? "Final score" : "Running score";
  const folded = fold && !window.matchMedia(ROOMY).matches;
  return el(`${fold ? "details" : "section"}.score-panel${final ? ".final" : ""}`,
    { id, "aria-label": title, dataset: { game: session.game || "" }, open: fold && !folded ? "" : null },
    fold ? el("summary.score-title", {}, scores.rounds?.length ? `${title}: every round and the chart`
      : `${title} and the chart`) : el("h3.score-title", {}, title),
    sideways(title, el("table.score-table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Player"), scores.lines.map((line) =>
        el("th.score-label", { scope: "col" }, line.label, el("small", {}, AHEAD[line.better] || ""))))),
      el("tbody", {}, names.map((name, seat) => el("tr", { dataset: { seat: String(seat) } },
        el("th.score-player", { scope: "row" }, chip(seat, marks, names), el("span.score-name", {}, name)),
        scores.lines.map((line) => cell(line, seat))))))),
    notes.length ? el("ul.score-notes", {}, notes.map((l) => el("li", {}, el("b", {}, `${l.label}: `), l.note))) : null,
    scores.rounds?.length ? roundSheet(scores, names, marks)
      : final && session.outcome ? overTheGame(session, names) : null);
}

/** At the end of a game scored as it goes (not in rounds): its main score over the whole
 *  game, replayed by the table (GET /api/v1/history/<n>/scores), as a chart. */
function overTheGame(session, names) {
  const box = el("div.score-over", {}, el("h4", {}, `${session.scores.lines[0].label} over the game`));
  const slot = el("div.score-chart", {}, el("p.sheet-hint", {}, "Replaying the game for the chart…"));
  box.append(slot);
  Promise.all([getJSON(`/api/v1/history/${encodeURIComponent(session.id)}/scores`), import("./chart.js")])
    .then(([over, { lineChart }]) => {
      // the first line the table could follow: Elixir's parts are face down until the end,
      // so its chart is the gold
      const known = (line) => line.points.filter((p) => p.values.some((v) => v !== null)).length >= 2;
      const main = over.lines.find(known);
      if (!main) { box.remove(); return; }
      box.querySelector("h4").textContent = `${main.label} over the game`;
      slot.replaceChildren(lineChart({
        title: `${main.label} over the game`, yTitle: main.label, xTitle: "step of the game", stepped: true,
        xValues: main.points.map((p) => p.step),
        series: names.map((name, s) => ({ name, values: main.points.map((p) => p.values[s]) })),
        caption: main.better === "lower" ? "Fewer is better." : null,
      }));
    })
    .catch(() => box.remove());          // only the picture is missing: the table above says it all
  return box;
}

/** Round by round: where every player's main score stood after each round, and the chart. */
function roundSheet(scores, names, marks) {
  const main = scores.lines[0];
  const seats = names.map((_, i) => i);
  const sheet = el("div.score-rounds", {},
    el("h4", {}, `${main.label}, round by round`),
    sideways(`${main.label}, round by round`, el("table.score-table.rounds", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Round"),
        seats.map((s) => el("th.score-seat", { scope: "col" }, chip(s, marks, names))))),
      el("tbody", {}, scores.rounds.map((r, i) => el("tr", { dataset: { round: String(i + 1) } },
        el("th.score-label", { scope: "row" }, r.label.split(" · ")[0],
          r.label.includes(" · ") ? el("small", {}, r.label.split(" · ").slice(1).join(" · ")) : null),
        seats.map((s) => {
          const before = i ? scores.rounds[i - 1].values[s] : null;
          const moved = before === null || r.values[s] === null ? null : r.values[s] - before;
          return el("td.score-value", { dataset: { seat: String(s) } }, String(r.values[s] ?? "?"),
            moved ? el("small.score-moved", {}, `${moved > 0 ? "+" : "−"}${Math.abs(moved)}`) : null);
        })))))));
  const slot = el("div.score-chart");
  sheet.append(slot);
  // the chart module is loaded when a sheet is first shown, not with the page
  import("./chart.js").then(({ lineChart }) => {
    slot.replaceChildren(lineChart({
      title: `${main.label} after each round`, yTitle: main.label,
      xLabels: scores.rounds.map((_, i) => `R${i + 1}`),
      series: seats.map((s) => ({ name: names[s], values: scores.rounds.map((r) => r.values[s]) })),
    }));
  }).catch(() => slot.replaceChildren(el("p.sheet-hint", {}, "The chart could not be loaded.")));
  return sheet;
}
