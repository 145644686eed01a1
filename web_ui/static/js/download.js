// The table's downloads (the history as CSV, BG Stats files, the export, the log), fetched by
// the page instead of by the browser's plain <a download>: the table makes one history-wide
// answer per device at a time and says 429 to the next (web_ui/admission.py), and a plain
// link then saved that refusal's JSON as the file. Here a refusal is never saved: "busy" is
// asked again after its Retry-After (net.js fetchPatiently) and said beside the link, any
// other refusal is said in a sentence, and only a 2xx answer becomes the file, under the
// name the table gives it (Content-Disposition). The file is held by the browser as a Blob
// until it is saved (the Pi still streams it from SQLite): a few MB for the CSV of 10,000
// games; the export of 10,000 long games is 170 MiB (docs/api.md "Errors outside the contract").
import { fetchPatiently, waitSeconds } from "./net.js";

const running = new WeakSet();            // links whose download is on its way: a second tap waits for it

/** The file's name from the answer's Content-Disposition (RFC 6266), else the link's own. */
export function fileName(disposition, fallback) {
  const starred = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition || "");
  if (starred) {
    try { return decodeURIComponent(starred[1].trim()); } catch (_) { /* a broken name: the plain one */ }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition || "");
  const name = plain ? (plain[2] ?? plain[1]).trim() : "";
  return name || fallback || "download";
}

/** Why a download could not be made, in a sentence for the player. */
function why(err) {
  if (!err.status) return "The table did not answer: it may be restarting, or this device is off the table's Wi-Fi. Try again in a moment.";
  if (err.status === 401) return "This device is locked: enter the table PIN (reload the page), then tap the download again.";
  if (err.status === 404 && !err.body?.error) return "The table has no such file (any more): reload the page to see what it has.";
  if (err.body?.error) return `${err.body.error.replace(/^./, (c) => c.toUpperCase())}.`;
  return `The table could not make this file (error ${err.status}). Try again in a moment.`;
}

/** The line under a group of download links that says how their download goes. */
function statusLine(link) {
  const group = link.closest("[data-downloads]") || link;
  let line = group.nextElementSibling;
  if (!line?.classList.contains("download-status")) {
    line = Object.assign(document.createElement("p"), { className: "download-status" });
    line.setAttribute("role", "status");
    group.after(line);
  }
  return line;
}

/** Save the answer to ``url`` as a file (see above); ``say(text, state)`` tells how it goes
 *  (state: "busy", "loading", "done" or "failed"). Resolves to the file's name, or null. */
export async function saveFile(url, { name = "", say = () => {} } = {}) {
  say("… Downloading", "loading");
  try {
    const response = await fetchPatiently(url, {
      waiting: (err) => say(`… The table is busy with another answer for this device; trying again in ${waitSeconds(err)} s…`, "busy"),
    });
    const file = fileName(response.headers.get("Content-Disposition"), name);
    const blob = await response.blob();
    const href = URL.createObjectURL(blob);
    const a = Object.assign(document.createElement("a"), { href, download: file, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    // Safari reads the Blob after click() returns: freed a minute later, not at once
    setTimeout(() => URL.revokeObjectURL(href), 60_000);
    say(`✓ ${file} downloaded.`, "done");
    return file;
  } catch (err) {
    // an ApiError is the table's refusal; anything else: the file was cut off on its way
    say(`⚠ ${err.status !== undefined ? why(err)
      : "The file did not arrive whole (the Wi-Fi or the table dropped it). Try again in a moment."}`, "failed");
    return null;
  }
}

/** Every tap on an <a download> under ``root`` goes through saveFile, its progress said in
 *  a line under the link's group (the closest [data-downloads]). */
export function patientDownloads(root = document) {
  root.addEventListener("click", (event) => {
    const link = event.target.closest?.("a[download]");
    if (!link || event.defaultPrevented || event.button || event.metaKey || event.ctrlKey || event.shiftKey) return;
    // the table's own files only: not the blob: link saveFile clicks to hand one over
    if (!link.href.startsWith(`${location.origin}/`)) return;
    event.preventDefault();
    if (running.has(link)) return;            // the first tap's file is on its way
    running.add(link);
    link.setAttribute("aria-busy", "true");
    const line = statusLine(link);
    saveFile(link.href, {
      name: link.getAttribute("download"),
      say: (text, state) => {
        line.textContent = text;
        line.dataset.state = state;
        line.scrollIntoView({ block: "nearest" });     // under the fold of a scrolling panel, it is not said
      },
    }).finally(() => { running.delete(link); link.removeAttribute("aria-busy"); });
  });
}
