// Talking to the daemon: JSON POSTs with the CSRF token, and the live stream.

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

/** Thrown for any non-2xx answer; carries the status and the JSON body. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error || `the table answered ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

export async function postJSON(url, payload = {}) {
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(payload),
    });
  } catch (_) {
    // no answer at all (an answer, even 500, is never blamed on the network)
    throw new ApiError(0, { error: "the table did not answer: it may be restarting, or this tablet is off its Wi-Fi" });
  }
  let body = null;
  try { body = await response.json(); } catch (_) { body = null; }
  if (!response.ok && !body?.error) body = { ...(body || {}), error: `the table answered but could not do it (error ${response.status})` };
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** The ApiError for a refused answer (its JSON body read), with the seconds its
 *  Retry-After asks for (0 without one). */
async function refusal(response) {
  const err = new ApiError(response.status, await response.json().catch(() => null));
  err.retryAfter = Number(response.headers.get("Retry-After")) || 0;
  return err;
}

/** How long to wait before asking again after a 429: its Retry-After, 1 to 15 s. */
export const waitSeconds = (err) => Math.min(Math.max(err.retryAfter || 0, 1), 15);

export async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw await refusal(response);
  return response.json().catch(() => null);
}

/**
 * getJSON for an answer built from the whole history (the log, the history, the statistics):
 * the table builds one such answer per device at a time and says 429 with Retry-After to the
 * next (web_ui/admission.py), e.g. when the History tab is tapped while the log is still
 * coming. That is asked again after the wait, as long as ``wanted()`` (the tab is still
 * shown); ``waiting()`` is told before each wait. Anything else is thrown as getJSON does.
 */
export async function getPatiently(url, options = {}) {
  const response = await fetchPatiently(url, options);
  return response.json().catch(() => null);
}

/**
 * The answer to GET ``url`` once it is not 429 (see getPatiently): the Response of a 2xx,
 * its body not read yet (a download reads it as a file); anything else is thrown as an
 * ApiError (status 0: no answer at all), with the table's sentence where it sent one.
 */
export async function fetchPatiently(url, { wanted = () => true, waiting = () => {} } = {}) {
  for (;;) {
    let response;
    try {
      response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
    } catch (_) {
      throw new ApiError(0, { error: "the table did not answer: it may be restarting, or this tablet is off its Wi-Fi" });
    }
    if (response.ok) return response;
    const err = await refusal(response);
    if (err.status !== 429 || !wanted()) throw err;
    waiting(err);
    await new Promise((resolve) => setTimeout(resolve, 1000 * waitSeconds(err)));
    if (!wanted()) throw err;
  }
}

/**
 * Follow the table live. onSession(session) for each version, onNotice(notice) for
 * device notices, onState("live" | "connecting" | "offline").
 * EventSource reconnects by itself (and sends Last-Event-ID); when the browser gives
 * up (e.g. the server answered 503 or was restarting), we open a new one with backoff.
 */
export function follow(url, { onSession, onNotice, onState }) {
  let source = null;
  let delay = 1000;
  let timer = null;
  let closed = false;          // closed by the page: never reopened

  const open = () => {
    if (closed) return;
    clearTimeout(timer);
    onState("connecting");
    source = new EventSource(url);
    source.onopen = () => { delay = 1000; onState("live"); };
    source.onmessage = (event) => {
      onState("live");
      try { onSession(JSON.parse(event.data)); } catch (err) { console.error(err); }
    };
    source.addEventListener("notice", (event) => {
      try { onNotice(JSON.parse(event.data)); } catch (err) { console.error(err); }
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        onState("offline");
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 15000);
      } else {
        onState("connecting");
      }
    };
  };
  // A tablet waking from sleep: reconnect at once rather than after the backoff.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && source?.readyState === EventSource.CLOSED) open();
  });
  open();
  return {
    close: () => { closed = true; clearTimeout(timer); source?.close(); },
    retry: () => { source?.close(); open(); },
  };
}
