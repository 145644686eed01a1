// Turn cues: a short generated sound (Web Audio: no file fetched) and a buzz where the
// device can vibrate. Each can be turned off on the tablet (remembered on this device).

const KEY = "potionpi.cues";
const TUNES = {                 // [frequency Hz, start s, length s] notes
  next: [[660, 0, 0.12], [880, 0.13, 0.16]],          // a new instruction: someone's turn
  over: [[523, 0, 0.15], [659, 0.16, 0.15], [784, 0.32, 0.15], [1046, 0.48, 0.35]],
  warn: [[220, 0, 0.18], [196, 0.2, 0.25]],            // a device notice
  drop: [[988, 0, 0.09]],                               // a drop seen by the sensor
  shout: [[440, 0, 0.1], [660, 0.11, 0.1], [440, 0.22, 0.1], [880, 0.33, 0.25]],   // "MONSTER!", "stop!"
};
const BUZZ = { next: [60], over: [80, 60, 80, 60, 200], warn: [200, 80, 200], drop: [30], shout: [100, 50, 100, 50, 150] };
// One cue at a time: within a moment of another, only a weightier one sounds (a game's
// own "drop" and the table's "something new to do" for the same change are one cue).
const WEIGHT = { next: 1, drop: 2, warn: 3, shout: 4, over: 5 };
const MOMENT_MS = 400;
let last = { kind: null, at: 0 };
let audio = null;

export function cueSettings() {
  try { return { sound: false, vibrate: true, ...JSON.parse(localStorage.getItem(KEY) || "{}") }; }
  catch (_) { return { sound: false, vibrate: true }; }
}

export function setCue(name, on) {
  const now = { ...cueSettings(), [name]: Boolean(on) };
  try { localStorage.setItem(KEY, JSON.stringify(now)); } catch (_) { /* private mode: this visit only */ }
  if (name === "sound" && on) cue("next");       // a sample, and it unlocks audio on this tap
  return now;
}

/** Play the cue `kind` as the settings allow: "next" (something new to do), "over" (the
 *  game ended), "warn" (a device notice), "drop" (a drop seen), "shout" (a game's
 *  "MONSTER!" or "stop!"). Games call it as ctx.cue(kind). */
export function cue(kind) {
  const now = Date.now();
  if (now - last.at < MOMENT_MS && (WEIGHT[kind] || 0) <= (WEIGHT[last.kind] || 0)) return;
  last = { kind, at: now };
  const { sound, vibrate } = cueSettings();
  document.body.dataset.lastCue = kind;          // what was cued, for anyone checking
  // a browser refuses to vibrate (and logs an error) until someone has tapped the page
  const tapped = !navigator.userActivation || navigator.userActivation.hasBeenActive;
  if (vibrate && navigator.vibrate && tapped) navigator.vibrate(BUZZ[kind] || [60]);
  if (!sound) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const t0 = audio.currentTime + 0.02;
    for (const [freq, at, len] of TUNES[kind] || TUNES.next) {
      const osc = audio.createOscillator(), gain = audio.createGain();
      osc.type = "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + at);
      gain.gain.exponentialRampToValueAtTime(0.25, t0 + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(t0 + at);
      osc.stop(t0 + at + len + 0.05);
    }
  } catch (_) { /* no audio on this device: the screen still says it */ }
}
