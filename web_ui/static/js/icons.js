// Small pictures for the six potion kinds (cards, flasks, obstacles): a shape, not only a colour.
const NS = "http://www.w3.org/2000/svg";

// 24x24 paths, filled with currentColor; holes by the even-odd rule.
const PATHS = {
  flame_wall: "M12 1.5C13 6 19 8.5 19 14.5A7 7 0 0 1 5 14.5C5 11 7 9 8.5 6.5C9.5 9 10.5 10 12 11C13 8 13 5 12 1.5Z",
  poison_pit: "M12 2.5A7.5 7.5 0 0 0 4.5 10C4.5 12.7 5.8 14.6 7.5 15.7V20.5H16.5V15.7C18.2 14.6 19.5 12.7 19.5 10A7.5 7.5 0 0 0 12 2.5Z" +
    "M8.8 8.4A2 2 0 1 1 8.8 12.4A2 2 0 1 1 8.8 8.4Z M15.2 8.4A2 2 0 1 1 15.2 12.4A2 2 0 1 1 15.2 8.4Z" +
    "M10 17H11V20H10Z M13 17H14V20H13Z",
  lightning_grid: "M14 1.5L4 14H11L9.5 22.5L20 9H13Z",
  monster_crypt: "M4 22V10A8 8 0 0 1 20 10V22Z M9 10.5A1.8 1.8 0 1 1 9 14.1A1.8 1.8 0 1 1 9 10.5Z" +
    "M15 10.5A1.8 1.8 0 1 1 15 14.1A1.8 1.8 0 1 1 15 10.5Z M8 17H16V18.6H8Z",
  double_speed: "M2 5L11 12L2 19Z M12 5L21 12L12 19Z",
  place_swap: "M3 5.5H14V2L21 7L14 12V8.5H3Z M21 15.5H10V12L3 17L10 22V18.5H21Z",
};

/** An inline SVG icon for a potion kind; `size` in px. */
export function potionIcon(kind, size = 22, extraClass = "") {
  const icon = document.createElementNS(NS, "svg");
  icon.setAttribute("viewBox", "0 0 24 24");
  icon.setAttribute("width", String(size));
  icon.setAttribute("height", String(size));
  icon.setAttribute("aria-hidden", "true");
  icon.setAttribute("class", `potion-icon icon-${kind}${extraClass ? " " + extraClass : ""}`);
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", PATHS[kind] || "M12 3A9 9 0 1 1 12 21A9 9 0 1 1 12 3Z");
  path.setAttribute("fill", "currentColor");
  path.setAttribute("fill-rule", "evenodd");
  icon.append(path);
  return icon;
}

/** The same icon as an SVG <g> placed inside another SVG at (x, y) with the given size. */
export function potionGlyph(kind, x, y, size) {
  const g = document.createElementNS(NS, "g");
  g.setAttribute("transform", `translate(${x} ${y}) scale(${size / 24})`);
  g.setAttribute("class", `potion-glyph icon-${kind}`);
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", PATHS[kind] || "M12 3A9 9 0 1 1 12 21A9 9 0 1 1 12 3Z");
  path.setAttribute("fill-rule", "evenodd");
  g.append(path);
  return g;
}
