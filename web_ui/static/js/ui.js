// Small DOM helpers, the colour table and passing messages (toasts).

/** el("button.big", {onclick}, "text", child) — a tiny hyperscript. */
export function el(tag, props = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const node = document.createElement(name || "div");
  if (classes.length) node.className = classes.join(" ");
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") node.style.cssText = value;
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const $ = (sel) => document.querySelector(sel);

/** Replace a container's children in one go. */
export function fill(container, ...children) {
  container.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

// Drop colours: Okabe-Ito (colour-blind safe), and every colour also carries its letter.
export const COLOURS = {
  red: { letter: "R", name: "red" },
  yellow: { letter: "Y", name: "yellow" },
  green: { letter: "G", name: "green" },
  blue: { letter: "B", name: "blue" },
  purple: { letter: "P", name: "purple" },
  orange: { letter: "O", name: "orange" },
};

/** Letters from the game's own data when its view lists its colours ([{id, letter, name}]). */
export function learnColours(colours = []) {
  for (const c of colours) {
    COLOURS[c.id] = { letter: c.letter || c.id[0].toUpperCase(), name: c.name || c.id };
  }
}

export function colourLetter(id) {
  return COLOURS[id]?.letter || String(id || "?").slice(0, 1).toUpperCase();
}

/** A round colour token: filled with the colour and showing its letter. */
export function colourDot(id, extraClass = "") {
  return el(`span.dot.c-${id}${extraClass ? "." + extraClass : ""}`,
    { title: id, "aria-label": `${id} drop` }, colourLetter(id));
}

/** An id in words: "flame_wall" → "Flame wall" (a game may pass its own names). */
export function pretty(id, names = {}) {
  return names[id] || String(id).replace(/_/g, " ").replace(/^./, (s) => s.toUpperCase());
}

/** Short labels for players: the initial, or two letters when initials clash. */
export function playerMarks(names) {
  const initials = names.map((n) => n.trim().slice(0, 1).toUpperCase());
  return names.map((n, i) =>
    initials.filter((x) => x === initials[i]).length > 1
      ? n.trim().slice(0, 2).replace(/^./, (s) => s.toUpperCase())
      : initials[i]);
}

export function toast(text, kind = "info", ms = 4500) {
  const box = $("#toasts");
  const node = el(`div.toast.${kind}`, { role: kind === "error" ? "alert" : "status" }, text);
  box.append(node);
  while (box.children.length > 3) box.firstElementChild.remove();
  setTimeout(() => node.classList.add("leaving"), ms);
  setTimeout(() => node.remove(), ms + 400);
  return node;
}

// Device notices (SSE "event: notice"): passing news, shown big, never something to dismiss.
const NOTICE_WORDS = {
  stuck: "The cauldron may be stuck: turn back a little, then forward again.",
  too_fast: "Turn gently!",
  beam_ok: "The drop sensor sees its beam again.",
};
const NOTICE_LOOK = { stuck: "warn", too_fast: "warn", beam_ok: "good", sensor: "warn", device: "error", floor: "warn" };
const NOTICE_ICON = { stuck: "⟲", too_fast: "!", beam_ok: "✓", sensor: "!", device: "!", floor: "!" };

/** A device or table notice, big, for a while. ``place(node)``: where a page has a better
 *  spot for it than over the board (the story line); false leaves it to the toasts. */
export function noticeToast(notice = {}, { place = null } = {}) {
  const kind = notice.kind || "";
  const text = String(notice.message || notice.text || NOTICE_WORDS[kind] || "The cauldron says something.")
    .replace(/^./, (c) => c.toUpperCase());
  const box = $("#toasts");
  // The same notice again (a hand still turning too fast): keep the one on screen up longer.
  const same = [...box.children].find((n) => n.dataset.text === text && !n.classList.contains("leaving"));
  if (same) { clearTimeout(Number(same.dataset.timer)); same.dataset.timer = String(fadeLater(same, 7000)); return same; }
  const node = el(`div.toast.notice.${NOTICE_LOOK[kind] || "info"}`, { role: "status", dataset: { kind, text } },
    el("span.notice-icon", { "aria-hidden": "true" }, NOTICE_ICON[kind] || "i"), el("span.notice-text", {}, text));
  if (place?.(node)) return node;
  box.append(node);
  while (box.children.length > 3) box.firstElementChild.remove();
  node.dataset.timer = String(fadeLater(node, 7000));
  return node;
}

function fadeLater(node, ms) {
  return setTimeout(() => {
    node.classList.add("leaving");
    setTimeout(() => node.remove(), 400);
  }, ms);
}
