// Test rig: the genuine MicroPython (RPI_PICO UF2) on an emulated RP2040 (rp2040js),
// with the forest-floor firmware on a LittleFS image, its USB CDC joined to stdin/stdout
// and a control channel (JSON lines) on a socket fd for the world around the Pico: pull-ups,
// the STEP/DIR/EN pins of the stepper driver and a rotor with a home mark.
//
//   node rig.js <uf2> <bootrom> <fs.img> '<pins json>' <control fd>
//
// pins json: {"step": 2, "dir": 3, "en": 4, "en_active_low": true}
//
// Grown from ../shared/emulator/cdc-bridge.js. Driven by rig.py; see README.md.
'use strict';
const fs = require('fs');
const net = require('net');
const { Simulator, USBCDC, ConsoleLogger, LogLevel, GPIOPinState } = require('rp2040js');

const [uf2Path, romPath, fsPath, pinsJson, ctlFd] = process.argv.slice(2, 7);
const PINS = Object.assign({ step: 2, dir: 3, en: 4, en_active_low: true }, JSON.parse(pinsJson || '{}'));
const FS_OFFSET = 0xa0000; // MicroPython RPI_PICO: 1408 KiB of LittleFS at the top of 2 MiB
const CHUNK = 200000;      // instructions per turn of the event loop
const PIO_SLICE_NS = 500;  // the PIO catches up with the CPU at least this often (emulated)

const rom = fs.readFileSync(romPath);
const bootrom = new Uint32Array(rom.buffer.slice(rom.byteOffset, rom.byteOffset + rom.length));
const uf2 = fs.readFileSync(uf2Path);
const fsImage = fsPath ? fs.readFileSync(fsPath) : null;

// --- everything the host can see or set, kept across resets ----------------
const world = {
  steps: 0,           // rising STEP edges since the last "clear"
  stepsFwd: 0,        // ... with DIR high
  stepsBack: 0,       // ... with DIR low
  stepsDisabled: 0,   // ... while the driver was disabled (EN inactive): the rotor ignores them
  enActivations: 0,   // times EN went to "driver on"
  drives: {},         // pin -> bool: an external signal on an input (wins over the pad's pull)
  rotor: null,        // see setRotor()
  jammed: false,
  hung: false,
  resets: [],         // reasons of the chip resets so far ("watchdog", "forced", "host")
  cdcUp: 0,           // times USB CDC came up
  glitch: null,       // {pin, until}: an input held at its other level until `until` (emulated ns)
  glitches: 0,
  bootNanos: 0,       // emulated time of the running boot
  totalNanos: 0,      // emulated time of the previous boots
};

let sim = null;
let watchdog = null;
let mcu = null;
let cdc = null;
let cdcReady = false;
let toPico = [];      // host bytes waiting for room in the CDC FIFO

function state(pin) { return mcu.gpio[pin].value; }
function isHigh(pin) { return state(pin) === GPIOPinState.High; }
function enActive() {
  // An undriven EN follows the pad's pull: the RP2040's default pull-down means "on"
  // for an active-low driver input (the board has no pull-up unless the wiring adds one).
  const s = state(PINS.en);
  const high = s === GPIOPinState.High || s === GPIOPinState.InputPullUp;
  return PINS.en_active_low ? !high : high;
}

function applyPull(index) {
  const pin = mcu.gpio[index];
  if (index in world.drives) {
    pin.setInputValue(world.drives[index]);
    return;
  }
  // rp2040js does not model the pads' pulls: drive what the resistor would.
  const s = pin.value;
  if (s === GPIOPinState.InputPullUp) pin.setInputValue(true);
  else if (s === GPIOPinState.InputPullDown || s === GPIOPinState.Input) pin.setInputValue(false);
}

function rotorSensorLevel(r) {
  const n = r.steps_per_rev;
  const rel = (((r.position - r.mark) % n) + n) % n;
  const active = rel < r.width;
  return r.active_low ? !active : active;
}

function driveRotorSensor() {
  const r = world.rotor;
  if (!r) return;
  const level = rotorSensorLevel(r);
  if (world.drives[r.pin] !== level) {
    world.drives[r.pin] = level;
    if (mcu) mcu.gpio[r.pin].setInputValue(level);
  }
}

function onStepEdge() {
  world.steps++;
  const dirHigh = isHigh(PINS.dir);
  if (dirHigh) world.stepsFwd++; else world.stepsBack++;
  const on = enActive();
  if (!on) world.stepsDisabled++;
  const r = world.rotor;
  if (r && on && !world.jammed) {
    const forward = dirHigh !== r.invert;
    r.position += forward ? 1 : -1;
    r.moved++;
    const before = r.onMark;
    driveRotorSensor();
    r.onMark = rotorSensorLevel(r) !== r.active_low;
    if (r.onMark && !before) r.marksSeen++;
  }
}

function boot(reason) {
  // A watchdog reset keeps the watchdog's REASON and SCRATCH registers (machine.reset_cause()
  // and the SDK's reboot magic read them); a power cycle does not.
  const kept = sim && reason !== 'host' ? { reason: watchdog.reason, scratch: watchdog.scratchData.slice() } : null;
  if (sim) {
    world.totalNanos += sim.clock.nanos;
    world.resets.push(reason);
    process.stderr.write(`[rig] chip reset (${reason})\n`);
  }
  world.hung = false;
  sim = new Simulator();
  mcu = sim.rp2040;
  mcu.logger = new ConsoleLogger(LogLevel.Error);
  mcu.loadBootrom(bootrom);            // also resets the chip, which erases the flash
  mcu.flash.fill(0xff);
  for (let off = 0; off + 512 <= uf2.length; off += 512) {
    const b = uf2.subarray(off, off + 512);
    mcu.flash.set(b.subarray(32, 32 + b.readUInt32LE(16)), b.readUInt32LE(12) - 0x10000000);
  }
  if (fsImage) mcu.flash.set(fsImage, FS_OFFSET);
  // The watchdog resets the chip: on a timeout (a hung loop) and for machine.reset().
  watchdog = mcu.peripherals[0x40058];
  const dog = watchdog;
  dog.onWatchdogTrigger = () => {
    pendingReset = dog.reason === 1 ? 'watchdog' : 'forced';
    // Stop it here: rp2040js would re-arm its alarm at the same instant, forever.
    dog.alarm.enable = false;
    dog.timer.enable = false;
  };
  if (kept) { dog.reason = kept.reason; dog.scratchData.set(kept.scratch); }

  cdcReady = false;
  toPico = [];
  cdc = new USBCDC(mcu.usbCtrl);
  cdc.onDeviceConnected = () => { cdcReady = true; world.cdcUp++; process.stderr.write('[rig] cdc up\n'); };
  cdc.onSerialData = (v) => process.stdout.write(Buffer.from(v));

  for (let i = 0; i < mcu.gpio.length; i++) {
    const index = i;
    mcu.gpio[index].addListener((st, old) => {
      if (index === PINS.step) {
        if (st === GPIOPinState.High && old !== GPIOPinState.High) onStepEdge();
      } else if (index === PINS.en) {
        // counted below from the level, whichever way EN got there
      } else if (st !== GPIOPinState.High && st !== GPIOPinState.Low) {
        applyPull(index);
      }
      if (index === PINS.en) {
        const on = enActive();
        if (on && !world.enWasOn) world.enActivations++;
        world.enWasOn = on;
      }
    });
    applyPull(index);
  }
  world.enWasOn = enActive();
  driveRotorSensor();
  // rp2040js runs the PIO on its own setTimeout loop, 1000 instructions a turn, ignoring
  // the clock divider and delays: its pulses would follow the host's wall clock, not the
  // chip's. Here the PIO runs in emulated time instead (see stepPio).
  for (const pio of mcu.pio) {
    pio.run = () => {};
    for (const m of pio.machines) m.rigNanos = null;
  }
  pioNanos = 0;
  mcu.core.PC = 0x10000000;
}

// Run every enabled PIO state machine up to emulated time `now`: one instruction per
// PIO clock (clk_sys / CLKDIV) plus its delay cycles, as the datasheet has it; pins are
// looked at after every instruction so no pulse is missed.
let pioNanos = 0;
function stepPio(now) {
  pioNanos = now;
  const clkSys = mcu.clkSys || 125e6;
  for (const pio of mcu.pio) {
    for (const m of pio.machines) {
      if (!m.enabled) { m.rigNanos = null; continue; }
      if (m.rigNanos === null) m.rigNanos = now;
      const div = (m.clockDivInt || 65536) + m.clockDivFrac / 256;
      const period = (1e9 * div) / clkSys;
      while (m.rigNanos <= now && m.enabled) {
        const before = m.cycles;
        m.step();
        pio.checkChangedPins();
        const spent = m.cycles - before;
        m.rigNanos += (spent > 0 ? spent : 1) * period;
      }
    }
  }
}

let pendingReset = null;

function pump() {
  if (!cdcReady) return;
  const fifo = cdc.txFIFO;
  let n = 0;
  while (toPico.length && !fifo.full) { cdc.sendSerialByte(toPico.shift()); n++; }
}

function run() {
  const clock = sim.clock;
  const core = mcu.core;
  const cycleNanos = 1e9 / 125000000;
  for (let i = 0; i < CHUNK && !pendingReset; i++) {
    if (clock.nanos - pioNanos >= PIO_SLICE_NS) stepPio(clock.nanos);
    if (world.glitch && clock.nanos >= world.glitch.until) endGlitch();
    if (world.hung) {
      // The CPU is stuck (a hung loop): no instruction runs, interrupts are not served,
      // but time and the peripherals (timers, the watchdog, the PIO) go on.
      const next = clock.nanosToNextAlarm;
      clock.tick(next > 0 && next < 1e6 ? next : 1e5);
      i += 50;
    } else if (core.waiting) {
      const next = clock.nanosToNextAlarm;
      clock.tick(next > 0 ? next : cycleNanos);
      i += next / cycleNanos;
    } else {
      clock.tick(core.executeInstruction() * cycleNanos);
    }
  }
  if (pendingReset) {
    const reason = pendingReset;
    pendingReset = null;
    boot(reason);
  }
  pump();
  world.bootNanos = sim.clock.nanos;
  setImmediate(run);
}

// --- host bytes in ------------------------------------------------------------
process.stdin.on('data', (chunk) => { for (const c of chunk) toPico.push(c); pump(); });
process.stdin.on('end', () => process.exit(0));
process.stdout.on('error', () => process.exit(0));

// --- the control channel: one JSON object per line in, one per line out --------
function setRotor(msg) {
  if (msg.enabled === false) {
    if (world.rotor) delete world.drives[world.rotor.pin];
    const pin = world.rotor && world.rotor.pin;
    world.rotor = null;
    if (pin != null) applyPull(pin);
    return;
  }
  const old = world.rotor || {};
  const r = {
    pin: msg.pin ?? old.pin ?? 6,
    steps_per_rev: msg.steps_per_rev ?? old.steps_per_rev ?? 3200,
    mark: msg.mark ?? old.mark ?? 0,
    width: msg.width ?? old.width ?? 1,
    active_low: msg.active_low ?? old.active_low ?? true,
    invert: msg.invert ?? old.invert ?? false,
    position: msg.position ?? old.position ?? 0,
    moved: 0,
    marksSeen: 0,
  };
  r.onMark = rotorSensorLevel(r) !== r.active_low;
  world.rotor = r;
  driveRotorSensor();
}

function snapshot() {
  const r = world.rotor;
  return {
    steps: world.steps,
    steps_fwd: world.stepsFwd,
    steps_back: world.stepsBack,
    steps_disabled: world.stepsDisabled,
    dir: isHigh(PINS.dir) ? 1 : 0,
    en: GPIOPinState[state(PINS.en)],
    en_active: enActive(),
    en_activations: world.enActivations,
    jammed: world.jammed,
    hung: world.hung,
    rotor: r && {
      position: r.position, steps_per_rev: r.steps_per_rev, mark: r.mark, width: r.width,
      on_mark: r.onMark, marks_seen: r.marksSeen, moved: r.moved, pin: r.pin,
      bumped: r.bumped || 0,
    },
    resets: world.resets.slice(),
    cdc_up: world.cdcUp,
    glitches: world.glitches,
    glitching: !!world.glitch,
    cdc_ready: cdcReady,
    to_pico: toPico.length,
    time_us: Math.floor((world.totalNanos + sim.clock.nanos) / 1000),
    boot_time_us: Math.floor(sim.clock.nanos / 1000),
    watchdog_enabled: !!watchdog.enable,
  };
}

function endGlitch() {
  const g = world.glitch;
  world.glitch = null;
  if (g.was === undefined) delete world.drives[g.pin]; else world.drives[g.pin] = g.was;
  applyPull(g.pin);
  driveRotorSensor();
}

function handle(msg) {
  switch (msg.op) {
    case 'state':
      break;
    case 'clear':
      world.steps = world.stepsFwd = world.stepsBack = world.stepsDisabled = 0;
      world.enActivations = 0;
      break;
    case 'set_pin':
      if (msg.value === null || msg.value === undefined) delete world.drives[msg.pin];
      else world.drives[msg.pin] = !!msg.value;
      applyPull(msg.pin);
      break;
    case 'pin':
      return Object.assign(snapshot(), {
        pin: msg.pin, level: mcu.gpio[msg.pin].inputValue ? 1 : 0,
        state: GPIOPinState[state(msg.pin)],
      });
    case 'rotor':
      setRotor(msg);
      break;
    case 'jam':
      world.jammed = msg.on !== false;
      break;
    case 'glitch': {
      // a spike on the wire: the input flips to its other level for `us` microseconds of
      // emulated time, then returns to whatever drives it (the rotor's sensor, a pull)
      if (world.glitch) endGlitch();
      const pin = msg.pin;
      const was = world.drives[pin];
      const level = mcu.gpio[pin].inputValue;
      world.glitch = { pin, was, until: sim.clock.nanos + msg.us * 1000 };
      world.drives[pin] = !level;
      applyPull(pin);
      world.glitches++;
      break;
    }
    case 'bump': {
      // the floor is knocked on (or back) behind the motor's back, a step at a time so the
      // home sensor sees whatever passes it
      const r = world.rotor;
      if (!r) throw new Error('no rotor to bump');
      const one = msg.steps > 0 ? 1 : -1;
      for (let i = 0; i < Math.abs(msg.steps); i++) {
        r.position += one;
        const before = r.onMark;
        driveRotorSensor();
        r.onMark = rotorSensorLevel(r) !== r.active_low;
        if (r.onMark && !before) r.marksSeen++;
      }
      r.bumped = (r.bumped || 0) + msg.steps;
      break;
    }
    case 'hang':
      world.hung = msg.on !== false;
      break;
    case 'reset':
      pendingReset = 'host';
      break;
    default:
      throw new Error(`unknown op ${msg.op}`);
  }
  return snapshot();
}

const ctl = new net.Socket({ fd: Number(ctlFd || 3), readable: true, writable: true });
let ctlBuf = '';
ctl.on('data', (chunk) => {
  ctlBuf += chunk.toString();
  let nl;
  while ((nl = ctlBuf.indexOf('\n')) >= 0) {
    const line = ctlBuf.slice(0, nl);
    ctlBuf = ctlBuf.slice(nl + 1);
    if (!line.trim()) continue;
    let reply;
    let id = null;
    try {
      const msg = JSON.parse(line);
      id = msg.id ?? null;
      reply = Object.assign({ id, ok: true }, handle(msg));
    } catch (err) {
      reply = { id, ok: false, error: String(err && err.message || err) };
    }
    ctl.write(JSON.stringify(reply) + '\n');
  }
});
ctl.on('end', () => process.exit(0));
ctl.on('error', () => process.exit(0));

boot(null);
setImmediate(run);
