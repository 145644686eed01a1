// A player's phone at the end (every game, the seat pages): who won, this seat's own place
// and score, everyone's standing; and once the tablet starts the next game, the way into it.
import { el } from "./ui.js";

const ORDINAL = (n) => `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd"
  : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;
const sentence = (s) => String(s || "").replace(/^./, (c) => c.toUpperCase()).replace(/([^.!?])$/, "$1.");

/** The end of the game as `seat` sees it (null while the game runs). */
export function outcomeBox(session, seat) {
  const over = session.outcome;
  if (!over) return null;
  const names = session.players || [];
  const ranking = over.ranking || [];
  const said = over.results || [];
  const mine = ranking.find((r) => r.seat === seat);
  const shared = (r) => ranking.filter((x) => x.place === r.place).length > 1;
  const won = (over.winners || []).includes(seat);
  const place = (r) => `${ORDINAL(r.place)}${shared(r) ? " (shared)" : ""}`;
  return el(`section.seat-outcome${won ? ".won" : ""}`, { id: "seat-outcome", role: "status", "aria-labelledby": "seat-outcome-title" },
    el("h2", { id: "seat-outcome-title" }, won ? "★ You won!" : "The game is over"),
    el("p.seat-outcome-message", {}, sentence(over.message)),
    mine ? el("p.seat-outcome-mine", { id: "seat-outcome-mine" }, `${names[seat]}: ${place(mine)} place`,
      said[seat] ? ` · ${said[seat]}` : "") : null,
    ranking.length ? el("ol.seat-standings", { "aria-label": "final standings" }, ranking.map((r) =>
      el(`li${r.seat === seat ? ".me" : ""}`, { dataset: { seat: String(r.seat) } },
        el("b", {}, `${ORDINAL(r.place)}${shared(r) ? "=" : ""}`), el(`span.seat-chip.seat-${r.seat}`, { "aria-hidden": "true" }, String(r.seat + 1)),
        el("span.seat-standing-name", {}, names[r.seat]), said[r.seat] ? el("small", {}, said[r.seat]) : null))) : null,
    el("p.seat-outcome-next", {}, "When the tablet starts the next game, this page says how to join it."));
}

/** What a seat page shows once a new game is on the table: the way into it, then the last
 *  game's result (`last`, the seat session it ended with) without the "when the tablet…" line. */
export function nextGame(notice, last) {
  const end = last ? outcomeBox(last, last.seat) : null;
  end?.querySelector(".seat-outcome-next")?.remove();
  return [nextGameBox(notice), end].filter(Boolean);
}

/** A new game is on the table: this seat's link has ended; the way into the next one. */
function nextGameBox(notice) {
  const game = notice.game_name ? `${notice.game_name}` : "a new game";
  return el("section.seat-next", { id: "seat-next", role: "status" },
    el("h2", {}, `Next game: ${game}`),
    el("p", {}, sentence(notice.message)),
    el("a.big-button.go", { href: notice.join || "/join", id: "seat-next-join" }, "Join the new game"));
}
