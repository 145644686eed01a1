// The tablet: boot from the server-rendered data, follow the table live, send taps.
// Every game draws itself: /games/<game id>/tablet.js exports render(root, session, ctx)
// and /games/<game id>/tablet.css styles it (both from the game's plug-in folder); its
// optional unmount(root) is called when the board is taken down (another game or a replay
// draws there, the start screen covers it), so it stops its pollers, timers and observers
// (and a device's module it used: the forest floor's /devices/forest_floor/floor.js). The
// shell owns what every game has: the prompt and the one undo button, from the session
// (a game may place the button on its board: ctx.undo; else it sits in the top bar), and
// the story: the "what just happened" line with its read-aloud switch (story.js; a game
// may place it: ctx.told; else it sits under the top bar).
import { $, el, toast, noticeToast } from "./ui.js";
import { keepAwake } from "./awake.js";
import { keepPage } from "./offline.js";
import { ApiError, follow, getJSON, getPatiently, postJSON } from "./net.js";
import { onOpenLog, showStory, storyLine, tellOnLine } from "./story.js";
import { askPin, isUnlocked, lock, setUnlocked } from "./pinpad.js";
// the game on the table when the page was made (the import map's; nothing without one)
import * as onTable from "./table-game.js";

const boot = JSON.parse($("#boot").textContent);
// Not needed for the board's first frame (the More panel, sounds, the firmware notice):
// asked for once that frame is painted (main), so the page fetches fewer files before it.
let sheet, firmware, cues, scores;
const cue = (kind) => cues.then((m) => m.cue(kind));
let current = null;          // the newest session we have drawn
let busy = false;            // one tap at a time: the table answers in a blink
let showingStart = false;
let replayed = null;         // the session of the step on the board while a game is replayed (replay.js)
const awake = keepAwake();   // the screen stays on while a game runs (awake.js)

// --- sessions --------------------------------------------------------------------------
/** Draw a session unless we already have it or something newer. */
function accept(session) {
  if (!session) return;
  if (current && session.id === current.id && session.version <= current.version) return;
  if (current && session.id < current.id) return;            // a late answer about an old game
  const before = current;
  current = session;
  awake.want(!session.outcome);
  showStory(session, before);
  draw();
  sheet.then((m) => m.sheetSeen(session));
  cueFor(before, session);
}

/** Sound/buzz when there is something new to do (the prompt changed) or the game ended;
 *  never for the first drawing of a page, nor for a tap on this tablet (the tapper knows). */
function cueFor(before, after) {
  if (!before || before.id !== after.id || busy) return;
  if (after.outcome && !before.outcome) cue("over");
  else if ((after.prompt || "") !== (before.prompt || "")) cue("next");
}

function draw() {
  if (replayed && !showingStart) {
    drawGame(replayed);
    return;
  }
  if (!current || showingStart) {
    showStart();
    return;
  }
  drawGame(current);
}

// --- a replay: the board shows a step of a game that has ended, nothing on it acts ---------
const notNow = () => { toast("This is a replay. Tap “Back to the table” to play.", "warn"); return Promise.resolve(null); };
// no sound, and no simulated cauldron's buttons: they would act on the live table
const REPLAY_CTX = { perform: notNow, send: notNow, choose: notNow, cue: () => {}, simulated: false, replay: true };

// --- the games ---------------------------------------------------------------------------
const gameModules = new Map();
// The page's game is in already: its board is drawn as this script runs, before the first
// frame (an import() would resolve a task later, after a frame of the empty shell).
if (boot.session && onTable.render) gameModules.set(boot.session.game, Promise.resolve(onTable));
let mounted = null;          // the game module that drew the board last, until its unmount()

/** Take the board's module down: its unmount(root), once, before another draws there. */
function unmountBoard() {
  const mod = mounted;
  mounted = null;
  try { mod?.unmount?.($("#game-view")); } catch (err) { console.error(err); }
}
// Settled once the page's first board (or the start screen) is drawn, or could not be.
let firstDrawn;
const drawnOnce = new Promise((resolve) => { firstDrawn = resolve; });

// The page's import map names every file's hashed URL (cached for good); stylesheets are
// looked up in it by hand, modules by the browser.
const hashed = (() => {
  try { return JSON.parse(document.querySelector('script[type="importmap"]').textContent).imports || {}; }
  catch { return {}; }
})();

/** The game's tablet module, its stylesheet loaded first (so it never draws unstyled). */
function loadGame(id) {
  if (!gameModules.has(id)) {
    // the page links the stylesheet of the game on the table when it loads (already applied)
    let css = [...document.querySelectorAll("link[data-game-css]")].find((l) => l.dataset.gameCss === id);
    let styled = Promise.resolve();
    if (!css) {
      css = document.createElement("link");
      css.rel = "stylesheet";
      const href = `/games/${encodeURIComponent(id)}/tablet.css`;
      css.href = hashed[href] || href;
      styled = new Promise((resolve) => { css.onload = css.onerror = resolve; });
      document.head.append(css);
    }
    gameModules.set(id, Promise.all([import(`/games/${encodeURIComponent(id)}/tablet.js`), styled])
      .then(([mod]) => mod)
      .catch((err) => {             // e.g. the Wi-Fi dropped mid-load: try again on the next draw
        gameModules.delete(id);
        css.remove();
        throw err;
      }));
  }
  return gameModules.get(id);
}

async function drawGame(session) {
  const root = $("#game-view");
  let mod;
  try {
    mod = await loadGame(session.game);
  } catch (err) {
    // not reached (offline) or broken: say so; the game is drawn again when the link is back
    console.warn("game not loaded", err);
    root.hidden = false;
    root.dataset.game = "";
    root.replaceChildren(el("p.form-error", {}, "This tablet could not load this game yet. " +
      "It tries again when the table is back; if it stays like this, reload the page."));
    firstDrawn();
    return;
  }
  const shown = replayed || current;
  if (shown !== session || showingStart) return;       // a newer session or the start screen came first
  if (root.dataset.game !== session.game) {            // another game drew here: start afresh
    unmountBoard();
    // a game's own dialogs (e.g. a private helper) live outside the root: close them
    document.querySelectorAll("body > .modal:not(#pinpad):not(#choice)").forEach((m) => { m.hidden = true; m.replaceChildren(); });
    root.replaceChildren();
    root.className = "game-view";
    root.dataset.game = session.game;
  }
  document.body.dataset.view = replayed ? "replay" : "table";
  $("#btn-new-game").hidden = false;
  $("#start-view").hidden = true;
  root.hidden = false;
  // which game is on the table, before it draws (a game's module may ask, e.g. its pollers)
  document.body.dataset.game = String(session.id);
  document.body.dataset.gameId = session.game;
  $("#prompt").textContent = session.prompt || "";
  showUndo(session);
  storyLine.hidden = !!replayed;      // a replay says its step's words in its own bar (the line has the live game's)
  showScore(session);
  mod.render(root, session, { perform, choose, send, toast, el, cue, names: session.players || [],
                              simulated: boot.simulated, seat: boot.seat ?? null, undo: undoButton,
                              told: storyLine,
                              // the devices' state when the page was made, by device name
                              // (the forest floor's: no first poll)
                              devices: boot.devices ?? {},
                              scores: () => scoreSlot(session, { final: !!session.outcome, id: "score-final", fold: true }),
                              ...(replayed ? REPLAY_CTX : {}) });
  mounted = mod;
  if (!root.contains(undoButton)) undoHome.after(undoButton);    // the game did not place it
  if (!root.contains(storyLine)) $(".topbar").after(storyLine);   // nor the story line
  // said last, so whoever waits for a version (a test, a script) finds it drawn
  if (replayed) document.body.dataset.replayDrawn = document.body.dataset.replayStep || "";
  else document.body.dataset.version = String(session.version);
  firstDrawn();
}

/** The next drawing starts the board afresh: between the live game and a replay of another
 *  (or the same) game, a game's module keeps nothing it drew for the other. */
function fresh() {
  const root = $("#game-view");
  unmountBoard();
  root.dataset.game = "none";
}

// --- undo: one button for every game -----------------------------------------------------
const undoButton = $("#btn-undo");
const undoHome = $("#prompt");          // its place in the top bar: after the prompt

/** The undo, while the session says an undo would be taken ("↶ Undo", "Linus's basket"). */
function showUndo(session) {
  undoButton.hidden = !session?.can_undo || showingStart;
  undoButton.querySelector(".undo-what").textContent = session?.undo_label || "";
  undoButton.setAttribute("aria-label", session?.undo_label ? `Undo: ${session.undo_label}` : "Undo");
}

// --- the running score: who is ahead, in the top bar; the whole score in the Score tab -----
function showScore(session) {
  const button = $("#btn-score");
  const shown = !!session?.scores && !showingStart && !replayed;     // a replay's score is on its board
  if (!shown) { button.hidden = true; return; }
  scores.then((m) => {
    if ((replayed || current) !== session) return;                  // a newer one is drawn by now
    m.scoreButton(button, session.scores, session.players || []);
    button.hidden = false;
  });
}

/** The score panel for a game's board (ctx.scores), filled in as soon as scores.js is in. */
function scoreSlot(session, options) {
  const slot = el("div.score-slot");
  scores.then((m) => { const panel = m.scorePanel(session, options); if (panel) slot.replaceWith(panel); else slot.remove(); });
  return slot;
}

/** Take back the last action; the game's module may put back what the players typed in
 *  for it (its optional export undone(before, after): a basket to correct, not to retype). */
async function undo() {
  const before = current;
  const body = await perform({ type: "undo" });
  if (!body || !before || body.id !== before.id) return;
  const mod = await gameModules.get(body.game);
  mod?.undone?.(before, body);
}

// --- sending -----------------------------------------------------------------------------
/** Run `call`, asking for the PIN first (or again after a 401). */
async function withPin(call) {
  if (!isUnlocked() && !(await askPin())) return null;
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setUnlocked(false);
      if (await askPin(err.message.replace(/^./, (s) => s.toUpperCase()) + ".")) return await call();
      return null;
    }
    throw err;
  }
}

function explain(err) {
  if (!(err instanceof ApiError)) { console.error(err); toast("Something went wrong on this tablet.", "error"); return; }
  if (err.status === 409 && err.body.session) {
    const newGame = current && err.body.session.id !== current.id;
    accept(err.body.session);
    toast(newGame ? "A new game was started before your tap; it was not used. Have a look."
                  : "The table moved on before your tap. Have another look.", "warn");
  } else if (err.status === 403) {
    toast("This page is out of date. Reload it.", "error", 8000);
  } else {
    const sentence = err.message.replace(/^./, (s) => s.toUpperCase()) + ".";
    if (document.body.dataset.view === "start") $("#start-error").textContent = sentence;
    else toast(sentence, err.status === 422 ? "warn" : "error");
  }
}

async function send(url, payload) {
  if (busy) return null;
  busy = true;
  document.body.classList.add("busy");
  try {
    const body = await withPin(() => postJSON(url, payload));
    if (body && body.session !== undefined) accept(body.session);   // sim routes wrap it
    else if (body && body.version !== undefined) accept(body);
    return body;
  } catch (err) {
    explain(err);
    return null;
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

/** Ask which of several actions was meant (e.g. two ways to reach a space). */
function choose(title, options) {
  const modal = $("#choice");
  $("#choice-title").textContent = title;
  const close = () => { modal.hidden = true; };
  $("#choice-options").replaceChildren(...options.map((o) =>
    el("button.big-button", { type: "button", onclick: () => { close(); perform(o.action); } }, o.label)));
  $("#choice-cancel").onclick = close;
  modal.hidden = false;
}

function perform(action) {
  // game_id binds the tap to the game it was made in: versions restart with every game
  return send("/api/v1/session/actions", { action, version: current?.version, game_id: current?.id });
}

// --- the start screen --------------------------------------------------------------------
function showStart() {
  firstDrawn();
  unmountBoard();                       // the board under the start screen stops its pollers
  document.body.dataset.view = "start";
  $("#game-view").hidden = true;
  $("#start-view").hidden = false;
  $("#btn-back").hidden = !current;
  $("#btn-new-game").hidden = true;
  undoButton.hidden = true;
  storyLine.hidden = true;
  $("#btn-score").hidden = true;
  $("#prompt").textContent = current ? "New game" : "Welcome! Pick a game and the players";
  $("#start-error").textContent = current && !current.outcome
    ? "Starting ends the running game (it stays in the history)."
    : (!current && boot.damaged ? boot.damaged.message.replace(/^./, (c) => c.toUpperCase()) + "." : "");
  rememberPlayers();
}

/** Names from earlier games: suggestions in every name field and a tap-to-add row. */
async function rememberPlayers() {
  let names = [];
  // built from the whole history: asked again while the table is busy with another such
  // answer for this tablet (the panel's), as long as the start form is shown
  try { names = (await getPatiently("/api/v1/players", { wanted: () => !$("#start-view").hidden })).players; } catch (_) { return; }
  $("#known-players").replaceChildren(...names.map((n) => el("option", { value: n })));
  const row = $("#recent-players");
  row.hidden = !names.length;
  row.replaceChildren(el("span.recent-title", {}, "Played before:"), ...names.slice(0, 10).map((n) =>
    el("button.recent-name", { type: "button", dataset: { name: n }, onclick: () => addPlayer(n) }, n)));
}

function addPlayer(name) {
  const inputs = [...document.querySelectorAll('#name-fields .name-field:not([hidden]) input')];
  if (inputs.some((i) => i.value.trim().toLowerCase() === name.toLowerCase())) return;
  const free = inputs.find((i) => !i.value.trim());
  if (free) free.value = name;
  else $("#start-error").textContent = "Every seat has a name: clear one first.";
}

function openStart() {
  if (replayed) document.dispatchEvent(new CustomEvent("potionpi:replay-leave"));
  showingStart = true;
  const inputs = [...document.querySelectorAll('#name-fields input[name="player"]')];
  if (current) inputs.forEach((input, i) => { input.value = current.players[i] || ""; });
  draw();
  inputs.find((i) => !i.value)?.focus();
}

/** Show the settings of the chosen game only (its toggles, from the plug-in). */
function fitGameSettings() {
  const game = document.querySelector('#start-form input[name="game"]:checked')?.value;
  document.querySelectorAll("#start-form .game-settings").forEach((box) => { box.hidden = box.dataset.game !== game; });
}

/** Show as many name fields as the chosen game takes. */
function fitNameFields() {
  const chosen = document.querySelector('#start-form input[name="game"]:checked');
  const min = Number(chosen?.dataset.min || 2), max = Number(chosen?.dataset.max || 4);
  document.querySelectorAll("#name-fields .name-field").forEach((field, i) => {
    field.hidden = i >= max;
    const input = field.querySelector("input");
    input.placeholder = `Player ${i + 1}` + (i >= min ? " (optional)" : "");
    if (i >= max) input.value = "";
  });
}

async function startGame(event) {
  event.preventDefault();
  const form = $("#start-form");
  const game = form.querySelector('input[name="game"]:checked')?.value;
  const players = [...form.querySelectorAll('input[name="player"]')]
    .map((i) => i.value.trim()).filter(Boolean);
  const error = $("#start-error");
  if (!game) { error.textContent = "Pick a game first."; return; }
  const min = Number(form.querySelector('input[name="game"]:checked')?.dataset.min || 2);
  if (players.length < min) { error.textContent = `Type at least ${min} names for this game.`; return; }
  // Engine options only the chosen game knows: each checked toggle in that game's
  // settings names its option and value (the plug-in's toggles; off: the option is left out).
  const options = {};
  form.querySelectorAll(`.game-settings[data-game="${game}"] input[data-option]:checked`)
    .forEach((input) => { options[input.dataset.option] = JSON.parse(input.dataset.on); });
  const body = await send("/api/v1/session", Object.keys(options).length ? { game, players, options } : { game, players });
  if (body && body.version !== undefined) {
    showingStart = false;
    current = null;
    accept(body);
  }
}

// --- start-up ----------------------------------------------------------------------------
// Not live for OFFLINE_AFTER ms: the cover goes over the whole board (a blink of
// "connecting" while the stream reopens is not worth a cover).
const OFFLINE_AFTER = 2500;
let offlineTimer = null;
let link = null;

function setConnection(state) {
  const conn = $("#conn");
  conn.dataset.state = state;
  conn.querySelector(".conn-text").textContent =
    { live: "live", connecting: "connecting…", offline: "offline" }[state] || state;
  if (state === "live") {
    if ($("#game-view").dataset.game === "" && current && !showingStart) drawGame(current);   // a load that failed offline
    clearTimeout(offlineTimer);
    offlineTimer = null;
    showOffline(false);
  } else if (!offlineTimer && $("#offline").hidden) {
    offlineTimer = setTimeout(() => { offlineTimer = null; showOffline(true); }, OFFLINE_AFTER);
  }
}

function showOffline(down) {
  $("#offline").hidden = !down;
  document.body.dataset.conn = down ? "offline" : "live";
  if (down) $("#btn-reconnect").focus();
}

/** --topbar-h: what the top bar takes (it wraps onto two lines on a phone). */
function trackTopbar() {
  const bar = document.querySelector(".topbar");
  // A custom property on the root restyles every element of the page (~25 ms at 6x
  // throttle with a board drawn), and only the covers under the bar use it (the side
  // sheet, the offline cover, a game's outcome; 68 px until set). So it is set when the
  // height changes, and the first time after the board's first frame is painted.
  let height = 68;
  let painted = false;
  const set = () => {
    if (!painted || bar.offsetHeight === height) return;
    height = bar.offsetHeight;
    document.documentElement.style.setProperty("--topbar-h", `${height}px`);
  };
  // its first call comes after the first layout, before the first paint: reading the
  // height now would lay the page out once more before the board is drawn
  new ResizeObserver(set).observe(bar);
  afterFirstPaint(() => { painted = true; set(); });
}

/** Run `fn` once the first board (or the start screen) is drawn and its frame painted. */
function afterFirstPaint(fn) {
  drawnOnce.then(() => requestAnimationFrame(() => setTimeout(fn)));
}

/** ``load()`` once the first frame is painted; its promise now. */
function later(load) {
  return new Promise((resolve, reject) => afterFirstPaint(() => load().then(resolve, reject)));
}

/**
 * ``import(specifier)``, tried again while the daemon restarts or the Wi-Fi drops: a
 * tablet that missed its settings sheet once must not lose it until it is reloaded.
 * (Browsers keep no failed module fetch, so the same URL is asked again; a fresh URL
 * would make a second copy of a module that another module imports by the plain one.)
 */
async function importAgain(specifier) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await import(specifier);
    } catch (err) {
      if (attempt >= 40) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 5000)));
    }
  }
}

function main() {
  sheet = later(async () => { const m = await importAgain("./sheet.js"); m.setupSheet(boot.games); return m; });
  firmware = later(async () => { const m = await importAgain("./firmware.js"); m.setupFirmware(boot.firmware); return m; });
  cues = later(() => importAgain("./cues.js"));
  // the running score: its button, panels and stylesheet, after the first frame too
  scores = later(async () => { const m = await importAgain("./scores.js"); await m.styled; return m; });
  setUnlocked(boot.unlocked);
  $("#start-form").addEventListener("submit", startGame);
  $("#start-form").addEventListener("change", fitNameFields);
  fitNameFields();
  $("#start-form").addEventListener("change", fitGameSettings);
  fitGameSettings();
  $("#btn-back").addEventListener("click", () => { showingStart = false; draw(); });
  $("#btn-new-game").addEventListener("click", openStart);
  undoButton.addEventListener("click", undo);
  $("#btn-score").addEventListener("click", () => sheet.then((m) => m.openSheet("score")));
  document.addEventListener("potionpi:new-game", openStart);
  // a replay (replay.js, opened from the History tab) draws its steps here
  document.addEventListener("potionpi:replay-step", (e) => { if (!replayed) fresh(); replayed = e.detail; draw(); });
  document.addEventListener("potionpi:replay-end", () => { replayed = null; fresh(); draw(); });
  $("#btn-lock").addEventListener("click", async () => {
    if (isUnlocked()) {
      try { await lock(); toast("This tablet is locked. Watching still works."); } catch (err) { explain(err); }
    } else if (await askPin()) {
      toast("Unlocked. Have a good game!");
    }
  });
  accept(boot.session);
  if (!boot.session) draw();
  trackTopbar();
  onOpenLog(() => sheet.then((m) => m.openSheet("log")));
  $("#btn-reconnect").addEventListener("click", () => link?.retry());
  // The board is drawn from the session in the page; the stream opens after that (its
  // first message is that same session: on a slow tablet it would only compete with the
  // drawing). A game module that takes longer than a moment does not hold it up.
  Promise.race([drawnOnce, new Promise((resolve) => setTimeout(resolve, 3000))]).then(() => {
    link = follow("/api/v1/stream", {
      onSession: accept,
      onNotice: (notice) => {
        // the table's own news on the story line (it covers nothing); the devices' over the board
        noticeToast(notice, { place: notice.kind === "seat" ? tellOnLine : null }); cue("warn");
        if (notice.kind === "firmware") firmware.then((m) => m.checkFirmware());
        if (notice.kind === "pin") setUnlocked(false);       // a new PIN locked every tablet
        document.dispatchEvent(new CustomEvent("table-notice", { detail: notice }));   // e.g. Phone links
      },
      onState: setConnection,
    });
    // ready: live, and the panel, sounds and firmware notice are in (a tap finds them)
    Promise.allSettled([sheet, firmware, cues, scores]).then(() => { document.body.dataset.ready = "yes"; });
  });
  afterFirstPaint(awake.start);         // not needed for the first frame
  afterFirstPaint(keepPage);
}

main();

