// The forest floor on the tablet: live status (polled), the dial, the big STOP,
// homing, and the three-second countdown before a turn. The floor device's own module
// (served at /devices/forest_floor/floor.js), for any game that turns the floor: a game
// calls followFloor() while its board is up and unmount() when the shell takes it down.
import { el } from "/static/js/ui.js";
import { ApiError, getJSON, postJSON } from "/static/js/net.js";

const FAST_MS = 250;       // while the floor moves or the game waits for it
const SLOW_MS = 2000;      // otherwise: enough to notice a fault or a floor that needs homing

export const floor = {
  known: false,            // false until the first answer: draw nothing floor-specific yet
  status: null,            // the device's status, null without a motor
  turn: null,              // {start, ants, direction, travelled, remaining} of its latest turn
};

let timer = null;
let following = false;     // between followFloor() and unmount(): a poll in flight then stops
let seeded = false;        // the page's own floor state stands for the first answer
let onChange = () => {};
let wantFast = () => false;
let lastSignature = "";

/** Start (or keep) following the floor; `changed(bigChange)` after every answer. */
export function followFloor(changed, fast) {
  onChange = changed;
  wantFast = fast;
  following = true;
  if (timer === null) {
    // what the page came with stands for the first answer: ask again at the usual pace
    if (seeded) { seeded = false; timer = setTimeout(poll, moving() || wantFast() ? FAST_MS : SLOW_MS); }
    else poll();
  }
}

/** The floor's state as the page came with it (``GET /api/v1/floor``'s answer), before the
 * first draw: a reload draws the floor without a request of its own. */
export function seedFloor(report) {
  if (floor.known || !report || timer !== null) return;
  learn(report);
  lastSignature = signatureNow();
  seeded = true;
}

function learn(body) {
  floor.known = true;
  floor.status = body.floor;
  floor.turn = body.turn;
}

// a "big" change (state, result, fault, homing need, the Pico's link) redraws the page;
// a position only the dial
function signatureNow() {
  const s = floor.status;
  return JSON.stringify([floor.known, !!s, s?.state, s?.fault, s?.last_move?.result, needsHome(),
    s?.link?.state, s?.position_lost]);
}

export function pollSoon() {
  if (!following) return;
  clearTimeout(timer);
  timer = setTimeout(poll, 50);
}

/** The board that used the floor is gone (the shell's unmount): no more polls, no
 *  countdown left on the screen; the next followFloor() starts afresh. */
export function unmount() {
  following = false;
  clearTimeout(timer);
  timer = null;
  onChange = () => {};
  wantFast = () => false;
  cancelCountdown();
}

async function poll() {
  timer = null;
  if (!following) return;
  try {
    learn(await getJSON("/api/v1/floor"));
  } catch (_) { /* offline for a moment: keep the last answer, the stream shows "offline" */ }
  if (!following || timer !== null) return;     // unmounted, or followed afresh, meanwhile
  const signature = signatureNow();
  const big = signature !== lastSignature;
  lastSignature = signature;
  try { onChange(big); } catch (err) { console.error(err); }
  timer = setTimeout(poll, moving() || wantFast() ? FAST_MS : SLOW_MS);
}

export const hasMotor = () => floor.known && floor.status !== null;
export const moving = () => ["moving", "homing"].includes(floor.status?.state);
export function needsHome() {
  const s = floor.status;
  // homing needs a Pico that answers: with the link down or the wrong firmware it cannot help
  if (s?.link && s.link.state !== "connected") return false;
  return !!s && !moving() && (s.needs_home === true || s.state === "fault");
}

/** Ants as a person says them: 3, 1½, about 2.3 */
export function antsWords(n) {
  const r = Math.round(n * 2) / 2;
  const whole = Math.floor(r);
  const said = r % 1 ? `${whole || ""}½` : String(whole);
  return Math.abs(r - n) > 0.05 ? `about ${said}` : said;
}

export const dirWords = (d) => (d === "clockwise" ? "clockwise" : "counter-clockwise");
export const dirArrow = (d) => (d === "clockwise" ? "↻" : "↺");

// --- safety stop and homing -------------------------------------------------------------------
/** The big stop: straight to the daemon, never queued behind another tap, no PIN. */
export async function stopFloor(toast) {
  try {
    const body = await postJSON("/api/v1/floor/stop", {});
    floor.status = body.floor;
    floor.turn = body.turn;       // (the table itself says what to do next, as a notice)
  } catch (err) {
    toast(err instanceof ApiError ? err.message.replace(/^./, (c) => c.toUpperCase()) + "."
      : "The stop did not reach the table: hold the forest floor still by hand!", "error", 8000);
  }
  pollSoon();
}

export async function homeFloor(send) {
  const body = await send("/api/v1/floor/home", {});
  if (body?.floor) floor.status = body.floor;
  pollSoon();
}

// --- the panel ----------------------------------------------------------------------------------
/** An SVG dial: the ants round the rim, a marker where the floor stands now. */
function dial(position, around, target) {
  const size = 150, c = size / 2, r = 60;
  const at = (ant, radius) => {
    const a = (ant / around) * 2 * Math.PI - Math.PI / 2;
    return [c + radius * Math.cos(a), c + radius * Math.sin(a)];
  };
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("class", "zw-dial");
  svg.setAttribute("aria-hidden", "true");
  const add = (name, attrs, text) => {
    const n = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
    return n;
  };
  add("circle", { cx: c, cy: c, r: r + 8, class: "zw-dial-rim" });
  for (let i = 0; i < around; i++) {
    const [x, y] = at(i, r + 1);
    add("circle", { cx: x, cy: y, r: i === 0 ? 5 : 3, class: i === 0 ? "zw-tick home" : "zw-tick" });
  }
  if (target !== null && target !== undefined) {
    const [tx, ty] = at(target, r + 1);
    add("circle", { cx: tx, cy: ty, r: 9, class: "zw-dial-target" });
  }
  const [x, y] = at(position, r - 16);
  add("line", { x1: c, y1: c, x2: x, y2: y, class: "zw-dial-hand" });
  add("circle", { cx: c, cy: c, r: 18, class: "zw-dial-hub" });
  add("text", { x: c, y: c + 6, "text-anchor": "middle", class: "zw-dial-num" }, String(Math.round(position) % around));
  return svg;
}

function stateWords() {
  const s = floor.status;
  if (!floor.known) return "Asking the floor…";
  if (!s) return "No motor: the master turns the floor by hand.";
  const at = `at ant ${Math.round(s.position) % s.ants_around}`;
  // the Pico behind a USB cable (serial back-end): say when the link is not up
  const link = s.link;
  if (link && link.state === "wrong_firmware") return "Wrong Pico firmware";
  if (link && link.state !== "connected") return `Pico ${link.state}…`;
  if (s.state === "moving") {
    const t = floor.turn;
    return t ? `Turning ${dirWords(t.direction)}: ${t.travelled.toFixed(1)} of ${t.ants} ants` : "Turning…";
  }
  if (s.state === "homing") return "Looking for its home mark…";
  if (s.state === "fault") return `Fault: ${s.fault || "the floor could not turn"}`;
  const result = s.last_move?.result;
  if (result === "stopped") return `Stopped ${at}`;
  const via = link ? ` (Pico firmware ${link.firmware})` : s.simulated ? " (simulated)" : "";
  return `Ready, ${at}${via}`;
}

/** The right-hand floor panel: dial, state, STOP while moving, Home when it needs homing. */
export function floorPanel({ toast, send, mayHome, gamePosition }) {
  const s = floor.status;
  const around = s?.ants_around || 16;
  const t = floor.turn;
  const target = moving() && t && s?.state === "moving"
    ? (t.start + (t.direction === "clockwise" ? t.ants : -t.ants) + around) % around : null;
  return el("section.zw-floor.panel", {
    id: "zw-floor", "aria-label": "The forest floor",
    dataset: { state: s ? s.state : (floor.known ? "none" : "unknown"), position: s ? String(s.position) : "" },
  },
  // acts on touch-down: a safety stop must not wait for the finger to lift (click: keyboard)
  moving() ? el("button.zw-stop", { type: "button", id: "zw-stop",
    onpointerdown: () => stopFloor(toast), onclick: (e) => { if (e.detail === 0) stopFloor(toast); } },
    el("span.zw-stop-word", {}, "STOP"), el("span.zw-stop-hint", {}, "halts the floor at once")) : null,
  el("div.zw-floor-row", {},
    s ? dial(s.position, around, target) : el("div.zw-nomotor", { "aria-hidden": "true" }, "no motor"),
    el("div.zw-floor-text", {},
      el("div.panel-title", {}, "Forest floor"),
      el("div.zw-floor-state", { id: "zw-floor-state", role: "status" }, stateWords()),
      s?.link && s.link.state !== "connected"
        ? el("div.zw-floor-link", { id: "zw-floor-link" }, s.link.message || "") : null,
      el("div.zw-floor-game", {}, `The game counts the floor at ant ${gamePosition}.`))),
  needsHome() && mayHome
    ? el("button.big-button.zw-home", { type: "button", id: "zw-home", onclick: () => homeFloor(send) },
      "⌂ Home the floor")
    : null);
}

// --- countdown ----------------------------------------------------------------------------------
let countdown = null;      // {n, timer, node, go, label}

export const countingDown = () => countdown !== null;

export function cancelCountdown() {
  if (!countdown) return;
  clearInterval(countdown.timer);
  countdown.node.remove();
  countdown = null;
}

/** Three seconds, visible and cancellable; then `go()`. */
export function startCountdown(label, go) {
  cancelCountdown();
  const number = el("div.zw-count-number", { id: "zw-count-number", "aria-live": "assertive" }, "3");
  const node = el("div.modal.zw-countdown", { id: "zw-countdown", role: "dialog", "aria-modal": "true" },
    el("div.modal-box.zw-countdown-box", {},
      el("h2", {}, label),
      number,
      el("p.zw-countdown-hint", {}, "Hands off the forest! Hold the centre of the main tree still."),
      el("button.big-button.zw-cancel", { type: "button", id: "zw-cancel", onclick: cancelCountdown },
        "Cancel — don't turn")));
  document.body.append(node);
  countdown = { n: 3, node, go };
  countdown.timer = setInterval(() => {
    if (!countdown) return;
    countdown.n -= 1;
    if (countdown.n > 0) { number.textContent = String(countdown.n); return; }
    const run = countdown.go;
    cancelCountdown();
    run();
  }, 1000);
}
