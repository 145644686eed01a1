// A game that has ended, replayed step by step on the tablet (GET /api/v1/history/<n>/replay):
// the board is drawn by the game's own tablet.js from what the table saw after each action,
// with that action's line from the game log. First, back, play, next, last, or a slider; the
// live table goes on underneath and comes back with "Back to the table".
import { $, el } from "./ui.js";
import { getJSON } from "./net.js";
import { styled } from "./scores.js";       // the bar's stylesheet is the score panel's

const PAGE = 25;                 // steps fetched at once (the API's default page)
const PLAY_MS = 1200;            // one step per this many ms while playing

let replay = null;               // {game, name, total, step, pages: Map(start → steps), playing}
let timer = null;

// app.js draws each step ("potionpi:replay-step", the step's session) and the live table
// again at the end ("potionpi:replay-end"); it asks to leave when a new game is set up
const tell = (name, detail) => document.dispatchEvent(new CustomEvent(name, { detail }));
document.addEventListener("potionpi:replay-leave", () => stopReplay());
document.addEventListener("keydown", (e) => {
  if (!replay || !$("#sheet").hidden) return;
  if (e.key === "Escape") stopReplay();
  else if (e.key === "ArrowRight") { pause(); go(replay.step + 1); }
  else if (e.key === "ArrowLeft") { pause(); go(replay.step - 1); }
});

/** Replay game number ``gameNo`` from its set-up (``step``: from that step on). */
export async function startReplay(gameNo, step = 0) {
  const start = Math.floor(step / PAGE) * PAGE;
  const [first] = await Promise.all([getJSON(`/api/v1/history/${gameNo}/replay?from=${start}&limit=${PAGE}`), styled]);
  pause();
  replay = { game: first.game, name: first.name, players: first.players, total: first.total, step: 0,
             pages: new Map([[start, first.steps]]), playing: false };
  bar();
  await go(Math.min(step, first.total - 1));
}

/** Leave the replay: the live table again. */
export function stopReplay() {
  if (!replay) return;
  pause();
  replay = null;
  $("#replay-bar")?.remove();
  $("#game-view").removeAttribute("tabindex");
  document.body.classList.remove("replaying");
  tell("potionpi:replay-end");
}

async function stepAt(index) {
  const start = Math.floor(index / PAGE) * PAGE;
  if (!replay.pages.has(start)) {
    const page = await getJSON(`/api/v1/history/${replay.game}/replay?from=${start}&limit=${PAGE}`);
    if (!replay) return null;
    replay.pages.set(start, page.steps);
  }
  return replay.pages.get(start).find((s) => s.step === index) || null;
}

async function go(index) {
  if (!replay) return;
  const target = Math.max(0, Math.min(replay.total - 1, index));
  let step;
  try {
    step = await stepAt(target);
  } catch (err) {
    pause();
    say(err.status === 404 || err.status === 409 ? sentence(err.message) : "The table did not answer. Try again in a moment.");
    return;
  }
  if (!replay || !step) return;
  replay.step = target;
  update(step);
  tell("potionpi:replay-step", step.session);
  // the next page before it is needed, so playing never waits at a page's end
  if (target % PAGE > PAGE - 5) stepAt(target + PAGE - (target % PAGE)).catch(() => {});
}

function play() {
  if (!replay) return;
  if (replay.step >= replay.total - 1) go(0);
  replay.playing = true;
  timer = setInterval(async () => {
    if (!replay || replay.step >= replay.total - 1) { pause(); return; }
    await go(replay.step + 1);
  }, PLAY_MS);
  update();
}

function pause() {
  clearInterval(timer);
  timer = null;
  if (replay) replay.playing = false;
  if (replay) update();
}

const sentence = (s) => String(s || "").replace(/^./, (c) => c.toUpperCase()) + ".";
const clock = (t) => new Date(t * 1000).toLocaleString([], { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

function say(text) {
  const line = $("#replay-line");
  if (line) line.textContent = text;
}

/** The bar under the board: where the replay is, the step's line, and the buttons. */
function bar() {
  $("#replay-bar")?.remove();
  document.body.classList.add("replaying");
  const button = (id, label, words, onclick) =>
    el("button.big-button.replay-button", { type: "button", id, "aria-label": words, title: words, onclick }, label);
  const slider = el("input.replay-slider", { type: "range", id: "replay-slider", min: 0, max: replay.total - 1, step: 1,
    value: 0, "aria-label": "Step of the game", oninput: (e) => { const to = Number(e.target.value); pause(); go(to); } });
  const box = el("section.replay-bar", { id: "replay-bar", role: "region", "aria-label": "Replay" },
    el("div.replay-where", {}, el("b.replay-title", {}, `Replay: ${replay.name} #${replay.game}`),
      el("span.replay-line", { id: "replay-line", "aria-live": "polite" }),
      el("button.big-button.go.replay-leave", { type: "button", id: "replay-leave", onclick: stopReplay }, "Back to the table")),
    el("div.replay-controls", {},
      button("replay-first", "|◀◀", "First step: the set-up", () => { pause(); go(0); }),
      button("replay-back", "◀", "One step back", () => { pause(); go(replay.step - 1); }),
      button("replay-play", "▶ Play", "Play the game step by step", () => (replay.playing ? pause() : play())),
      button("replay-next", "▶", "One step forward", () => { pause(); go(replay.step + 1); }),
      button("replay-last", "▶▶|", "Last step: the end", () => { pause(); go(replay.total - 1); }),
      slider,
      el("span.replay-count", { id: "replay-count" }), el("span.replay-when", { id: "replay-when" })));
  $("#game-view").after(box);          // under the board, which keeps the rest of the screen
  // a replayed board has nothing to tap but may scroll above the bar: reachable by keyboard
  $("#game-view").tabIndex = 0;
}

function update(step = null) {
  if (!replay) return;
  $("#replay-count").textContent = `step ${replay.step} of ${replay.total - 1}`;
  $("#replay-slider").value = String(replay.step);
  const play = $("#replay-play");
  play.textContent = replay.playing ? "⏸ Pause" : "▶ Play";
  play.setAttribute("aria-label", replay.playing ? "Pause" : "Play the game step by step");
  $("#replay-first").disabled = $("#replay-back").disabled = replay.step === 0;
  $("#replay-next").disabled = $("#replay-last").disabled = replay.step >= replay.total - 1;
  if (step) {
    $("#replay-when").textContent = clock(step.at);
    const line = $("#replay-line");
    line.textContent = step.text;
    line.classList.toggle("undone", !!step.undone);
    line.title = step.undone ? "taken back by a later undo" : "";
    document.body.dataset.replayStep = String(step.step);
  }
}
