// The chat pane: a log of chat, game events, errors and the server's text answers, and an input
// line with history (up/down) and completion of command names (Tab).

import { own } from "./dom.js";
import { language, t } from "./i18n.js";

const MAX_LINES = 600;
// how long after the reader's wheel, touch, press or key a scroll of the log counts as theirs
const READER_MS = 1000;
// the keys that scroll the log while it (or a line in it) has the focus
const SCROLL_KEYS = new Set(["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "]);
const HISTORY_KEY = "cafe.history";
// the log, kept for this tab so that a reload shows it again
const LOG_KEY = "cafe.log";

/** Whether a typed line gives a password: `/register`, `/password` or `/unregister` with words after. */
export function holdsPassword(text) {
  return /^\s*\/(register|password|unregister)\s+\S/i.test(text);
}
const KEPT_LINES = 200;

// functions, so that each call reads the language chosen now
const REASONS = {
  deck: () => t("the deck is down to 4 cards"),
  chairs: () => t("every chair is taken"),
  bar: () => t("the bar is full"),
  last_player: () => t("only one player is left"),
  empty_hand: () => t("a player has no cards left"),
};

export function reasonText(reason) {
  return Object.hasOwn(REASONS, reason) ? REASONS[reason]() : String(reason);
}

function signed(points) {
  return points > 0 ? `+${points}` : points < 0 ? `−${-points}` : "0";
}

/** The line for a played move, as the line clients show it: "ann seats FRf at FR1s: +4". */
export function playedLine(msg) {
  const by = {};
  for (const e of msg.events ?? []) (by[e.type] ??= []).push(e);
  const who = msg.player;
  const seats = by.seat ?? [];
  const placed = seats.map((e) => t("{card} at {chair}", { card: e.card, chair: e.chair })).join(", ");
  const points = signed(msg.points);
  let line;
  if (by.stammtisch) {
    const table = by.stammtisch[0].table;
    line =
      by.stammtisch[0].gender === "m"
        ? t("{who} seats {placed} (Stammtisch at {table})", { who, placed, table })
        : t("{who} seats {placed} (Kaffeekränzchen at {table})", { who, placed, table });
    line += `: ${points}`;
  } else if (seats.length) {
    line = t("{who} seats {placed}", { who, placed }) + `: ${points}`;
  } else if (by.bar) {
    const bar = by.bar[0];
    line = t("{who} sends {card} to the bar (place {place})", { who, card: bar.card, place: bar.place });
    line += by.eliminated ? t(" and is eliminated") : `: ${points}`;
  } else if (by.swap) {
    line = t("{who} swaps {card} for the joker at {chair}", { who, card: by.swap[0].card, chair: by.swap[0].chair });
  } else if (by.left) {
    // the server took an absent player out of the game: no move was played for them
    return t("{who} leaves the game", { who });
  } else {
    line = t("{who} plays {move}", { who, move: msg.move }) + `: ${points}`;
  }
  if (by.hand_limit) line += t("; hand limit now {limit}", { limit: by.hand_limit[by.hand_limit.length - 1].hand_limit });
  if (msg.clock) line += t(" (the clock ran out)");
  else if (msg.auto) line += t(" (played for an absent player)");
  return line;
}

/** The winners' phrase of a result: "ann wins", "ann and bob share first place". */
export function winners(result) {
  const first = result.ranking.filter((n) => result.places[n] === 1);
  if (first.length === 1) return t("{name} wins", { name: first[0] });
  return t("{names} and {last} share first place", { names: first.slice(0, -1).join(", "), last: first[first.length - 1] });
}

/** The line for a game's start, with the players and who begins. */
export function startLine(msg) {
  const line = t("The game starts: {players}. {first} begins.", { players: msg.players.join(", "), first: msg.start_player });
  if (!msg.practice) return line;
  if (msg.seed_drawn) return line + " " + t("A practice game: the server chose the seed.");
  return line + " " + t("A practice game: the room chose the seed.");
}

/** The line for a game's end: why, who won, and every score. */
export function overLine(msg) {
  // a rated game's line says each rating before and after: "ann 120 (1000 → 1012)"
  const rating = (n) => {
    const r = own(msg.ratings, n);
    return r ? ` (${r.before} → ${r.after}${r.provisional ? "?" : ""})` : "";
  };
  const scores = msg.ranking.map((n) => `${n} ${msg.final_scores[n]}${rating(n)}`).join(", ");
  return t("Game over: {reason}. {winners}. {scores}", { reason: reasonText(msg.reason), winners: winners(msg), scores });
}

/** A vote as it stands, with "/accept or /refuse" for `me` when it waits for my answer. */
export function voteLine(vote, me) {
  const params = { by: vote.by, name: vote.name, seat: vote.seat };
  const what = vote.kind === "join"
    ? t("{by} asks to take over seat {seat} ({name})", params)
    : t("{by} asks to take {name} (seat {seat}) out of the game", params);
  const ended = { passed: t("passed"), failed: t("failed"), expired: t("expired"), cancelled: t("cancelled") };
  if (vote.state !== "open") return t("Vote {state}: {what}.", { state: ended[vote.state] ?? vote.state, what });
  const mine = vote.voters.includes(me) && !vote.yes.includes(me) && !vote.no.includes(me);
  const tally = t("Vote: {what} ({yes} yes, {no} no).", { what, yes: vote.yes.length, no: vote.no.length });
  const answer = t("/accept or /refuse");
  return mine ? `${tally} ${answer}` : tally;
}

/** A room's state ("waiting", "playing", "over") in the page's language. */
export function stateWord(state) {
  const words = { waiting: t("waiting"), playing: t("playing"), over: t("over") };
  return words[state] ?? state;
}

/** The answer to /rooms: a line a room, with its state and who sits. */
export function roomsText(rooms) {
  if (!rooms.length) return t("No rooms yet: /join NAME makes one.");
  return rooms.map((r) => [r.name, stateWord(r.state), r.seats.map((s) => s.name).join(", ") || t("no seats taken")].join("  ")).join("\n");
}

/** Where someone of /who, /whereis or /friends is: their room, a private room (whose name the
 * reader may not know), or the lobby. */
function whereText(p) {
  return p.room ?? (p.private ? t("in a private room") : t("lobby"));
}

/** The answer to /who: a line a person, with where they are. */
export function whoText(people) {
  const bot = t("bot");
  return people.map((p) => [(p.role ? "@" : "") + p.name + (p.kind === "bot" ? ` (${bot})` : ""), whereText(p)].join("  ")).join("\n");
}

/** The answer to /friends: a line a friend, with where they are. */
export function friendsText(friends) {
  if (!friends.length) return t("No friends listed yet: /friend NAME adds one.");
  return friends.map((f) => [f.name, f.online ? whereText(f) : t("not connected")].join("  ")).join("\n");
}

/** Mark `line` with the time it was written (`at`, ms since 1970): shown small, in full on hover. */
function stamp(line, at) {
  if (typeof at !== "number") return;
  const when = new Date(at);
  line.dataset.at = when.toLocaleTimeString(language(), { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  line.dataset.when = when.toLocaleString(language());
}

const PRESENCE = {
  entered: () => t("comes in"),
  left: () => t("leaves the room"),
  joined: () => t("takes a seat"),
  unseated: () => t("gives up the seat"),
  back: () => t("is back"),
  away: () => t("is away"),
  replaced_by_bot: () => t("is played by a bot"),
};

export class ChatPane {
  /**
   * `log` is the element lines go to, `input` the text field, `hint` a line under it that shows
   * the usage of the command being typed; `commands` is commands.json; `onSubmit(text)` sends.
   */
  constructor({ log, input, hint, commands, onSubmit }) {
    this.log = log;
    this.input = input;
    this.hint = hint;
    this.onSubmit = onSubmit;
    this.commands = commands.commands;
    this.names = [...this.commands.map((c) => c.name), ...Object.keys(commands.aliases)].sort();
    this.aliases = commands.aliases;
    this.history = this._loadHistory();
    this.position = this.history.length;
    this.draft = "";
    this.cycle = null;
    // the log follows new lines unless the reader scrolled up; then a marker offers the new ones
    this.following = true;
    this.marker = this._marker();
    // A scroll is the reader's only while they hold a press on the log (its scrollbar too), or
    // just after they turned a wheel or touched it, pressed a key that scrolls it, or moved the
    // focus into it. Every other scroll comes of the layout (the log shrank or grew, a line above
    // changed, the pane's own scroll to a new line) and says nothing of the reader: while they
    // follow, the log goes back to its foot.
    this.readerUntil = 0;
    this.pressed = false;
    const reader = () => {
      this.readerUntil = performance.now() + READER_MS;
    };
    for (const type of ["wheel", "touchmove", "focusin"]) log.addEventListener(type, reader, { passive: true });
    log.addEventListener("keydown", (e) => {
      if (SCROLL_KEYS.has(e.key)) reader();
    });
    log.addEventListener("pointerdown", () => {
      this.pressed = true;
    });
    for (const type of ["pointerup", "pointercancel"]) {
      window.addEventListener(type, () => {
        if (this.pressed) reader();
        this.pressed = false;
      });
    }
    log.addEventListener("scroll", () => {
      if (!this.pressed && performance.now() > this.readerUntil) {
        if (this.following) this._follow();
        return;
      }
      this.following = this._atBottom();
      if (this.following) this.marker.hidden = true;
    });
    // a log that grows or shrinks (the hand appears, the window changes) keeps its last line in view
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => this._follow()).observe(log);
    this.kept = this._loadLog();
    for (const line of this.kept) this._show(line);
    if (this.kept.length) this._show({ kind: "system earlier", text: t("— before the reload —") }, false);
    input.addEventListener("keydown", (e) => this._key(e));
    input.addEventListener("input", () => {
      this.cycle = null;
      this._showHint();
    });
  }

  /** Forget what was typed and read on this browser (on logging out), the lines shown too. */
  forget() {
    this.history = [];
    this.position = 0;
    this.kept = [];
    this.log.replaceChildren();
    for (const key of [HISTORY_KEY, LOG_KEY]) {
      try {
        localStorage.removeItem(key);
        sessionStorage.removeItem(key);
      } catch {
        // storage refused: nothing was kept there
      }
    }
  }

  _loadLog() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(LOG_KEY) ?? "[]");
      return Array.isArray(saved) ? saved.filter((l) => l && typeof l.text === "string").slice(-KEPT_LINES) : [];
    } catch {
      return [];
    }
  }

  _keep(line) {
    this.kept.push(line);
    if (this.kept.length > KEPT_LINES) this.kept.splice(0, this.kept.length - KEPT_LINES);
    try {
      sessionStorage.setItem(LOG_KEY, JSON.stringify(this.kept));
    } catch {
      // storage refused or full: the log lasts for the page only
    }
  }

  _show({ kind, text, who = null, pre = false, name = null, room = null, at = null, seat = false }) {
    const line = document.createElement(pre ? "pre" : "div");
    line.className = `line ${kind}`;
    stamp(line, at);
    // a block that scrolls sideways is reached by keyboard too
    if (pre) line.tabIndex = 0;
    if (who !== null) {
      // a person's name opens their profile when chosen
      const label = document.createElement(name ? "button" : "span");
      label.className = name ? "who name-link" : "who";
      if (name) {
        label.type = "button";
        label.dataset.profile = name;
      }
      label.textContent = who;
      line.append(label, document.createTextNode(" "));
    }
    line.append(document.createTextNode(text));
    if (room) {
      const link = document.createElement("a");
      link.href = `#${encodeURIComponent(room)}`;
      link.dataset.room = room;
      link.className = "room-link";
      link.textContent = room;
      line.append(document.createTextNode(" "), link);
      if (seat) {
        // an invitation offers the room's free seat, not only a place to watch
        const join = document.createElement("button");
        join.type = "button";
        join.className = "small join-link";
        join.dataset.join = room;
        join.textContent = t("Take a seat in {room}", { room });
        line.append(document.createTextNode(" "), join);
      }
    }
    this._append(line);
    return line;
  }

  _loadHistory() {
    try {
      const saved = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? "[]");
      return Array.isArray(saved) ? saved.filter((s) => typeof s === "string").slice(-100) : [];
    } catch {
      return [];
    }
  }

  _key(e) {
    if (e.key === "Enter") {
      e.preventDefault();
      const text = this.input.value;
      if (!text.trim()) return;
      // (a line that holds a password is sent, and kept nowhere)
      if (!holdsPassword(text) && this.history[this.history.length - 1] !== text) this.history.push(text);
      this.history = this.history.slice(-100);
      try {
        localStorage.setItem(HISTORY_KEY, JSON.stringify(this.history));
      } catch {
        // private windows may refuse storage; history then lasts for the page only
      }
      this.position = this.history.length;
      this.input.value = "";
      this._showHint();
      this.onSubmit(text);
    } else if (e.key === "ArrowUp") {
      if (this.position === 0) return;
      e.preventDefault();
      if (this.position === this.history.length) this.draft = this.input.value;
      this.position -= 1;
      this._set(this.history[this.position]);
    } else if (e.key === "ArrowDown") {
      if (this.position >= this.history.length) return;
      e.preventDefault();
      this.position += 1;
      this._set(this.position === this.history.length ? this.draft : this.history[this.position]);
    } else if (e.key === "Tab" && !e.shiftKey && this.input.value.startsWith("/") && !/\s/.test(this.input.value)) {
      e.preventDefault();
      this._complete();
    } else if (e.key === "Escape") {
      this.cycle = null;
    }
  }

  _set(text) {
    this.input.value = text;
    this.input.setSelectionRange(text.length, text.length);
    this._showHint();
  }

  /** Complete a command name: the one that fits, the common prefix, then each in turn. */
  _complete() {
    if (this.cycle) {
      this.cycle.index = (this.cycle.index + 1) % this.cycle.names.length;
      this._set(`/${this.cycle.names[this.cycle.index]}`);
      return;
    }
    const typed = this.input.value.slice(1).toLowerCase();
    const fits = this.names.filter((n) => n.startsWith(typed));
    if (fits.length === 0) return;
    if (fits.length === 1) {
      this._set(`/${fits[0]} `);
      return;
    }
    let prefix = fits[0];
    for (const n of fits) while (!n.startsWith(prefix)) prefix = prefix.slice(0, -1);
    if (prefix.length > typed.length) {
      this._set(`/${prefix}`);
    } else {
      this.cycle = { names: fits, index: 0 };
      this._set(`/${fits[0]}`);
    }
    this.hint.textContent = fits.map((n) => `/${n}`).join("  ");
  }

  _showHint() {
    const m = /^\/(\S*)/.exec(this.input.value);
    if (!m) {
      this.hint.textContent = "";
      return;
    }
    const typed = m[1].toLowerCase();
    const name = this.aliases[typed] ?? typed;
    const exact = this.commands.find((c) => c.name === name);
    if (exact) {
      const usage = exact.usages?.[language()] ?? exact.usage;
      this.hint.textContent = `${usage} — ${exact.summaries?.[language()] ?? exact.summary}`;
      return;
    }
    const fits = this.names.filter((n) => n.startsWith(typed));
    this.hint.textContent = fits.length ? fits.map((n) => `/${n}`).join("  ") : t("no such command — /help lists them");
  }

  /**
   * Add one line of `kind` (chat, event, error, notice, system, mine) to the log; `who` leads it,
   * a button to the profile of `name` when given; `room` ends it with a link to that room.
   */
  add(kind, text, who = null, { name = null, room = null, seat = false, at = Date.now() } = {}) {
    this._keep({ kind, text, who, name, room, seat, at });
    return this._show({ kind, text, who, name, room, seat, at });
  }

  /** Whether the log kept for this tab holds a line of `kind` by `who` saying `text`. */
  shows(kind, who, text) {
    return this.kept.some((l) => l.kind === kind && l.who === who && l.text === text);
  }

  /** Add a preformatted block (the server's text answers: /help, /board, /hand, /score). */
  addText(text, kind = "text") {
    const at = Date.now();
    this._keep({ kind, text, pre: true, at });
    return this._show({ kind, text, pre: true, at });
  }

  /** The answer to /history, each game's id a link to its replay. */
  addGames(text) {
    this._keep({ kind: "text history", text, pre: true });
    const pre = document.createElement("pre");
    pre.className = "line text history";
    pre.tabIndex = 0;
    stamp(pre, Date.now());
    for (const [i, row] of text.split("\n").entries()) {
      if (i) pre.append("\n");
      const m = /^(\S+ \S+ {2})([0-9a-f]+)( {2}.*)$/.exec(row);
      if (!m) {
        pre.append(row);
        continue;
      }
      const link = document.createElement("a");
      link.href = `/games/${m[2]}`;
      link.target = "_blank";
      link.rel = "noopener";
      link.textContent = m[2];
      pre.append(m[1], link, m[3]);
    }
    this._append(pre);
  }

  _append(el) {
    this.log.append(el);
    while (this.log.childElementCount > MAX_LINES) this.log.firstElementChild.remove();
    if (this.following) this._follow();
    else this.marker.hidden = false;
  }

  _atBottom() {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
  }

  /** Keep the newest line in view while the reader follows the log. */
  _follow() {
    if (!this.following) return;
    const log = this.log;
    if (log.scrollTop < log.scrollHeight - log.clientHeight - 1) log.scrollTop = log.scrollHeight;
    this.marker.hidden = true;
  }

  /** The "new messages" marker at the foot of the log: it jumps down to them. */
  _marker() {
    const button = document.createElement("button");
    button.type = "button";
    button.id = "new-lines";
    button.className = "small new-lines";
    button.hidden = true;
    button.textContent = t("New messages ↓");
    button.addEventListener("click", () => {
      this.following = true;
      this._follow();
      this.input.focus();
    });
    this.log.after(button);
    return button;
  }

  /** Write again what the pane wrote in the page's words (the language changed). */
  relabel() {
    this.marker.textContent = t("New messages ↓");
  }

  /** The line for a presence event, or null for the events not worth a line. */
  static presenceLine(msg) {
    const what = Object.hasOwn(PRESENCE, msg.event) ? PRESENCE[msg.event]() : msg.event;
    const detail = msg.detail ? ` (${msg.detail})` : "";
    return `${msg.name} ${what}${detail}`;
  }
}
