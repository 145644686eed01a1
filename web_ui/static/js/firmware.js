// The Pico's firmware against this potionpi's (GET /api/v1/firmware): when the Pico's is
// older, a notice over the bottom of the board until "Later" (asked again for another
// Pico version or after a restart of the browser), and a line in the More panel for good.
import { $ } from "./ui.js";
import { getJSON } from "./net.js";

const KEY = "potionpi-firmware-later";

/** Ask the table and show or hide the notice; quiet if the table does not answer. */
export async function checkFirmware() {
  let fw;
  try { fw = await getJSON("/api/v1/firmware"); } catch (_) { return; }
  showFirmware(fw);
}

/** Show or hide the notice for ``fw`` ({host, pico, older}). */
function showFirmware(fw) {
  const older = Boolean(fw && fw.older && fw.pico && fw.host);
  const words = older ? `The forest-floor Pico runs firmware ${fw.pico}, older than this potionpi's ${fw.host}. `
    + "After the game, run “potionpi update” on the table box (Settings shows how)." : "";
  $("#firmware-text").textContent = words;
  $("#sheet-firmware").textContent = older ? `⚠ ${words}` : "";
  $("#sheet-firmware").hidden = !older;
  $("#firmware-notice").hidden = !older || sessionStorage.getItem(KEY) === fw.pico;
  document.body.dataset.firmware = older ? "older" : "ok";
}

/** ``initial``: the firmware state the page came with (no request at load). */
export function setupFirmware(initial) {
  $("#firmware-later").addEventListener("click", () => {
    sessionStorage.setItem(KEY, ($("#firmware-text").textContent.match(/firmware (\S+),/) || [])[1] || "");
    $("#firmware-notice").hidden = true;
  });
  if (initial) showFirmware(initial);
  else checkFirmware();
}
