// The panels beside the café: the players (scores, hand sizes, whose turn), and the panel over
// the board for the lobby, a room waiting for its game, and the final ranking.

import { reasonText, stateWord, winners } from "./chat.js";
import { el, own } from "./dom.js";
import { language, t, tn } from "./i18n.js";
import { nameButton } from "./profile.js";

function badges(view, name, botPlays = new Set()) {
  const seat = view.seats.find((s) => s.name === name);
  const found = [];
  if (name === view.you) found.push(["you", t("you")]);
  if (seat?.kind === "bot") found.push(["bot", t("bot")]);
  // a seat a bot plays now (its player voted out, gone past the window, left) is not "away"
  if (seat && !seat.connected && seat.kind !== "bot") {
    found.push(botPlays.has(name) ? ["stand-in", t("a bot plays")] : view.spectators.includes(name) ? ["watching", t("watching")] : ["away", t("away")]);
  }
  return found.map(([cls, text]) => el("span", { class: `badge ${cls}` }, text));
}

/** A person's name as a button to their profile; a bot's as text. */
function personName(view, name) {
  const seat = view.seats.find((s) => s.name === name);
  return seat?.kind === "bot" ? name : nameButton(name);
}

/** The room's host: the first seated person connected, while the option `host` is on; else null. */
export function hostOf(view) {
  if (view.options?.host === false) return null;
  return view.seats.find((s) => s.kind === "person" && s.connected)?.name ?? null;
}

/** What leaving does to the reader's seat, or null when it does nothing to one (nothing to ask then). */
export function leavingWords(view) {
  const g = view?.game;
  if (!view || view.seat === null || !g || g.over || !g.players.some((p) => p.name === view.you && !p.eliminated)) return null;
  if (view.options?.absent === "drop") {
    return t(
      "The game is running. If you leave now, you leave the game for good: your turns are skipped and you rank below the players still in it.",
    );
  }
  return t(
    "The game is running. If you leave now, a bot plays your seat from your next turn. Come back to room {room} to take your seat back.",
    { room: view.room },
  );
}

/** Whether the reader may set the room's options, seat bots and start: the host, or any player without one. */
export function canManage(view) {
  if (view.seat === null || view.seat === undefined) return false;
  const host = hostOf(view);
  return host === null || host === view.you;
}

function ordinal(n) {
  if (n === 1) return t("{n}st", { n });
  if (n === 2) return t("{n}nd", { n });
  if (n === 3) return t("{n}rd", { n });
  return t("{n}th", { n });
}

function cardBacks(count) {
  const box = el("span", { class: "backs", "aria-hidden": "true" });
  for (let i = 0; i < Math.min(count, 7); i += 1) box.append(el("span", { class: "back" }));
  return box;
}

/**
 * The room's game as it counts: "rated", "practice" (the room chose the seed) or "casual", as the
 * server's view says (`rated`: before the start, were it to start now; then whether it is or was).
 */
export function roomKind(view) {
  if (!view) return null;
  // (a game's own word: a practice game's seed is revealed at its end, and the options then no
  // longer say it was chosen)
  if (view.game?.practice || view.options?.seed === "set") return "practice";
  return view.rated ? "rated" : "casual";
}

/** The badge that says how the room's game counts: before the start, during and after it. */
export function kindBadge(kind) {
  const words = {
    rated: t("rated game"),
    practice: t("practice game (seed chosen)"),
    casual: t("casual game (not rated)"),
  };
  return kind ? el("span", { class: `badge kind ${kind}`, "data-kind": kind }, words[kind]) : null;
}

/** The players of the room: seats before the game, then scores, hand sizes and whose turn it is. */
export function renderPlayers(box, view, botPlays = new Set()) {
  box.replaceChildren();
  if (!view) return;
  const game = view.game;
  const list = el("ol", { class: "player-list" });
  if (!game) {
    for (const seat of view.seats) {
      list.append(el("li", { class: "player", "data-player": seat.name }, el("span", { class: "name", title: seat.name }, personName(view, seat.name)), ...badges(view, seat.name, botPlays)));
    }
    if (!view.seats.length) list.append(el("li", { class: "player empty" }, t("No seats taken yet.")));
  } else {
    const last = game.last_move;
    const result = game.result;
    for (const p of game.players) {
      const turn = !game.over && p.name === game.to_move;
      const item = el(
        "li",
        {
          class: `player${turn ? " to-move" : ""}${p.eliminated ? " out" : ""}${p.name === view.you ? " me" : ""}`,
          "data-player": p.name,
          "aria-current": turn ? "true" : null,
        },
        el("span", { class: "marker", "aria-hidden": "true" }, turn ? "▶" : ""),
        el("span", { class: "name", title: p.name }, personName(view, p.name)),
        ...badges(view, p.name, botPlays),
        p.eliminated ? el("span", { class: "badge out" }, t("out")) : null,
        el("span", { class: "spacer" }),
        el(
          "span",
          { class: "hand-size", title: tn("{n} card in hand, limit {limit}", "{n} cards in hand, limit {limit}", p.hand_size, { limit: p.hand_limit }) },
          cardBacks(p.hand_size),
          // said as cards, so that the count never reads as a second score beside the score
          tn("{n} card", "{n} cards", p.hand_size),
        ),
        result ? el("span", { class: "place", title: t("place") }, `${ordinal(result.places[p.name])}`) : null,
        el(
          "span",
          { class: "score", title: result ? t("final score, after the cards left in hand") : t("score") },
          String(result ? result.final_scores[p.name] : p.score),
        ),
      );
      if (last && last.player === p.name && !result) {
        item.append(el("span", { class: "last-points" }, `${last.points > 0 ? "+" : ""}${last.points}`));
      }
      list.append(item);
    }
  }
  box.append(list);
  const facts = [];
  if (game) facts.push(t("deck {n}", { n: game.deck_size }), t("bar {n}/20", { n: game.bar.length }));
  if (game?.last_move) {
    const { player, move } = game.last_move;
    facts.push(move.startsWith("leave ") ? t("last: {name} left the game", { name: player }) : t("last: {name} {move}", { name: player, move }));
  }
  if (game && !game.over && view.options?.clock) facts.push(t("clock {seconds}s a turn", { seconds: view.options.clock }));
  if (view.spectators.length) facts.push(t("watching: {names}", { names: view.spectators.join(", ") }));
  if (facts.length) box.append(el("p", { class: "facts" }, facts.join(" · ")));
}

function lobbyPanel({ name, rooms, people, actions }) {
  const input = el("input", { id: "room-input", value: "cafe", maxlength: 24, "aria-label": t("Room name"), autocomplete: "off", "data-focus": "room", "data-autofocus": true, "data-keep": true });
  const enter = (join) => () => {
    const room = input.value.trim();
    if (room) actions.enter(room, join);
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") enter(true)();
  });
  const list = el("ul", { class: "rooms" });
  for (const room of rooms) {
    const who = room.seats.map((s) => s.name).join(", ") || t("no seats taken");
    list.append(
      el(
        "li",
        {},
        el("span", { class: "room" }, room.name),
        el("span", { class: `state ${room.state}` }, stateWord(room.state)),
        el("span", { class: "who", title: who }, who), // (cut short on a phone: the whole on hover)
        room.state === "waiting" && room.seats.length < 4
          ? el("button", { type: "button", class: "small", "data-focus": `join:${room.name}`, "aria-label": t("Join {room}", { room: room.name }), onclick: () => actions.enter(room.name, true) }, t("Join"))
          : null,
        el("button", { type: "button", class: "small", "data-focus": `watch:${room.name}`, "aria-label": t("Watch {room}", { room: room.name }), onclick: () => actions.enter(room.name, false) }, t("Watch")),
      ),
    );
  }
  return el(
    "div",
    { class: "panel lobby" },
    el("h2", {}, t("Welcome, {name}!", { name })),
    el("p", {}, t("Take a seat in a room, add a bot or wait for friends, and start.")),
    el(
      "div",
      { class: "row" },
      input,
      el("button", { type: "button", class: "primary", "data-focus": "seat", onclick: enter(true) }, t("Take a seat")),
      el("button", { type: "button", "data-focus": "watch", onclick: enter(false) }, t("Watch")),
    ),
    el("h3", {}, t("Rooms")),
    rooms.length ? list : el("p", { class: "small-print" }, t("No rooms open yet: take a seat to open one.")),
    el("h3", {}, t("Online")),
    el("p", { class: "online" }, ...onlineList(people)),
    el("p", { class: "small-print" }, el("a", { href: `/rules?lang=${language()}`, target: "_blank", rel: "noopener" }, t("How to play: the rules")), "."),
    el("p", { class: "small-print" }, t("Also playable from a terminal: telnet or nc to the line port, then /help.")),
  );
}

function onlineList(people) {
  if (!people.length) return ["—"];
  const parts = [];
  people.forEach((p, i) => {
    if (i) parts.push(", ");
    if (p.role) parts.push(el("span", { class: "staff-mark", title: p.role === "admin" ? t("admin") : t("moderator") }, "@"));
    parts.push(p.kind === "bot" ? t("{name} (bot)", { name: p.name }) : nameButton(p.name));
    if (p.room) parts.push(" ", t("in {room}", { room: p.room }));
    else if (p.private) parts.push(" ", t("in a private room"));
  });
  return parts;
}

function waitingPanel({ view, actions }) {
  const seated = view.seat !== null;
  const manage = canManage(view);
  const host = hostOf(view);
  const strategy = el(
    "select",
    { "aria-label": t("Bot strategy"), "data-focus": "strategy" },
    el("option", { value: "greedy" }, t("greedy bot")),
    el("option", { value: "random" }, t("random bot")),
    el("option", { value: "strong" }, t("strong bot")),
  );
  const full = view.seats.length >= 4;
  const seats = el("ol", { class: "seats" });
  for (let i = 0; i < 4; i += 1) {
    const seat = view.seats[i];
    const removeBot = seat?.kind === "bot" && manage
      ? el("button", { type: "button", class: "small", "data-focus": `remove-bot:${seat.name}`, "aria-label": t("Remove {name}", { name: seat.name }), onclick: () => actions.removeBot(seat.name) }, t("Remove"))
      : null;
    const who = seat ? (seat.kind === "bot" ? t("{name} (bot)", { name: seat.name }) : nameButton(seat.name)) : t("free seat");
    const mark = seat && seat.name === host ? el("span", { class: "badge host" }, t("host")) : null;
    seats.append(el("li", { class: seat ? "taken" : "free" }, who, mark ? " " : null, mark, removeBot ? " " : null, removeBot));
  }
  const options = view.options ?? {};
  return el(
    "div",
    { class: "panel waiting" },
    el("h2", {}, t("Room {room}", { room: view.room })),
    el("p", {}, view.game ? t("The last game is over.") : t("Waiting for 2 to 4 players."), " ", kindBadge(roomKind(view))),
    seats,
    el(
      "div",
      { class: "row" },
      seated ? null : el("button", { type: "button", class: "primary", disabled: full, "data-focus": "join", "data-autofocus": !full, onclick: () => actions.join() }, t("Take a seat")),
      manage ? el("span", { class: "group" }, strategy, el("button", { type: "button", disabled: full, "data-focus": "add-bot", "data-autofocus": seated && view.seats.length < 2, onclick: () => actions.addBot(strategy.value) }, t("Add bot"))) : null,
      manage ? el("button", { type: "button", class: "primary", disabled: view.seats.length < 2, "data-focus": "start", "data-autofocus": view.seats.length >= 2, onclick: () => actions.start() }, t("Start")) : null,
      seated && !view.game ? el("button", { type: "button", class: "small", "data-focus": "stand", onclick: () => actions.stand() }, t("Give up seat")) : null,
    ),
    seated && !manage ? el("p", { class: "host-note" }, t("{host} is the host: the host seats bots, sets the options and starts.", { host })) : null,
    optionControls(options, manage, host, actions),
  );
}

const CLOCKS = [null, 15, 30, 60, 120, 300];

/** The room's options as controls; the host (or, without one, a seated player) may change them. */
function optionControls(options, manage, host, actions) {
  const disabled = !manage;
  const stammtisch = el("input", { type: "checkbox", id: "opt-stammtisch", "data-focus": "opt-stammtisch", checked: !!options.stammtisch, disabled });
  stammtisch.addEventListener("change", () => actions.option("stammtisch", stammtisch.checked));
  const clocks = CLOCKS.includes(options.clock ?? null) ? CLOCKS : [...CLOCKS, options.clock];
  const clock = el("select", { id: "opt-clock", "data-focus": "opt-clock", disabled }, ...clocks.map((c) => el("option", { value: c ?? "", selected: (options.clock ?? null) === c }, c ? t("{seconds} s a turn", { seconds: c }) : t("no clock"))));
  clock.addEventListener("change", () => actions.option("clock", clock.value ? Number(clock.value) : null));
  const absent = el(
    "select",
    { id: "opt-absent", "data-focus": "opt-absent", disabled },
    el("option", { value: "bot", selected: options.absent !== "drop" }, t("a bot plays for them")),
    el("option", { value: "drop", selected: options.absent === "drop" }, t("they leave the game")),
  );
  absent.addEventListener("change", () => actions.option("absent", absent.value));
  // the room's seed as everyone sees it: a number chosen stays secret ("chosen"); emptied, it is random again
  const chosen = options.seed === "set" ? t("chosen (secret)") : options.seed ?? "";
  const seed = el("input", { type: "text", id: "opt-seed", "data-focus": "opt-seed", value: chosen, placeholder: t("random"), disabled, inputmode: "numeric", maxlength: 19, "aria-describedby": "opt-seed-note" });
  seed.addEventListener("change", () => {
    const typed = seed.value.trim();
    if (typed === "") actions.option("seed", null);
    else if (/^[0-9]+$/.test(typed)) actions.option("seed", Number(typed));
    else seed.value = chosen;
  });
  const seedNote = el(
    "span",
    { id: "opt-seed-note", class: "small-print" },
    options.seed === "set" ? t("A practice game: empty the field for a random shuffle.") : t("Empty: a random shuffle, and the game may be rated."),
  );
  const hosted = el("input", { type: "checkbox", id: "opt-host", "data-focus": "opt-host", checked: options.host !== false, disabled });
  hosted.addEventListener("change", () => actions.option("host", hosted.checked));
  const draw = el("input", { type: "checkbox", id: "opt-drawseat", "data-focus": "opt-drawseat", checked: !!options.drawseat, disabled });
  draw.addEventListener("change", () => actions.option("drawseat", draw.checked));
  const first = el(
    "select",
    { id: "opt-start", "data-focus": "opt-start", disabled },
    el("option", { value: "", selected: options.start == null }, t("drawn by the shuffle")),
    ...[1, 2, 3, 4].map((n) => el("option", { value: String(n), selected: options.start === n }, t("seat {n}", { n }))),
  );
  first.addEventListener("change", () => actions.option("start", first.value ? Number(first.value) : null));
  const legend = manage ? t("Options") : host ? t("Options (the host, {host}, sets them)", { host }) : t("Options (players set them)");
  return el(
    "fieldset",
    { class: "options" },
    el("legend", {}, legend),
    el("label", { for: "opt-stammtisch", class: "check" }, stammtisch, " ", t("Stammtisch: 3 or 4 guests of one gender fill a table")),
    el("label", { for: "opt-clock" }, t("Turn clock"), " ", clock),
    el("label", { for: "opt-absent" }, t("Lost players"), " ", absent),
    el("label", { for: "opt-seed" }, t("Shuffle seed"), " ", seed, seedNote),
    el("label", { for: "opt-host", class: "check" }, hosted, " ", t("A host: only the first seated person sets options, seats bots and starts")),
    el("label", { for: "opt-drawseat", class: "check" }, draw, " ", t("Shuffle the seats at the start")),
    el("label", { for: "opt-start" }, t("Who begins"), " ", first),
  );
}

/** "1000 → 1012 (+12)": a rating before and after a game, `?` while provisional (the change in
 * a part of its own, which may go under the rest in a narrow panel). */
function ratingChange(r) {
  if (!r) return ["—"];
  const mark = r.provisional ? "?" : "";
  const before = Number.parseInt(String(r.before), 10);
  const after = Number.parseInt(String(r.after), 10);
  const diff = Number.isFinite(before) && Number.isFinite(after) ? after - before : null;
  const ratings = el("span", {}, `${String(r.before).replace("?", "")} → ${String(r.after).replace("?", "")}${mark}`);
  return diff === null ? [ratings] : [ratings, " ", el("span", {}, `(${diff > 0 ? "+" : diff < 0 ? "−" : "±"}${Math.abs(diff)})`)];
}

function resultPanel({ view, actions }) {
  const game = view.game;
  const result = game.result;
  // a rated game's changes, in the view's result (so a reload after the end still shows them)
  const ratings = result.ratings ?? null;
  const out = new Set(game.players.filter((p) => p.eliminated).map((p) => p.name));
  const rows = result.ranking.map((name) => {
    const penalty = own(result.penalties, name) ?? 0;
    const final = result.final_scores[name];
    return el(
      "tr",
      { class: `${name === view.you ? "me" : ""} place-${result.places[name]}`, "data-player": name },
      el("td", { class: "place" }, `${result.places[name]}.`),
      el("td", { class: "name" }, name, out.has(name) ? el("span", { class: "badge out" }, t("out")) : null),
      el("td", { class: "num before-penalty" }, String(final + penalty)),
      el("td", { class: "num penalty cards-left" }, penalty ? `−${penalty}` : "0"),
      el("td", { class: "num final" }, String(final)),
      ratings ? el("td", { class: "num rating" }, ...ratingChange(own(ratings, name))) : null,
    );
  });
  return el(
    "div",
    { class: "panel result", role: "dialog", "aria-label": t("Game over") },
    el("h2", { tabindex: "-1" }, t("Game over")),
    el("p", {}, `${reasonText(result.reason)[0].toUpperCase()}${reasonText(result.reason).slice(1)}. ${winners(result)}.`, " ", kindBadge(roomKind(view))),
    el(
      "table",
      { class: "ranking" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, t("place"))),
          el("th", { scope: "col" }, t("player")),
          el("th", { scope: "col", class: "before-penalty" }, t("score")),
          el("th", { scope: "col", class: "cards-left" }, t("cards left")),
          el("th", { scope: "col" }, t("final")),
          ratings ? el("th", { scope: "col" }, t("rating")) : null,
        ),
      ),
      el("tbody", {}, ...rows),
    ),
    el(
      "div",
      { class: "row" },
      el("button", { type: "button", "data-focus": "show-cafe", onclick: () => actions.closeResult() }, t("Show the café")),
      canManage(view) ? el("button", { type: "button", class: "primary", "data-focus": "again", "data-autofocus": true, onclick: () => actions.start() }, t("Play again")) : null,
    ),
  );
}

// A click is a press and a release on the same control: a panel rebuilt between the two (a room
// opening anywhere changes the lobby's list) would swallow it. While a pointer is down in the
// panel, its rebuild waits for the release, and then for the click that release makes.
let pressed = false;
let deferred = null;
const watched = new WeakSet();

function watchPresses(box) {
  if (watched.has(box)) return;
  watched.add(box);
  box.addEventListener("pointerdown", () => {
    pressed = true;
  });
  const release = () => {
    if (!pressed) return;
    pressed = false;
    setTimeout(() => {
      const args = deferred;
      deferred = null;
      if (args) renderOverlay(...args);
    }, 0);
  };
  for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, release, true);
  window.addEventListener("blur", release);
}

function focusHand() {
  const card = document.querySelector("#hand .card");
  if (card) return card.focus();
  const title = document.getElementById("hand-title");
  if (!title || title.closest("[hidden]")) return undefined;
  title.setAttribute("tabindex", "-1");
  return title.focus();
}

/** The panel over the board: the lobby, a waiting room, or the final ranking; hidden in play. */
export function renderOverlay(box, parts) {
  watchPresses(box);
  if (pressed) {
    deferred = [box, parts];
    return;
  }
  deferred = null;
  const { view, welcomed, name, rooms, people, resultClosed, actions } = parts;
  let panel = null;
  if (!view) panel = welcomed ? lobbyPanel({ name, rooms, people, actions }) : null;
  else if (view.game?.result && !resultClosed) panel = resultPanel({ view, actions });
  else if (view.state === "waiting") panel = waitingPanel({ view, actions });
  const kind = panel ? panel.className : "";
  // Rebuilding the panel on every view would lose what is typed in it and the focus.
  const key = panel ? JSON.stringify([view, rooms, people, name, language()]) : "";
  if (panel && box.dataset.kind === kind && box.dataset.key === key) return;
  // The focus stays where it was across a rebuild (the same control), or, when the panel is a new
  // one and the focus was in the old one or nowhere, goes to the new panel's first step.
  const active = document.activeElement;
  const inside = box.contains(active);
  // the keyboard on the board or the hand as the game ends: nothing there does anything now, and
  // the results are where it goes on
  const played = !!active?.closest?.("#board, #hand-area") && !!view?.game?.result;
  const nowhere = !active || active === document.body || played;
  const focusKey = inside ? active.dataset?.focus : undefined;
  const samePanel = box.dataset.kind === kind;
  // what is typed in a field of the panel (the room's name) survives the list changing under it,
  // and so does where the typing goes on: the caret, or the selection typing replaces
  const typed = samePanel
    ? [...box.querySelectorAll("input[data-keep]")].map((i) => [i.id, i.value, i.selectionStart, i.selectionEnd, i.selectionDirection])
    : [];
  box.dataset.kind = kind;
  box.dataset.key = key;
  box.hidden = !panel;
  box.replaceChildren();
  if (!panel) {
    // the panel went (a game started) with the keyboard in it: unless something else took the
    // keyboard meanwhile ("Show the café" gives it to "Show the results"), it goes on at the hand
    // (its first card, or its heading while it holds none) once that is drawn
    const lost = () => !document.activeElement || document.activeElement === document.body;
    if (inside) requestAnimationFrame(() => lost() && focusHand());
    return;
  }
  box.append(panel);
  for (const [id, value, start, end, direction] of typed) {
    const field = panel.querySelector(`#${id}`);
    if (!field) continue;
    field.value = value;
    field.setSelectionRange(start, end, direction);
  }
  if (!inside && !nowhere) return;
  const again = focusKey ? [...panel.querySelectorAll("[data-focus]")].find((e) => e.dataset.focus === focusKey) : null;
  if (again && !again.disabled) return again.focus();
  if (samePanel && !nowhere && !focusKey) return undefined;
  const first = panel.querySelector("[data-autofocus]:not(:disabled)") ?? panel.querySelector("h2");
  if (first) {
    if (first.tagName === "H2") first.setAttribute("tabindex", "-1");
    first.focus();
  }
  return undefined;
}
