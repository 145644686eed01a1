// A player's own phone: enter the whole hand, see the best lay-down and the runner-up,
// and (when the round allows) send one of them to the table as this player's hidden entry.
// The page follows its seat's stream (/api/v1/seat/<token>/stream: the public session plus
// this seat's own entry), so it says where the round is, and at the end who won and this
// player's own result (the shell's outcome.js); when the tablet starts the next game, how
// to join it. The status line sits at the top: no passing message ever covers it.
import { $ } from "/static/js/ui.js";
import { ApiError, follow } from "/static/js/net.js";
import { nextGame, outcomeBox } from "/static/js/outcome.js";
import { ask, compact, el, sentence } from "./common.js";
import { mountHandPad } from "./handpad.js";

const boot = JSON.parse($("#boot").textContent);
const status = $("#phone-status");
const end = $("#phone-end");
const padBox = $("#phone-pad");
const secret = $(".zc-secret");
let current = null;          // this seat's newest session
let pad = null;              // the hand entry, while the game runs

/** What the table knows of this player's lay-down, and whether one may be sent now. */
function statusWords(session) {
  const mine = session.private || {};
  const view = session.state;
  if (view.players[session.seat]?.entered && mine.entry) {
    return `Sent: your lay-down (${mine.entry.points} points) is on the table, hidden until the host reveals all. `
      + "Sending again replaces it.";
  }
  if (mine.may_enter) return "You may lay down now: send the lay-down you choose to the table.";
  if (view.phase === "laying" || view.phase === "trading") {
    return "Use the helper while you trade; you can send your lay-down once you have stopped trading or the round has ended.";
  }
  return "The lay-downs are revealed on the tablet; use the helper again for the next round.";
}

async function send(lay) {
  try {
    const answer = await ask("/send", { token: boot.token, cards: compact(lay?.cards), black: compact(lay?.black) });
    // the confirmation is the status line (the stream brings the same): no toast over it
    const pts = answer.entry ? `${answer.entry.points} points` : "nothing";
    status.textContent = `Sent: your lay-down (${pts}) is on the table, hidden until the host reveals all.`;
    status.dataset.kind = "sent";
  } catch (err) {
    status.textContent = err instanceof ApiError ? sentence(err.message) : "The table cannot be reached; check the Wi-Fi.";
    status.dataset.kind = "warn";
  }
}

function mount() {
  pad = mountHandPad(padBox, {
    kinds: boot.kinds,
    blackSomething: boot.black_something,
    request: (hand, black) => ask("/helper", { token: boot.token, hand: compact(hand), black }),
    actionFor: (lay) => el("button.big-button.go.zc-send", { type: "button", onclick: () => send(lay) },
      lay ? "Send this lay-down to the table" : "Send “I lay nothing” to the table"),
  });
}

function accept(session) {
  if (current && session.id === current.id && session.version < current.version) return;
  current = session;
  const over = outcomeBox(session, session.seat);
  if (over) {                          // the game is over: no more lay-downs, the result instead
    pad?.clear();
    pad = null;
    padBox.hidden = true;
    secret.hidden = true;              // no hand to enter any more
    $("#prompt").textContent = `${boot.name} · Zaubercocktail`;
    status.textContent = "";
    end.replaceChildren(over);
  } else {
    if (!pad) { padBox.hidden = false; mount(); }
    secret.hidden = false;
    end.replaceChildren();
    status.textContent = statusWords(session);
    status.dataset.kind = session.private?.entry ? "sent" : "";
  }
  document.body.dataset.version = String(session.version);
  document.body.dataset.over = over ? "yes" : "no";
  document.body.dataset.ready = "yes";
}

mount();
const stream = follow(`/api/v1/seat/${encodeURIComponent(boot.token)}/stream`, {
  onSession: accept,
  onNotice: (notice) => {
    if (notice.kind !== "revoked") return;
    stream.close();                    // (asking again would only be refused)
    pad?.clear();
    pad = null;
    padBox.hidden = true;
    secret.hidden = true;
    status.textContent = "";
    if (notice.game_name) {            // a new game: the way into it, the last game's result under it
      end.replaceChildren(...nextGame(notice, current));
      document.body.dataset.next = "yes";
    } else {                           // the seat moved to another phone, a new PIN: said as it is
      end.replaceChildren(el("p.seat-revoked", { role: "alert" }, sentence(notice.message)));
    }
    current = null;
  },
  onState: () => {},
});
