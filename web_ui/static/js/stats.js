// The Players tab: the table's statistics like BG Stats keeps them (GET /api/v1/stats,
// controller/stats.py): who wins overall with streaks, a chart of each game's wins or
// scores over its plays, head-to-head for a chosen player, and every player's games.
import { el, fill } from "./ui.js";
import { styled } from "./scores.js";

const pct = (rate) => `${Math.round(rate * 100)} %`;
const day = (t) => new Date(t * 1000).toLocaleDateString([], { day: "numeric", month: "short" });
/** A streak in words: "3 won" (wins in a row up to the newest play), "2 lost", "–". */
export const streakWords = (n) => (n > 0 ? `${n} won` : n < 0 ? `${-n} lost` : "–");

let chosen = { player: null, game: null, show: "wins" };      // kept while the tab is redrawn

/** Draw the statistics ``data`` into ``body``; ``playing``: the names at the table now
 *  (the first is chosen for head-to-head until someone else is tapped). */
export async function drawStats(body, data, playing = []) {
  await styled;
  if (!data.overall.length) {
    fill(body, el("p", {}, "Statistics appear after the first finished game."));
    return;
  }
  const names = data.overall.map((r) => r.player);
  if (!names.includes(chosen.player)) chosen.player = names.find((n) => playing.includes(n)) || names[0];
  const games = Object.values(data.charts);
  if (!data.charts[chosen.game]) chosen.game = games.sort((a, b) => b.total_plays - a.total_plays)[0]?.game ?? null;
  const redraw = () => drawStats(body, data, playing);
  fill(body,
    el("h3", {}, "Who wins"),
    table("stats-overall", ["Player", "Plays", "Wins", "Win rate", "Streak", "Best streak"], data.overall.map((r) =>
      [r.player, r.plays, r.wins, pct(r.win_rate), streakWords(r.streak), r.best_streak ? `${r.best_streak} won` : "–"]),
      (r, i) => ({ player: data.overall[i].player })),
    el("p.sheet-hint", {}, "Streak: wins (or plays without a win) in a row, up to the newest game. A shared win counts as a win."),
    chartSection(data, redraw),
    el("h3", {}, "Head to head"),
    picker("stats-player", names, chosen.player, (n) => { chosen.player = n; redraw(); }, "Whose games?"),
    versus(data, chosen.player),
    el("h3", {}, "Every player's games"),
    table("stats-table", ["Player", "Game", "Plays", "Wins", "Win rate", "Streak", "Best"], data.players.map((r) =>
      [r.player, r.name, r.plays, r.wins, pct(r.win_rate), streakWords(r.streak), r.best_streak]),
      (r, i) => ({ player: data.players[i].player, game: data.players[i].game }), [1]));
}

/** A table whose first column names the row; the others are numbers (right-aligned) but
 *  for the ``words`` columns. */
function table(id, heads, rows, dataset, words = []) {
  const kind = (j) => (words.includes(j) ? "" : ".num");
  // a table wider than the panel scrolls sideways: reachable by keyboard too
  return el("div.stats-scroll", { tabindex: "0", role: "region", "aria-label": heads.join(", ") }, el("table.stats-table", { id },
    el("thead", {}, el("tr", {}, heads.map((h, j) => el(`th${j ? kind(j) : ""}`, { scope: "col" }, h)))),
    el("tbody", {}, rows.map((cells, i) => el("tr", { dataset: dataset(cells, i) },
      cells.map((c, j) => (j === 0 ? el("th", { scope: "row" }, String(c)) : el(`td${kind(j)}`, {}, String(c)))))))));
}

/** Big buttons to choose one of ``options`` (strings, or {id, label}). */
function picker(id, options, current, choose, label) {
  return el("div.stats-picker", { id, role: "group", "aria-label": label }, options.map((o) => {
    const value = typeof o === "string" ? o : o.id;
    return el("button.stats-pick", { type: "button", "aria-pressed": String(value === current), dataset: { value },
                                     onclick: () => choose(value) }, typeof o === "string" ? o : o.label);
  }));
}

function versus(data, player) {
  const rows = data.head_to_head.filter((r) => r.player === player);
  if (!rows.length) return el("p", {}, `${player} has not played against anyone yet.`);
  return el("div", {},
    table("stats-versus", ["Against", "Games together", `${player} ahead`, "Behind", "Level"],
      rows.map((r) => [r.opponent, r.plays, r.ahead, r.behind, r.level]), (_c, i) => ({ opponent: rows[i].opponent })),
    el("p.sheet-hint", {}, "Ahead: placed before them in a game both played; level: the same place (a shared win, or both behind the winner)."));
}

/** The chart of one game: every charted player's wins so far after each play, or their
 *  score in each play (games with points). */
function chartSection(data, redraw) {
  const games = Object.values(data.charts).sort((a, b) => a.name.localeCompare(b.name));
  const chart = data.charts[chosen.game];
  if (!chart) return null;
  const show = chart.points ? chosen.show : "wins";
  const box = el("div.stats-chart", { id: "stats-chart", dataset: { game: chart.game, show } },
    el("h3", {}, `${chart.name}: ${show === "wins" ? "wins over time" : "scores over time"}`),
    picker("stats-game", games.map((g) => ({ id: g.game, label: g.name })), chart.game,
      (g) => { chosen.game = g; redraw(); }, "Which game?"),
    chart.points ? picker("stats-show", [{ id: "wins", label: "Wins" }, { id: "scores", label: "Scores" }], show,
      (s) => { chosen.show = s; redraw(); }, "Wins or scores?") : null);
  const slot = el("div.stats-chart-slot");
  box.append(slot);
  const plays = chart.plays;
  const older = chart.total_plays - plays.length;
  import("./chart.js").then(({ lineChart }) => {
    slot.replaceChildren(lineChart({
      title: `${chart.name}: ${show === "wins" ? "wins so far after each play" : "each player's score in each play"}`,
      yTitle: show === "wins" ? "Wins so far" : `Score (${chart.highest_wins ? "more" : "fewer"} is better)`,
      xLabels: plays.map((p) => day(p.started)),
      series: chart.players.map((p) => ({ name: p.player, values: show === "wins" ? p.wins : p.scores })),
      caption: `${plays.length} play${plays.length === 1 ? "" : "s"}` + (older ? ` (the newest; ${older} earlier ones counted in the wins)` : "")
        + (show === "scores" ? ". A gap: not at the table that time." : "."),
    }));
  });
  return box;
}
