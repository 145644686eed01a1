// The private lay-down helper on the tablet: a player enters the whole hand in a modal
// (nothing stays once it is closed), or scans a QR code to use it on their own phone.
import { ask, compact, el } from "./common.js";
import { mayEnter } from "./entry.js";
import { mountHandPad } from "./handpad.js";
import { closeModal, openModal } from "./modal.js";

/** Ask the table for the player's private link (needs the unlocked tablet). */
async function fetchLink(ctx, seat) {
  return ctx.send("/api/v1/zaubercocktail/link", { seat });
}

export async function openHelper(session, seat, ctx, mark) {
  const link = await fetchLink(ctx, seat);
  if (!link) return;                    // PIN refused or cancelled: the tablet said why
  const view = session.state;
  const name = session.players[seat];
  const pad = el("div.zc-handpad");
  let mounted = null;
  // a seat a phone holds shows no code: the helper and the lay-down are on that phone
  const phone = link.claimed
    ? el("div.zc-phone-link", {}, el("p", {}, `✓ ${name}'s seat is on ${name}'s phone: use the helper there.`))
    : el("div.zc-phone-link", {},
      el("img.zc-qr", { src: link.qr_svg, alt: `QR code of ${name}'s private helper link`, width: 220, height: 220 }),
      el("p", {}, "Scan with your phone (same Wi-Fi) to use the helper there, and to send your lay-down from it."),
      el("p.zc-url", {}, link.url), el("p.zc-code", {}, "No camera? Type ", el("strong", {}, link.code), " at ",
        el("strong", {}, new URL("/join", link.url).href)));
  const body = el("div.zc-helper", { dataset: { seat: String(seat) } },
    el("div.zc-entry-head", {}, mark, el("h2", {}, `${name}'s lay-down helper`),
      el("p.zc-secret", {}, "Private: only you look. Closing forgets the hand.")),
    el("div.zc-helper-cols", {}, pad, phone),
    el("div.zc-entry-buttons", {},
      el("button.big-button.go#zc-helper-close", { type: "button", onclick: () => closeModal() }, "Close and forget")));
  openModal("helper", body, { closed: () => mounted?.clear() });
  mounted = mountHandPad(pad, {
    kinds: view.kinds, blackSomething: view.black_something,
    // asked as the table (the tablet is unlocked): the seat's token would claim the seat
    // for the tablet, and the seat belongs to its player's phone
    request: (hand, black) => ask("/helper", { hand: compact(hand), black }),
    // once this player may lay down, a suggestion can become the hidden entry in one tap
    actionFor: (lay) => (mayEnter(view, seat) ? el("button.big-button.go.zc-use", { type: "button",
      onclick: async () => {
        const body = await ctx.perform({ type: "lay_down", seat, cards: compact(lay?.cards), black: compact(lay?.black) });
        if (body) closeModal();
      } }, lay ? "Enter this as my lay-down" : "Enter “I lay nothing”") : null),
  });
}
