// A player's own phone (any game): follow this seat's stream — the public session plus
// its `private` part — and let the game's static/phone.js draw it as
// render(root, seatSession, ctx); ctx.act(action) acts as this seat and no other.
import { $, el, toast } from "./ui.js";
import { ApiError, follow, postJSON } from "./net.js";

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
  document.body.dataset.version = String(current.version);
}

follow(`${base}/stream`, {
  onSession: accept,
  onNotice: (notice) => {
    if (notice.kind === "revoked") {        // a new game: this link is no longer valid
      current = null;
      root.replaceChildren(el("p.seat-revoked", {}, sentence(notice.message)));
    } else toast(sentence(notice.message));
  },
  onState: (state) => {
    const conn = $("#conn");
    conn.dataset.state = state;
    conn.querySelector(".conn-text").textContent = state;
  },
});
