// The owner's settings page: its downloads (the log, every game) fetched by the page, so a
// refusal ("busy", the PIN run out) is said on the page, never saved as the file (download.js).
import { patientDownloads } from "./download.js";

patientDownloads();
// a tap on a download from here on is the page's: a test (or a script) waits for this
document.body.dataset.ready = "yes";
