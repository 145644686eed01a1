// A player's own phone (any game): follow this seat's stream — the public session plus
// its `private` part — and let the game's static/phone.js draw it as
// render(root, seatSession, ctx); ctx.act(action) acts as this seat and no other.
import { $, el, toast } from "./ui.js";
import { ApiError, follow, getJSON, postJSON } from "./net.js";
import { nextGame, outcomeBox } from "./outcome.js";

const boot = JSON.parse($("#boot").textContent);
const base = `/api/v1/seat/${encodeURIComponent(boot.token)}`;
const root = $("#seat-view");
let current = null;
let busy = false;
let mod = null;

const loading = boot.phone
  ? import(`/games/${encodeURIComponent(boot.game)}/phone.js`).catch((err) => { console.error(err); return null; })
  : Promise.resolve(null);

function sentence(text) {
  return String(text || "").replace(/^./, (s) => s.toUpperCase()).replace(/([^.!?])$/, "$1.");
}

/** Act as this seat; the answer is this seat's newest session. */
async function act(action) {
  if (busy) return null;
  busy = true;
  document.body.classList.add("busy");
  try {
    const session = await postJSON(`${base}/actions`, { action, version: current?.version });
    accept(session);
    return session;
  } catch (err) {
    if (err instanceof ApiError && err.status === 409 && err.body.session) {
      accept(err.body.session);
      toast("The table moved on before your tap. Have another look.", "warn");
    } else {
      toast(sentence(err.message), err.status === 422 ? "warn" : "error");
    }
    return null;
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

function generic(view, session) {
  view.replaceChildren(
    el("h2.seat-name", {}, session.players[session.seat]),
    el("p", {}, "This game keeps nothing secret: watch the tablet."));
}

function accept(session) {
  if (current && session.id === current.id && session.version < current.version) return;
  current = session;
  draw();
}

async function draw() {
  mod = mod || (await loading);
  if (!current) return;
  const ctx = { act, toast, el, seat: current.seat, name: boot.name, names: current.players };
  if (mod?.render) mod.render(root, current, ctx);
  else generic(root, current);
  // at the end, every game's phone says who won and this seat's own result, first
  const end = outcomeBox(current, current.seat);
  if (end) root.prepend(end);
  document.body.dataset.version = String(current.version);
  document.body.dataset.over = current.outcome ? "yes" : "no";
}

function refused(message) {
  current = null;
  root.replaceChildren(el("p.seat-revoked", { role: "alert" },
    el("span.seat-revoked-mark", { "aria-hidden": "true" }, "!"), sentence(message)));
  const conn = $("#conn");
  conn.dataset.state = "offline";
  conn.querySelector(".conn-text").textContent = "closed";
}

// The first request claims the seat for this phone (a link preview that only fetched the
// page did not); a seat another phone holds, or a link that was replaced, is said here.
getJSON(base).then((session) => {
  accept(session);
  const live = follow(`${base}/stream`, {
    onSession: accept,
    onNotice: (notice) => {
      if (notice.kind === "revoked" && notice.game_name) {   // a new game: the way into it
        live.close();                       // (asking again would only be refused)
        ended();
        root.replaceChildren(...nextGame(notice, current));     // the last game's result stays
        current = null;
        document.body.dataset.next = "yes";
      } else if (notice.kind === "revoked") {      // the seat moved, a new PIN
        live.close();
        refused(notice.message);
      } else toast(sentence(notice.message));
    },
    onState: (state) => {
      const conn = $("#conn");
      conn.dataset.state = state;
      conn.querySelector(".conn-text").textContent = state;
    },
  });
}).catch((err) => {
  refused(err instanceof ApiError ? err.message : "the table did not answer; reload in a moment");
});

/** The link's game is over and a new one started: nothing more to follow here. */
function ended() {
  const conn = $("#conn");
  conn.dataset.state = "ended";
  conn.querySelector(".conn-text").textContent = "game ended";
}
