// The secure table's service worker (served at /sw.js by web_ui/secure.py, on https only).
// It keeps the tablet page and its files, so a reload while the table box is down (or the
// Wi-Fi away) still shows the board, under the "Not connected" cover until it is back.
// Only the page (/) and its content-hashed files are answered here; everything else — the
// API, the live stream, downloads, the owner's pages, the seat pages — goes to the table
// untouched and is never stored. VERSION changes with every file's hash, so an update of
// potionpi is a new worker: it installs at once and clears the old one's cache.
const VERSION = {{ version|tojson }};
const CACHE = `potionpi-${VERSION}`;
const PAGE = "/";
const FILES = {{ files|tojson }};
const KEPT = new Set(FILES);
const PAGE_WAIT_MS = 4000;     // a table that does not answer this fast: the kept page first

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll([PAGE, ...FILES])).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("potionpi-") && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    if (url.pathname === PAGE) event.respondWith(page(request));
    return;
  }
  if (KEPT.has(url.pathname + url.search)) event.respondWith(kept(request));
});

/** The table's page: fresh from the table (and kept), else the kept one. */
async function page(request) {
  const cache = await caches.open(CACHE);
  const fresh = fetch(request).then((response) => {
    if (response.ok) cache.put(PAGE, response.clone());
    return response;
  });
  fresh.catch(() => {});       // answered from the cache below
  const late = new Promise((resolve) => setTimeout(resolve, PAGE_WAIT_MS));
  try {
    const first = await Promise.race([fresh, late]);
    if (first) return first;
  } catch (_) { /* the table is not there */ }
  return (await cache.match(PAGE)) || fresh;
}

/** A content-hashed file: it never changes, so the kept copy is the file. */
async function kept(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) cache.put(request, response.clone());
  return response;
}
