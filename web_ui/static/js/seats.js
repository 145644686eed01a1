// The seat links of any game (GET /api/v1/seats, table only): a modal with each
// player's QR code to scan with their own phone. A game's tablet.js calls showSeats().
import { el, toast } from "./ui.js";
import { askPin, isUnlocked, setUnlocked } from "./pinpad.js";

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

async function fetchSeats() {
  const response = await fetch("/api/v1/seats", { credentials: "same-origin", cache: "no-store",
                                                   headers: { "X-CSRF-Token": csrf() } });
  const body = await response.json().catch(() => null);
  return { status: response.status, body };
}

/** Show every seat's QR code; asks for the PIN first if this tablet is locked. */
export async function showSeats() {
  if (!isUnlocked() && !(await askPin("Phone links are for the table only."))) return;
  let { status, body } = await fetchSeats();
  if (status === 401) {
    setUnlocked(false);
    if (!(await askPin("Enter the PIN to show the phone links."))) return;
    ({ status, body } = await fetchSeats());
  }
  if (status !== 200) { toast(body?.error || "The phone links cannot be shown now.", "error"); return; }
  const close = () => modal.remove();
  const modal = el("div.modal.seat-links", { id: "seat-links", role: "dialog", "aria-label": "Phone links" },
    el("div.modal-box", {},
      el("h2", {}, "Scan your seat with your phone"),
      el("p.pin-hint", {}, "Each code opens one player's secret cards. Only scan your own."),
      el("div.seat-link-grid", {}, body.seats.map((s) => el("figure.seat-link", { dataset: { seat: s.seat } },
        el("img", { src: s.qr_svg, alt: `QR code for ${s.name}`, width: 168, height: 168 }),
        el("figcaption", {}, el(`span.seat-chip.seat-${s.seat}`, {}, s.seat + 1), " ", s.name)))),
      el("button.big-button", { type: "button", onclick: close }, "Done")));
  document.body.append(modal);
}
