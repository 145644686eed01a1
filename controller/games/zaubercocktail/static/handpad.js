// The lay-down helper's hand entry: how many of each ingredient (and Black Somethings)
// a player holds, and the best lay-down and runner-up for it, updated on every tap.
// Used on the tablet (a hidden modal) and on the player's phone.
import { fill } from "/static/js/ui.js";
import { counter, el, kindBadge, sentence, suggestionBox } from "./common.js";

/**
 * mount(container, {kinds, blackSomething, request, actionFor})
 * request(hand, black) -> Promise of {best, runner_up} (throws ApiError with a sentence);
 * actionFor(lay | null) -> optional button under a suggestion (e.g. "send to the table").
 * Returns {clear()} — forgets the hand (nothing stays on screen once closed).
 */
export function mountHandPad(container, { kinds, blackSomething, request, actionFor }) {
  const hand = {};
  let black = 0;
  let seq = 0;
  let answer = null;
  let error = "";
  const rows = el("div.zc-hand-rows");
  const out = el("div.zc-helper-out", { "aria-live": "polite" });
  fill(container, rows, out);

  const total = () => Object.values(hand).reduce((a, b) => a + b, 0) + black;

  function drawRows() {
    fill(rows, kinds.map((k) => el("div.zc-hand-row", { dataset: { kind: k.id } },
      kindBadge(k.id), el("span.zc-hand-name", {}, k.name),
      counter({ value: hand[k.id] || 0, label: k.name, testid: `hand-${k.id}`,
        plusOff: (hand[k.id] || 0) >= k.cards,
        onChange: (d) => { hand[k.id] = Math.max(0, (hand[k.id] || 0) + d); changed(); } }))),
    el("div.zc-hand-row.black", { dataset: { kind: "black_something" } },
      kindBadge("black_something"), el("span.zc-hand-name", {}, `${blackSomething.name}s`),
      counter({ value: black, label: blackSomething.name, testid: "hand-black",
        plusOff: black >= blackSomething.cards,
        onChange: (d) => { black = Math.max(0, black + d); changed(); } })),
    el("p.zc-hand-total", {}, `${total()} cards in the hand`));
  }

  function drawAnswer() {
    if (error) { fill(out, el("p.zc-refusal", { role: "alert" }, sentence(error))); return; }
    if (!total()) { fill(out, el("p.zc-hint", {}, "Tap + for each card in your hand; the best lay-down appears here.")); return; }
    if (!answer) { fill(out, el("p.zc-hint", {}, "Thinking…")); return; }
    fill(out,
      suggestionBox("Best lay-down", answer.best, kinds, { action: actionFor?.(answer.best, "best") }),
      answer.best && answer.runner_up ? suggestionBox("Runner-up", answer.runner_up, kinds,
        { action: actionFor?.(answer.runner_up, "runner_up") }) : null,
      answer.best && !answer.runner_up
        ? el("div.zc-suggestion.none", {}, el("h3", {}, "Runner-up"), el("p", {}, "No other choice of kinds can be laid.")) : null);
  }

  async function changed() {
    drawRows();
    const mine = ++seq;
    if (!total()) { answer = null; error = ""; drawAnswer(); return; }
    try {
      const result = await request({ ...hand }, black);
      if (mine !== seq) return;             // a newer tap is on its way
      answer = result; error = "";
    } catch (err) {
      if (mine !== seq) return;
      answer = null; error = err.message;
    }
    drawAnswer();
  }

  drawRows();
  drawAnswer();
  return {
    clear() {
      seq++;
      for (const k of Object.keys(hand)) delete hand[k];
      black = 0; answer = null; error = "";
      container.replaceChildren();
    },
  };
}
