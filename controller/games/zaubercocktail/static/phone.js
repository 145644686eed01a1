// A player's own phone: enter the whole hand, see the best lay-down and the runner-up,
// and (when the round allows) send one of them to the table as this player's hidden entry.
import { $, toast } from "/static/js/ui.js";
import { ApiError } from "/static/js/net.js";
import { ask, compact, el, sentence } from "./common.js";
import { mountHandPad } from "./handpad.js";

const boot = JSON.parse($("#boot").textContent);
const status = $("#phone-status");

async function send(lay) {
  try {
    const answer = await ask("/send", { token: boot.token, cards: compact(lay?.cards), black: compact(lay?.black) });
    const pts = answer.entry ? `${answer.entry.points} points` : "nothing";
    status.textContent = `Sent: your lay-down (${pts}) is on the table, hidden until the host reveals all.`;
    toast("Sent to the table.");
  } catch (err) {
    const text = err instanceof ApiError ? sentence(err.message) : "The table cannot be reached; check the Wi-Fi.";
    status.textContent = text;
    toast(text, "warn");
  }
}

/** Say whether a lay-down can be sent now (only this player's own state is asked). */
async function showStatus() {
  try {
    const me = await ask("/me", { token: boot.token });
    if (me.entered) status.textContent = "Your lay-down is on the table (hidden). Sending again replaces it.";
    else if (me.may_enter) status.textContent = "You may lay down now: send the lay-down you choose to the table.";
    else status.textContent = "Use the helper while you trade; you can send your lay-down once you have " +
      "stopped trading or the round has ended.";
  } catch (err) {
    status.textContent = err instanceof ApiError ? sentence(err.message) : "The table cannot be reached; check the Wi-Fi.";
  }
}

mountHandPad($("#phone-pad"), {
  kinds: boot.kinds,
  blackSomething: boot.black_something,
  request: (hand, black) => ask("/helper", { token: boot.token, hand: compact(hand), black }),
  actionFor: (lay) => el("button.big-button.go.zc-send", { type: "button", onclick: () => send(lay) },
    lay ? "Send this lay-down to the table" : "Send “I lay nothing” to the table"),
});
showStatus().finally(() => { document.body.dataset.ready = "yes"; });
