// Keeping the tablet's screen on while a game runs (docs/tablet.md "Keeping the screen on").
//
// 1. The Screen Wake Lock API, where the browser offers it: only on a secure page (the
//    table over https, docs/https.md, or the Pi's own localhost).
// 2. Where it is missing or refused (plain http on the table's Wi-Fi): a tiny video that
//    plays for as long as the game runs, as NoSleep.js does. Browsers keep the screen on
//    for a video *with sound* on a visible page, so the clip has a silent audio track and
//    is not muted; WebKit also ignores a video with the `loop` attribute, so it seeks
//    back before its end instead (WebKit HTMLMediaElement::shouldDisableSleep, Chromium
//    VideoWakeLock). Sound needs a tap first: it starts on the first tap on the page.
// 3. Neither works: a small notice names the one setting of this tablet to change.
//
// Only the tablet page holds the screen: a phone showing a player's secret cards should
// dim and lock when put down. body[data-awake] says what holds it: lock, video, waiting
// (for the first tap), none (nothing can), off (no game, game over, page hidden).
import { $, el, fill } from "./ui.js";

const SOURCES = [["/static/awake/awake.mp4", "video/mp4"], ["/static/awake/awake.webm", "video/webm"]];
const REWIND_AFTER = 2;          // seconds into the 4 s clip: never reaches its end
const DISMISSED = "potionpi-awake-notice";

/** Where this device keeps its own auto-lock (the one setting that helps when we cannot). */
export function lockSetting(ua = navigator.userAgent, touchPoints = navigator.maxTouchPoints || 0) {
  // iPadOS says "Macintosh" unless asked for the mobile site; a Mac has no touch screen
  if (/iPad|iPhone|iPod/.test(ua) || (/Macintosh/.test(ua) && touchPoints > 1)) {
    return "Settings → Display & Brightness → Auto-Lock → Never";
  }
  if (/Android/.test(ua)) return "Settings → Display → Screen timeout → the longest";
  return "this device's screen timeout (auto-lock) → the longest";
}

/** False where a granted wake lock holds nothing: a home-screen web app on iOS or iPadOS
 *  before 18.4 (WebKit bug 254545; an iPad that says "Mac OS X 10_15" counts as before). */
export function lockHolds(ua = navigator.userAgent, standalone = navigator.standalone === true) {
  if (!standalone) return true;
  const [, major, minor] = (ua.match(/OS (\d+)_(\d+)/) || [0, "0", "0"]).map(Number);
  return major > 18 || (major === 18 && minor >= 4);
}

export function keepAwake() {
  let wanted = false;          // a game is on the table and not over
  let started = false;         // after the first paint (nothing here is needed for it)
  let lock = null;             // the WakeLockSentinel while held
  let asking = false;          // a wake lock request is on its way
  const lockMissing = !("wakeLock" in navigator);   // not a secure page (or an old browser)
  const lockEnough = lockHolds();                  // else the clip plays beside the lock
  let lockFailed = false;      // the last request was refused
  let video = null;
  let unlocked = false;        // play() was called from a tap: it may play without one now
  let videoFailed = false;     // no source plays here, or playing was refused after a tap
  let playing = false;         // play() began and no pause since
  let pausing = false;         // our own pause (not the system's)

  const visible = () => document.visibilityState === "visible";
  const say = (state) => {
    document.body.dataset.awake = state;
    const notice = $("#awake-notice");
    if (!notice) return;
    notice.hidden = state !== "none" || sessionStorage.getItem(DISMISSED) === "yes";
    if (!notice.hidden) {
      // each step of the way unbroken ("Auto-Lock" never split over two lines)
      const steps = lockSetting().split(" → ");
      const way = steps.flatMap((step, i) => [el("span.step", {}, i < steps.length - 1 ? `${step} →` : step), " "]);
      fill($("#awake-text"), "This tablet may dim and lock during the game: its browser does not let the page " +
        "keep the screen on. For game night: ", el("strong", {}, way.slice(0, -1)), ".");
    }
  };

  function makeVideo() {
    video = document.createElement("video");
    video.className = "awake-video";
    video.setAttribute("playsinline", "");          // inline on an iPhone, never full screen
    video.setAttribute("aria-hidden", "true");
    video.setAttribute("title", "keeps the screen on");
    video.preload = "auto";
    video.disableRemotePlayback = true;
    for (const [src, type] of SOURCES) {
      const source = document.createElement("source");
      source.src = src;
      source.type = type;
      video.append(source);
    }
    // the last source failing means none plays here (a play() then waits for ever)
    video.lastElementChild.addEventListener("error", () => { videoFailed = true; update(); });
    video.addEventListener("timeupdate", () => { if (video.currentTime > REWIND_AFTER) video.currentTime = 0; });
    video.addEventListener("pause", () => {
      playing = false;
      if (pausing) { pausing = false; return; }
      if (wanted && visible() && (!lock || !lockEnough)) setTimeout(update);   // the system paused it: on
    });
    document.body.append(video);
  }

  function playVideo(fromTap) {
    if (!video) makeVideo();
    if (playing) { say("video"); return; }
    if (!fromTap && (!unlocked || videoFailed)) { say(videoFailed ? "none" : "waiting"); return; }
    if (!video.paused) return;                       // a play() is on its way
    if (video.networkState === HTMLMediaElement.NETWORK_NO_SOURCE) {
      videoFailed = false;                           // try the sources again: the Wi-Fi may be back
      video.load();
    }
    if (fromTap) unlocked = true;                    // WebKit: a play() inside a tap unlocks it
    video.play().then(() => {
      playing = true;
      videoFailed = false;
      if (!wanted || !visible() || (lock && lockEnough)) stopVideo();   // a tap before any game: only unlocked
      else say("video");
    }, (err) => {
      if (err.name === "AbortError") return;         // paused (or loaded again) before it began
      if (fromTap || err.name === "NotSupportedError") videoFailed = true;   // a tap did not help
      else unlocked = false;                         // wants a tap again
      update();
    });
  }

  function stopVideo() {
    playing = false;
    if (video && !video.paused) { pausing = true; video.pause(); }
  }

  async function askLock() {
    if (asking) return;
    asking = true;
    try {
      const sentinel = await navigator.wakeLock.request("screen");
      lockFailed = false;
      lock = sentinel;
      // released by the browser when the page hides; asked again when it shows
      sentinel.addEventListener("release", () => { if (lock === sentinel) lock = null; update(); });
      if (!wanted || !visible()) { lock = null; sentinel.release(); }
    } catch (_) {
      lockFailed = true;     // battery saver, a policy, or WebKit before the first tap: the video
    } finally {
      asking = false;
    }
    update();
  }

  /** Bring what holds the screen in line with what is wanted (a tap may start the video). */
  function update(fromTap = false) {
    if (!started) return;
    if (!wanted || !visible()) {
      stopVideo();
      if (lock) { const held = lock; lock = null; held.release(); }
      if (fromTap && !unlocked) playVideo(true);       // ready for the game this tap starts
      say("off");
      return;
    }
    if (lock && lockEnough) { stopVideo(); say("lock"); return; }
    if (!lock && !lockMissing && !asking && (!lockFailed || fromTap)) askLock();
    if (lockMissing || lockFailed || fromTap || !lockEnough) {
      // from this very tap if there is one (WebKit wants play() inside it); a lock that
      // comes stops it again
      playVideo(fromTap);
      if (videoFailed && !asking && !fromTap) say("none");
    } else {
      say("waiting");
    }
  }

  document.addEventListener("visibilitychange", () => update());
  // the events that count as a tap for playing sound: a touch's pointerdown does not (HTML's
  // "activation triggering" events), its pointerup and the click after it do
  for (const type of ["pointerup", "click", "keydown"]) {
    document.addEventListener(type, () => { if (!lock || !lockEnough) update(true); }, { passive: true, capture: true });
  }
  $("#awake-later")?.addEventListener("click", () => {
    sessionStorage.setItem(DISMISSED, "yes");
    $("#awake-notice").hidden = true;
  });
  return {
    /** A game is on the table and not over (true), or not (false). */
    want(on) {
      if (on === wanted) return;
      wanted = on;
      update();
    },
    start() {
      started = true;
      update();
    },
  };
}
