// Mirakel Mix at the table: the lab, the cave, this turn's drops and bowls, the players,
// warnings with one-tap fixes, the colour picker and the winner. Drawn by the tablet page
// (web_ui/static/js/app.js) as render(root, session, ctx); the guide is docs/tablet.md.
import { $, el, learnColours } from "/static/js/ui.js";
import { renderSim } from "/devices/cauldron/sim.js";
import { renderPicker, renderTable, sortActions } from "./view.js";
import { unmountCave } from "./cave.js";

let drawn = null;            // the session drawn last, to see a new drop fall

/** The page's frame for this game, built once per root (ids are what view.js fills). */
function skeleton(ctx) {
  const table = el("div.table-view", { id: "table-view" },
    // focusable, so a keyboard reaches the map and its spaces
    el("section.cave.panel", { id: "cave", "aria-label": "The cave", tabindex: "0", hidden: true }),
    el("section.lab", { id: "lab", "aria-label": "The mixing flask lab" }),
    el("aside.side", { "aria-label": "This turn" },
      el("div.moves.panel", { id: "moves", "aria-label": "Where the mover may go", hidden: true }),
      el("div.drop-now.panel", { id: "drop" }),
      el("div.actions", { id: "actions" }),
      el("div.bowls.panel", { id: "bowls", "aria-label": "Bowls" }),
      el("div.cauldron.panel", { id: "cauldron", "aria-label": "In the cauldron" }),
      el("div.sim.panel", { id: "sim", "aria-label": "Simulated cauldron", hidden: true })),
    el("footer.players", { id: "players", "aria-label": "Players" }));
  const parts = [
    el("div.warnings", { id: "warnings", role: "alert", hidden: true }),
    table,
    // the winner, over the board (which stays visible around it)
    el("div.outcome", { id: "outcome", hidden: true, "aria-labelledby": "outcome-title" }),
    el("div.modal", { id: "picker", hidden: true, role: "dialog", "aria-modal": "true", "aria-labelledby": "picker-title" },
      el("div.modal-box.picker-box", {},
        el("h2", { id: "picker-title" }, "Which colour was the drop?"),
        el("div.picker-colours", { id: "picker-colours" }))),
  ];
  if (ctx.simulated) renderSim(parts[1].querySelector("#sim"), ctx.send);
  return parts;
}

/** The shell takes the board down (another game, the start screen, a replay). */
export function unmount() {
  unmountCave();
  drawn = null;
}

export function render(root, session, ctx) {
  if (!root.querySelector("#table-view")) {
    root.replaceChildren(...skeleton(ctx));
    drawn = null;
  }
  root.classList.add("mirakel");
  const state = session.state || {};
  learnColours(state.colours);
  const newDrop = drawn && drawn.id === session.id &&
    (state.last_drop !== drawn.state?.last_drop ||
     (state.turn?.drops || []).length !== (drawn.state?.turn?.drops || []).length);
  drawn = session;
  renderTable(session, { perform: ctx.perform, choose: ctx.choose, names: ctx.names, simulated: ctx.simulated,
                        undo: ctx.undo, scores: ctx.scores, replay: !!ctx.replay });
  // the shell's "what just happened" line, under this turn's drop
  if (ctx.told && ctx.told.previousElementSibling?.id !== "drop") root.querySelector("#drop")?.after(ctx.told);
  renderPicker(session.outcome ? [] : sortActions(session.legal_actions || []).name, ctx.perform, state.colours || []);
  if (newDrop) {
    ctx.cue?.("drop");
    const big = $("#drop-big");
    big?.classList.remove("fresh");
    void big?.offsetWidth;       // restart the animation
    big?.classList.add("fresh");
  }
}
