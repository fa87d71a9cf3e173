// What keeps the page alive around the board: the moves in words, which of them to light up, the
// turn's countdown, the your-turn signal, and the chat kept across a reload.

import { guestWords } from "./flags.js";
import { language, t, tn } from "./i18n.js";
import { parseMove } from "./moves.js";

function sideWord(letter) {
  switch (letter) {
    case "n":
      return t("north");
    case "e":
      return t("east");
    case "s":
      return t("south");
    case "w":
      return t("west");
    default:
      return null;
  }
}

/** "FR1s" -> "FR1 south" ("FR1 Süd" in German). */
export function chairWords(chair) {
  const side = sideWord(chair.slice(-1).toLowerCase());
  return side ? `${chair.slice(0, -1)} ${side}` : chair;
}

function signed(points) {
  return points > 0 ? `+${points}` : points < 0 ? `−${-points}` : "0";
}

/** A move in words: "France woman at FR1 south, Spain man at ES1 east". */
export function moveWords(move, nations) {
  if (move.startsWith("leave ")) return t("leaves the game");
  const parsed = parseMove(move);
  const guest = (p) => guestWords(p.nation ? `${p.card}=${p.nation}` : p.card, nations);
  if (parsed.kind === "bar") return t("{guest} to the bar", { guest: guest(parsed.placements[0]) });
  if (parsed.kind === "swap") {
    const p = parsed.placements[0];
    return t("{guest} for the joker at {chair}", { guest: guest(p), chair: chairWords(p.target) });
  }
  return parsed.placements.map((p) => t("{card} at {chair}", { card: guest(p), chair: chairWords(p.target) })).join(", ");
}

/** One history line: "ann: France woman at FR1 south, Spain man at ES1 east: +8". */
export function historyLine(entry, nations) {
  const words = moveWords(entry.move, nations);
  return entry.move.startsWith("leave ") ? `${entry.player} ${words}` : `${entry.player}: ${words}: ${signed(entry.points)}`;
}

/**
 * The moves to light up on the board: every move since the reader's own last move (all of the
 * others' moves between two of your turns), or the last move for a spectator. Returns the history
 * indices, the chairs and the bar places ({indices: Set, chairs: Set, bar: Set}).
 */
export function recentMoves(game, you) {
  const found = { indices: new Set(), chairs: new Set(), bar: new Set() };
  const history = game?.history ?? [];
  if (!history.length) return found;
  const playing = game.players.some((p) => p.name === you);
  let start = history.length - 1;
  if (playing) {
    start = history.length;
    while (start > 0 && history[start - 1].player !== you) start -= 1;
    if (start === history.length) start = history.length - 1; // your own move was the last
  }
  let bars = 0;
  history.forEach((entry, i) => {
    if (entry.move.startsWith("leave ")) return;
    const move = parseMove(entry.move);
    if (i >= start) {
      found.indices.add(i);
      if (move.kind === "bar") found.bar.add(bars);
      else for (const p of move.placements) found.chairs.add(p.target);
    }
    if (move.kind === "bar") bars += 1;
  });
  return found;
}

/** The words that mark a move the server played for its player: by the clock, or by a bot. */
export function playedFor(how) {
  return how === "clock" ? t("the clock ran out") : t("played by a bot");
}

/**
 * The list of moves, newest at the bottom and in view; the recent ones marked, and those the
 * server played for their player (each entry's `auto`, "clock" or "bot", as the log marks it, so
 * that a page that came later or reloaded marks them too). The items shown
 * stay while the history only grows: a move adds its own item, where making the whole list again
 * made one item for every move of the game at every move.
 */
export function renderHistory(box, game, you, nations) {
  const history = game?.history ?? [];
  box.hidden = !game;
  const list = box.querySelector("ol");
  const lang = language();
  const shown = [...list.querySelectorAll(":scope > li:not(.none)")];
  const same = (item, i) => item.dataset.move === history[i].move && (item.dataset.auto ?? "") === (history[i].auto ?? "");
  const kept = list.dataset.language === lang && shown.length <= history.length && shown.every(same);
  const from = kept ? shown.length : 0;
  const added = history.slice(from).map((entry) => historyItem(entry, nations));
  if (!kept) list.replaceChildren();
  else if (added.length) list.querySelector(":scope > li.none")?.remove();
  list.append(...added);
  list.dataset.language = lang;
  const recent = recentMoves(game, you).indices;
  [...list.children].forEach((item, i) => item.classList.toggle("recent", recent.has(i)));
  if (!history.length && !list.children.length) {
    const item = document.createElement("li");
    item.className = "none";
    item.textContent = t("No moves yet.");
    list.append(item);
  }
  // the newest in view once the page is next drawn: its height read now would lay the page out in
  // the middle of a render, and once more after it
  if (!kept || added.length) requestAnimationFrame(() => (list.scrollTop = list.scrollHeight));
}

/** The item of the move `entry` of the history. */
function historyItem(entry, nations) {
  const item = document.createElement("li");
  item.textContent = historyLine(entry, nations);
  item.title = entry.move;
  item.dataset.move = entry.move;
  const how = entry.auto;
  if (how) {
    item.dataset.auto = how;
    item.append(" ", Object.assign(document.createElement("span"), { className: "badge auto", textContent: playedFor(how) }));
  }
  return item;
}

/** The turn's countdown in the header, from the view's deadline (Unix seconds). */
export class Countdown {
  constructor(el) {
    this.el = el;
    this.deadline = null;
    this.timer = null;
  }

  set(deadline, whose) {
    this.deadline = typeof deadline === "number" ? deadline : null;
    this.whose = whose;
    clearInterval(this.timer);
    this.timer = null;
    if (this.deadline !== null) this.timer = setInterval(() => this.tick(), 250);
    this.tick();
  }

  tick() {
    const el = this.el;
    if (this.deadline === null) {
      el.hidden = true;
      el.textContent = "";
      return;
    }
    const left = Math.max(0, Math.ceil(this.deadline - Date.now() / 1000));
    el.hidden = false;
    el.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    el.dataset.left = String(left);
    el.classList.toggle("low", left <= 10);
    el.setAttribute("aria-label", tn("{who}: {n} second left", "{who}: {n} seconds left", left, { who: this.whose }));
  }
}

/** The your-turn signal: a short sound and a browser notification, each off until switched on. */
export class TurnSignal {
  constructor({ sound, notify, storage }) {
    this.sound = sound;
    this.notify = notify;
    this.storage = storage;
    this.count = 0;
    sound.checked = storage.get("cafe.sound") === "on";
    notify.checked = storage.get("cafe.notify") === "on" && typeof Notification !== "undefined" && Notification.permission === "granted";
    sound.addEventListener("change", () => storage.set("cafe.sound", sound.checked ? "on" : null));
    notify.addEventListener("change", async () => {
      if (notify.checked && typeof Notification !== "undefined" && Notification.permission !== "granted") {
        const answer = await Notification.requestPermission().catch(() => "denied");
        if (answer !== "granted") notify.checked = false;
      }
      storage.set("cafe.notify", notify.checked ? "on" : null);
    });
  }

  /** Your turn has come: signal it the ways switched on. */
  yourTurn() {
    if (this.sound.checked) {
      this.count += 1;
      this._beep();
    }
    if (this.notify.checked && document.hidden && typeof Notification !== "undefined" && Notification.permission === "granted") {
      this.count += 1;
      new Notification("Café International", { body: t("Your turn."), tag: "cafe-turn" });
    }
    document.body.dataset.signals = String(this.count);
  }

  _beep() {
    try {
      const Context = window.AudioContext ?? window.webkitAudioContext;
      this.audio ??= new Context();
      const osc = this.audio.createOscillator();
      const gain = this.audio.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.15, this.audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, this.audio.currentTime + 0.4);
      osc.connect(gain).connect(this.audio.destination);
      osc.start();
      osc.stop(this.audio.currentTime + 0.4);
    } catch {
      // no sound on this browser: the title mark still says it
    }
  }
}
