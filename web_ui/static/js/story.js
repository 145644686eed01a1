// The story of the game on the tablet: the "what just happened" line (the session's `told`,
// the same words as the game log) and reading aloud (the browser's speech synthesis: the
// prompt and the story, on the tablet only, off until someone turns it on here).
// One element for every game: a game may place it on its board (ctx.told), else it sits
// under the top bar. Tapping the words opens the whole log (the More panel).
import { el } from "./ui.js";

const KEY = "potionpi.read-aloud";

/** The sentences as one line: "A. B." (one sentence stays as it is), as the log says them. */
export function storyText(lines = []) {
  if (lines.length <= 1) return lines.join("");
  return sentences(lines).join(" ");
}

const sentences = (lines) => lines.map((s) => (/[.!?…”"]$/.test(s) ? s : `${s}.`));

export function readingAloud() {
  try { return localStorage.getItem(KEY) === "on"; } catch (_) { return false; }
}

const canSpeak = () => "speechSynthesis" in window && typeof window.SpeechSynthesisUtterance === "function";

function speak(text) {
  if (!text || !readingAloud() || !canSpeak()) return;
  try {
    const u = new SpeechSynthesisUtterance(text);
    u.lang = document.documentElement.lang || "en";
    window.speechSynthesis.speak(u);
  } catch (_) { /* no voice on this tablet: the words stay on screen */ }
}

function hush() {
  try { if (canSpeak()) window.speechSynthesis.cancel(); } catch (_) { /* nothing to stop */ }
}

let openLog = () => {};
const said = el("span.told-words");
const words = el("button.told-text", { type: "button", id: "told-text", title: "The whole game log",
  onclick: () => openLog() }, said);
const voice = el("button.told-voice", { type: "button", id: "btn-read-aloud", onclick: () => setReadAloud(!readingAloud()) });
/** The line (one per page): the words, and beside them the read-aloud switch. */
export const storyLine = el("div.told", { id: "told", dataset: { empty: "yes" } },
  el("span.told-label", { "aria-hidden": "true" }, "Just now"), words, voice);
let shown = null;          // the session whose story is on the line
let prompt = null;         // the prompt last read aloud

/** The table's news that is not a move (a seat on a phone now): on the line in place of the
 *  words for a while, so it covers no card nor button, as a toast over the board would.
 *  False where the line is not on the page (the start screen): the caller shows a toast. */
export function tellOnLine(node, ms = 7000) {
  if (!storyLine.isConnected || storyLine.hidden) return false;
  endNotice();
  node.classList.add("told-notice");
  words.hidden = true;
  words.before(node);
  noticeTimer = setTimeout(endNotice, ms);
  return true;
}

let noticeTimer = 0;
function endNotice() {
  clearTimeout(noticeTimer);
  storyLine.querySelector(".told-notice")?.remove();
  words.hidden = false;
}

/** What tapping the words does (the shell opens the log). */
export function onOpenLog(fn) { openLog = fn; }

/** A speaker (no emoji: a Pi's Chromium may have no emoji font), with waves when on, a cross when off. */
function speaker(on) {
  const NS = "http://www.w3.org/2000/svg";
  const icon = document.createElementNS(NS, "svg");
  icon.setAttribute("viewBox", "0 0 24 24");
  icon.setAttribute("width", "26");
  icon.setAttribute("height", "26");
  icon.setAttribute("aria-hidden", "true");
  const part = (d, fill) => {
    const path = document.createElementNS(NS, "path");
    path.setAttribute("d", d);
    path.setAttribute("fill", fill ? "currentColor" : "none");
    if (!fill) { path.setAttribute("stroke", "currentColor"); path.setAttribute("stroke-width", "2.2"); path.setAttribute("stroke-linecap", "round"); }
    icon.append(path);
  };
  part("M2.5 9H7L12.5 4V20L7 15H2.5Z", true);
  if (on) { part("M15.5 8.5A5 5 0 0 1 15.5 15.5", false); part("M18.5 5.5A9 9 0 0 1 18.5 18.5", false); }
  else part("M16 9L22 15M22 9L16 15", false);
  return icon;
}

function drawVoice() {
  const on = readingAloud();
  voice.setAttribute("aria-pressed", String(on));
  voice.setAttribute("aria-label", on ? "Read aloud: on (tap to stop)" : "Read aloud: off (tap to hear the game)");
  voice.replaceChildren(speaker(on), el("span.told-voice-word", {}, on ? "on" : "off"));
  voice.title = on ? "Reading aloud: tap to stop" : "Read the game aloud";
  voice.hidden = !canSpeak();
  const box = document.querySelector("#cue-read-aloud");        // the More panel's switch, if open
  if (box) box.checked = on;
}

/** Turn reading aloud on or off (remembered on this tablet); on says the prompt at once. */
export function setReadAloud(on) {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch (_) { /* private mode: this visit only */ }
  drawVoice();
  if (!on) { hush(); return; }
  // said at once (the tap lets the tablet speak): what the table does now
  speak(shown ? shown.prompt || storyText(shown.told) : "Read aloud is on.");
  prompt = shown?.prompt ?? null;
}

/** Show `session`'s story; read the news aloud when it came after `before` (the same game),
 *  the prompt too when it changed. Never for a page's first drawing. */
export function showStory(session, before) {
  const text = storyText(session.told || []);
  said.textContent = text || "Nothing has happened yet in this game.";
  requestAnimationFrame(fitStory);             // once the board has placed the line
  words.setAttribute("aria-label", text ? `Just now: ${text}. Tap for the whole game log.` : "The game log");
  storyLine.dataset.empty = text ? "no" : "yes";
  storyLine.dataset.version = String(session.version);
  const news = before && before.id === session.id && session.version !== before.version;
  if (!before || before.id !== session.id) { hush(); prompt = session.prompt; }
  shown = session;
  if (!news) return;
  endNotice();                                 // a move since: its words, not the notice
  speak(text);
  if (session.prompt && session.prompt !== prompt) speak(session.prompt);
  prompt = session.prompt;
}

/** Where the line has no room for the whole story, it drops the oldest sentences ("… " in
 *  front) rather than cut the newest, which is what the table wants to hear: a potion's
 *  card, the moves a round earned. The whole story is a tap away (the log) and read aloud. */
function fitStory() {
  const lines = shown?.told || [];
  if (!lines.length || !said.isConnected) return;
  said.textContent = storyText(lines);
  const each = sentences(lines);
  for (let i = 1; i < each.length && said.scrollHeight > said.clientHeight + 1; i += 1) {
    said.textContent = `… ${each.slice(i).join(" ")}`;
  }
}

// fitted again whenever the line's width changes: placed on a board drawn later (a game's
// module is fetched first), a stylesheet applied, the tablet turned
let fittedWidth = 0;
new ResizeObserver(() => {
  const width = Math.round(said.getBoundingClientRect().width);
  if (width !== fittedWidth) { fittedWidth = width; fitStory(); }
}).observe(said);
drawVoice();
