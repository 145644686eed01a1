// The simulation panel: stands in for the real cauldron when devices are simulated.
import { $, el, fill, colorLetter } from "./ui.js";

const COLOR_IDS = ["red", "yellow", "green", "blue", "purple", "orange"];

/** Draw the panel once; `send(url, payload)` posts with the PIN flow of the page. */
export function renderSim(send) {
  const box = $("#sim");
  box.hidden = false;
  fill(box,
    el("h3.panel-title", {}, "Simulated cauldron"),
    el("div.sim-row", {},
      el("button.big-button", { type: "button", id: "sim-turn",
        onclick: () => send("/api/v1/sim/cauldron/turn", { detents: 6 }) }, "Turn the cauldron"),
      el("button.big-button", { type: "button", id: "sim-drop",
        onclick: () => send("/api/v1/sim/cauldron/drop", {}) }, "Drop")),
    el("details.sim-colors", {},
      el("summary", {}, "Drop a chosen colour"),
      el("div.sim-row.color-buttons", { "aria-label": "drop a chosen colour" },
        COLOR_IDS.map((c) => el(`button.color-button.c-${c}`, {
          type: "button", dataset: { color: c }, "aria-label": `drop a ${c} ball`,
          onclick: () => send("/api/v1/sim/cauldron/drop", { color: c }),
        }, colorLetter(c))))));
}
