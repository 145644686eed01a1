// The PIN pad: asked once per tablet; the daemon then keeps a session cookie.
import { $, el, fill } from "./ui.js";
import { postJSON } from "./net.js";

let pending = null;   // the promise while the pad is open

export function isUnlocked() {
  return document.body.dataset.unlocked === "yes";
}

export function setUnlocked(yes) {
  document.body.dataset.unlocked = yes ? "yes" : "no";
  $("#btn-lock").textContent = yes ? "Lock" : "PIN";
}

/** Show the pad; resolves true once the PIN was accepted, false when cancelled. */
export function askPin(reason = "") {
  if (pending) return pending;
  const modal = $("#pinpad");
  const dots = $("#pin-dots");
  const error = $("#pin-error");
  let digits = "";
  const draw = () => fill(dots, [...Array(Math.max(4, digits.length))].map((_, i) =>
    el(`span.pin-dot${i < digits.length ? ".on" : ""}`)));
  error.textContent = reason;
  draw();
  modal.hidden = false;

  pending = new Promise((resolve) => {
    const finish = (ok) => {
      modal.hidden = true;
      modal.removeEventListener("click", onClick);
      document.removeEventListener("keydown", onKey);
      pending = null;
      resolve(ok);
    };
    const submit = async () => {
      if (digits.length < 4) { error.textContent = "The PIN has at least 4 digits."; return; }
      try {
        await postJSON("/api/v1/login", { pin: digits });
        setUnlocked(true);
        finish(true);
      } catch (err) {
        digits = "";
        draw();
        error.textContent = err.message.replace(/^./, (s) => s.toUpperCase()) + ".";
      }
    };
    const press = (key) => {
      if (key === "cancel") return finish(false);
      if (key === "ok") return submit();
      if (key === "back") digits = digits.slice(0, -1);
      else if (/^\d$/.test(key) && digits.length < 8) digits += key;
      error.textContent = "";
      draw();
    };
    const onClick = (event) => {
      const key = event.target.closest("[data-key]")?.dataset.key;
      if (key) press(key);
    };
    const onKey = (event) => {
      if (/^\d$/.test(event.key)) press(event.key);
      else if (event.key === "Backspace") press("back");
      else if (event.key === "Enter") press("ok");
      else if (event.key === "Escape") press("cancel");
    };
    modal.addEventListener("click", onClick);
    document.addEventListener("keydown", onKey);
  });
  return pending;
}

export async function lock() {
  await postJSON("/api/v1/logout");
  setUnlocked(false);
}
