// The secure table keeps its page for a reload while the table box or the Wi-Fi is away:
// a service worker (/sw.js, web_ui/templates/sw.js). Only over https: browsers allow one
// on secure pages alone, and the plain-http phones need none.
export function keepPage() {
  if (location.protocol !== "https:" || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" })
    .then(() => navigator.serviceWorker.ready)
    .then(() => { document.body.dataset.worker = "ready"; })
    .catch((err) => { console.warn("the page is not kept for offline reloads", err); });
}
