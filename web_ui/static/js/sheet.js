// The table's panel ("More" in the top bar): the game log, the running score (scores.js),
// past games, players' statistics, the rules quick reference and the cue switches. Everything comes from the
// table (/api/v1/session/log, /history, /stats, /games/<id>/quickref), so it survives restarts.
// Under the tabs: the phone links of a game with secrets, /join (QR for more phones and
// tablets), /settings (the owner's downloads, the Pico's firmware) and the firmware line.
import { $, el, fill, toast } from "./ui.js";
import { getJSON, getPatiently } from "./net.js";
import { cueSettings, setCue } from "./cues.js";
import { showSeats } from "./seats.js";
import { readingAloud, setReadAloud } from "./story.js";
import { scorePanel } from "./scores.js";
import { startReplay } from "./replay.js";
import { patientDownloads } from "./download.js";

let tab = "log";
let session = null;
let withPhones = new Set();      // the games whose players keep secrets on their own phones
let asked = Promise.resolve();  // the panel's answers built from the whole history, one after another (ask)
const newest = new Map();       // url -> the number of its newest ask: older ones still queued are skipped
const STALE = Symbol("not wanted any more");

const TABS = { log: drawLog, score: drawScore, history: drawHistory, players: drawPlayers, rules: drawRules, cues: drawCues };

export function setupSheet(games = []) {
  withPhones = new Set(games.filter((g) => g.phones).map((g) => g.id));
  $("#btn-more").addEventListener("click", () => openSheet(tab));
  $("#sheet-seats").addEventListener("click", () => { close(); showSeats(); });
  seatsButton();
  $("#sheet-close").addEventListener("click", close);
  patientDownloads($("#sheet-body"));       // the History tab's files: never a refusal saved as one
  document.querySelectorAll("#sheet .sheet-tab").forEach((b) => b.addEventListener("click", () => openSheet(b.dataset.tab)));
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !$("#sheet").hidden) close(); });
}

/** The table moved on: a log on screen shows the newest action. */
export function sheetSeen(newest) {
  const changed = newest?.id !== session?.id || newest?.version !== session?.version;
  session = newest;
  seatsButton();
  if (changed && !$("#sheet").hidden && (tab === "log" || tab === "score")) draw();
}

/** The phone links, for a running game with secrets (every such game, whatever its tablet draws). */
function seatsButton() {
  $("#sheet-seats").hidden = !(session && !session.outcome && withPhones.has(session.game));
}

/** Open the panel on one of its tabs ("log", "score", "history", "players", "rules", "cues"). */
export function openSheet(name) {
  tab = name in TABS ? name : "log";
  $("#sheet").hidden = false;
  document.querySelectorAll("#sheet .sheet-tab").forEach((b) => b.setAttribute("aria-selected", String(b.dataset.tab === tab)));
  draw();
}

function close() {
  $("#sheet").hidden = true;
  $("#btn-more").focus();
}

/** Draw the tab on show. The body keeps what it shows until the tab's answer is in:
 *  data-tab is the tab asked for, data-shown the one drawn (or said why not). An answer or a
 *  refusal that comes after another tab was tapped is dropped (the log was still coming when
 *  History was tapped: its late error once replaced the history). */
async function draw() {
  const body = $("#sheet-body");
  const name = tab;
  body.dataset.tab = name;
  try {
    await TABS[name](body, name);
    if (tab === name) body.dataset.shown = name;
  } catch (err) {
    if (err === STALE || tab !== name) return;
    fill(body, el("p.form-error", {}, err.status ? sentence(err.message)
      : "The table did not answer. Try again in a moment."));
    body.dataset.shown = name;
  }
}

/** The answer to ``url`` for the tab ``name``, built by the table from the whole history.
 *  The table builds one such answer per device at a time (web_ui/admission.py), so the
 *  panel asks after its previous one is in and asks again when told it is busy (429); an
 *  ask nobody waits for any more (another tab, the panel closed, a newer ask) is skipped
 *  (rejected with STALE). */
function ask(url, name) {
  const mine = (newest.get(url) || 0) + 1;
  newest.set(url, mine);
  const wanted = () => tab === name && !$("#sheet").hidden && newest.get(url) === mine;
  const waiting = () => {
    const body = $("#sheet-body");
    if (wanted() && body.dataset.shown !== name) {
      fill(body, el("p.sheet-hint", { id: "sheet-waiting", dataset: { tab: name } }, "The table is busy with another answer for this tablet; asking again in a moment."));
    }
  };
  const answer = asked.then(() => {
    if (!wanted()) throw STALE;
    return getPatiently(url, { wanted, waiting });
  }).catch((err) => { throw wanted() ? err : STALE; });
  asked = answer.catch(() => {});
  return answer;
}

const sentence = (s) => String(s || "").replace(/^./, (c) => c.toUpperCase()) + ".";
const clock = (t) => new Date(t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
const day = (t) => new Date(t * 1000).toLocaleDateString([], { day: "numeric", month: "short" });

async function drawLog(body, name) {
  const log = await ask("/api/v1/session/log", name);
  if (tab !== "log") return;
  fill(body,
    el("p.sheet-hint", {}, "Newest first. Crossed out: taken back by an undo."),
    log.entries.length ? el("ol.log-list", { id: "log-list" }, log.entries.map((e) =>
      el(`li.log-item${e.undone ? ".undone" : ""}${e.undo ? ".undo" : ""}${e.source === "sensor" ? ".sensor" : ""}`,
        { dataset: { version: String(e.version) } },
        el("span.log-time", {}, clock(e.at)), el("span.log-text", {}, e.text))))
      : el("p", {}, "Nothing has happened yet in this game."),
    log.total > log.entries.length ? el("p.sheet-hint", {}, `The newest ${log.entries.length} of ${log.total}.`) : null);
}

function drawScore(body) {
  const panel = session && scorePanel(session, { final: !!session.outcome, id: "score-tab" });
  fill(body, panel || el("p", {}, session ? "This game keeps no score." : "No game is running."),
    panel ? el("p.sheet-hint", {}, "★ marks whoever is ahead; ? is what the table cannot know (a card face down).") : null);
}

async function drawHistory(body, name) {
  const { games } = await ask("/api/v1/history?limit=50", name);
  if (tab !== "history") return;
  const finished = games.filter((g) => g.winners.length);
  fill(body,
    finished.length ? el("table.stats-table", { id: "history-table" },
      el("thead", {}, el("tr", {}, el("th", {}, "When"), el("th", {}, "Game"), el("th", {}, "Winner"),
        el("th.num", {}, "Min"))),
      el("tbody", {}, finished.map((g) => el("tr", { dataset: { game: String(g.id) } },
        el("td", {}, day(g.started)), el("td", {}, g.name, el("br"), el("small", {}, g.players.join(", ")), el("br"),
          el("div.row-links", { dataset: { downloads: "" } },
            el("button.row-export.row-replay", { type: "button", dataset: { replay: String(g.id) },
              "aria-label": `Replay ${g.name} game ${g.id} step by step`, onclick: () => replayGame(g.id) }, "▶ Replay"),
            el("a.row-export", { href: `/api/v1/history/${g.id}.bgsplay`, download: `potionpi-${g.game}-${g.id}.bgsplay`,
              "aria-label": `Download ${g.name} game ${g.id} for BG Stats` }, "⤓ BG Stats"))),
        el("td", {}, g.winners.join(" and ")), el("td.num", {}, g.minutes === null ? "–" : String(g.minutes))))))
      : el("p", {}, "No finished game yet. Games end up here with their winners."),
    games.length > finished.length
      ? el("p.sheet-hint", {}, `${games.length - finished.length} game(s) not finished (running, or replaced by a new game).`) : null,
    el("div.export-links", { dataset: { downloads: "" } }, el("a.big-button.quiet", { href: "/api/v1/history.csv", download: "potionpi-history.csv",
      id: "export-csv" }, "Download all games (CSV)"),
      // BG Stats opens a .bgsplay file (docs/api.md "BG Stats export"); finished games only
      finished.length ? el("a.big-button.quiet", { href: "/api/v1/history.bgsplay", download: "potionpi-all.bgsplay",
        id: "export-bgstats" }, "Download all games (BG Stats)") : null));
}

/** Close the panel and replay a game on the board (replay.js); a refusal is said here. */
async function replayGame(gameNo) {
  try {
    await startReplay(gameNo);
    close();
  } catch (err) {
    toast(err.status ? sentence(err.message) : "The table did not answer. Try again in a moment.", "warn");
  }
}

async function drawPlayers(body, name) {
  const [data, { drawStats }] = await Promise.all([ask("/api/v1/stats", name), import("./stats.js")]);
  if (tab !== "players") return;
  await drawStats(body, data, session?.players || []);
}

async function drawRules(body) {
  const id = session?.game || document.querySelector('#start-form input[name="game"]:checked')?.value;
  if (!id) { fill(body, el("p", {}, "Pick a game first.")); return; }
  const ref = await getJSON(`/api/v1/games/${encodeURIComponent(id)}/quickref`);
  if (tab !== "rules") return;
  fill(body, el("div.rules-card", { id: "rules-card" },
    el("h3", {}, `${ref.name}: a turn`), el("ol", {}, ref.turn.map((t) => el("li", {}, t))),
    el("h3", {}, "Scoring and the end"), el("ul", {}, ref.scoring.map((t) => el("li", {}, t)))));
}

function drawCues(body) {
  const now = cueSettings();
  const toggle = (name, label) => el("label.cue-toggle", {},
    el("input", { type: "checkbox", id: `cue-${name}`, checked: now[name], onchange: (e) => setCue(name, e.target.checked) }),
    el("span", {}, label));
  fill(body,
    el("p", {}, "A short sound and a buzz when there is something new to do, at the end of a game, and when the cauldron warns."),
    toggle("sound", "Sound"), toggle("vibrate", "Vibration (where the tablet can)"),
    el("label.cue-toggle", {},
      el("input", { type: "checkbox", id: "cue-read-aloud", checked: readingAloud(),
                    onchange: (e) => setReadAloud(e.target.checked) }),
      el("span", {}, "Read aloud: what the table does next and what just happened (🔈 beside the line)")),
    el("p.sheet-hint", {}, "Remembered on this tablet only."));
}
