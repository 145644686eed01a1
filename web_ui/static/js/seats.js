// The seat links of any game (GET /api/v1/seats, table only): a modal with each free
// seat's QR code and short code, for its player to open on their own phone. A seat a
// phone holds shows no code (it opens on that phone only) and offers to move it to
// another phone, which the whole table is told. A game's tablet.js calls showSeats().
import { el, toast } from "./ui.js";
import { askPin, isUnlocked, setUnlocked } from "./pinpad.js";

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

async function call(url, method = "GET") {
  const response = await fetch(url, { method, credentials: "same-origin", cache: "no-store",
                                      headers: { "X-CSRF-Token": csrf() } });
  const body = await response.json().catch(() => null);
  return { status: response.status, body };
}

const fetchSeats = () => call("/api/v1/seats");

function seatFigure(s, redraw) {
  const chip = el(`span.seat-chip.seat-${s.seat}`, {}, s.seat + 1);
  if (s.claimed) {
    // two taps: the first says what moving does, the second moves
    const move = async (event) => {
      const button = event.currentTarget;
      if (button.dataset.armed !== "yes") {
        button.dataset.armed = "yes";
        button.textContent = `Tap again: ${s.name}'s phone stops showing it, the table is told`;
        return;
      }
      const { status, body } = await call(s.move, "POST");
      if (status !== 200) { toast(body?.error || "The seat could not be moved now.", "error"); return; }
      redraw();
    };
    return el("figure.seat-link.claimed", { dataset: { seat: s.seat, claimed: "yes" } },
      el("p.seat-held", {}, el("span.seat-held-mark", { "aria-hidden": "true" }, "✓"), ` On ${s.name}'s phone`),
      el("figcaption", {}, chip, " ", s.name),
      el("button.big-button.quiet.seat-move", { type: "button", onclick: move }, "Move to another phone"));
  }
  return el("figure.seat-link", { dataset: { seat: s.seat, claimed: "no" } },
    el("img", { src: s.qr_svg, alt: `QR code for ${s.name}`, width: 168, height: 168 }),
    el("figcaption", {}, chip, " ", s.name),
    el("p.seat-code", {}, "or type ", el("strong", { dataset: { code: s.code } }, s.code)));
}

/** Show every seat; asks for the PIN first if this tablet is locked. */
export async function showSeats() {
  if (!isUnlocked() && !(await askPin("Phone links are for the table only."))) return;
  let { status, body } = await fetchSeats();
  if (status === 401) {
    setUnlocked(false);
    if (!(await askPin("Enter the PIN to show the phone links."))) return;
    ({ status, body } = await fetchSeats());
  }
  if (status !== 200) { toast(body?.error || "The phone links cannot be shown now.", "error"); return; }
  const grid = el("div.seat-link-grid");
  const draw = (seats) => grid.replaceChildren(...seats.map((s) => seatFigure(s, redraw)));
  async function redraw() {
    const again = await fetchSeats();
    if (again.status === 200) draw(again.body.seats);
  }
  // a phone took its seat, or a seat moved: the modal shows it at once
  const onNotice = (event) => { if (["seat", "pin"].includes(event.detail?.kind)) redraw(); };
  const close = () => { document.removeEventListener("table-notice", onNotice); modal.remove(); };
  const link = body.seats.find((s) => s.url)?.url;
  const join = link ? new URL("/join", link).href : "/join";
  const modal = el("div.modal.seat-links", { id: "seat-links", role: "dialog", "aria-label": "Phone links" },
    el("div.modal-box", {},
      el("h2", {}, "Scan your seat with your phone"),
      el("p.pin-hint", {}, "Each code opens one player's secret cards, on the first phone that opens it. "
        + "Only scan your own. No camera? Open ", el("strong.seat-join", {}, join), " and type the code."),
      grid,
      el("button.big-button", { type: "button", onclick: close }, "Done")));
  draw(body.seats);
  document.addEventListener("table-notice", onNotice);
  document.body.append(modal);
}
