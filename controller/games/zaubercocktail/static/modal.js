// One modal of our own (outside the game root, so a live redraw never wipes what a
// player is entering). Closing it empties it: nothing of a hidden entry stays in the page.
import { el } from "./common.js";

let box = null;
let onClose = null;

function host() {
  if (!box) {
    box = el("div.modal.zc-modal#zc-modal", { hidden: true, role: "dialog", "aria-modal": "true" });
    document.body.append(box);
  }
  return box;
}

export function openModal(kind, content, { closed } = {}) {
  closeModal();
  const modal = host();
  modal.dataset.kind = kind;
  modal.setAttribute("aria-label", { entry: "Lay-down entry", helper: "Lay-down helper" }[kind] || "Zaubercocktail");
  modal.replaceChildren(el("div.modal-box.zc-box", {}, content));
  modal.hidden = false;
  onClose = closed || null;
}

export function closeModal() {
  if (!box || box.hidden) return;
  box.hidden = true;
  box.replaceChildren();
  delete box.dataset.kind;
  const done = onClose;
  onClose = null;
  done?.();
}

export const modalKind = () => (box && !box.hidden ? box.dataset.kind : null);
