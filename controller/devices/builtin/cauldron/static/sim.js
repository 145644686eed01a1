// The simulation panel: stands in for the real cauldron when devices are simulated.
// A game whose table has a cauldron puts it where it fits (e.g. Mirakel Mix's side column).
// The cauldron device's own module, served at /devices/cauldron/sim.js.
import { el, fill, colourLetter, toast } from "/static/js/ui.js";

const COLOUR_IDS = ["red", "yellow", "green", "blue", "purple", "orange"];

/** Turn, and always say what came of it: a turn that drops nothing changes no game state,
 *  so without a word the button would seem dead. */
async function turn(button, send) {
  const before = document.body.dataset.version;
  button.classList.add("turning");
  try {
    const body = await send("/api/v1/sim/cauldron/turn", { detents: 6 });
    if (!body) return;
    const after = body.session ? String(body.session.version) : before;
    toast(after === before ? "The cauldron turned: no drop fell this time." : "The cauldron turned: a drop fell!",
          "info", 2500);
  } finally {
    setTimeout(() => button.classList.remove("turning"), 600);
  }
}

/** Draw the panel into `box`; `send(url, payload)` posts with the PIN flow of the page. */
export function renderSim(box, send, colours = COLOUR_IDS) {
  box.hidden = false;
  fill(box,
    el("h3.panel-title", {}, "Simulated cauldron"),
    el("div.sim-row", {},
      el("button.big-button", { type: "button", id: "sim-turn",
        onclick: (event) => turn(event.currentTarget, send) }, "Turn the cauldron"),
      el("button.big-button", { type: "button", id: "sim-drop",
        onclick: () => send("/api/v1/sim/cauldron/drop", {}) }, "Drop")),
    el("details.sim-colours", {},
      el("summary", {}, "Drop a chosen colour"),
      el("div.sim-row.colour-buttons", { "aria-label": "drop a chosen colour" },
        colours.map((c) => el(`button.colour-button.c-${c}`, {
          type: "button", dataset: { colour: c }, "aria-label": `drop a ${c} ball`,
          onclick: () => send("/api/v1/sim/cauldron/drop", { colour: c }),
        }, colourLetter(c))))));
}
