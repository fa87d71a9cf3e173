// The panels beside the café: the players (scores, hand sizes, whose turn), and the panel over
// the board for the lobby, a room waiting for its game, and the final ranking.

import { reasonText, winners } from "./chat.js";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function badges(view, name) {
  const seat = view.seats.find((s) => s.name === name);
  const found = [];
  if (name === view.you) found.push(["you", "you"]);
  if (seat?.kind === "bot") found.push(["bot", "bot"]);
  if (seat && !seat.connected) found.push(["away", "away"]);
  return found.map(([cls, text]) => el("span", { class: `badge ${cls}` }, text));
}

function ordinal(n) {
  return `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`;
}

function cardBacks(count) {
  const box = el("span", { class: "backs", "aria-hidden": "true" });
  for (let i = 0; i < Math.min(count, 7); i += 1) box.append(el("span", { class: "back" }));
  return box;
}

/** The players of the room: seats before the game, then scores, hand sizes and whose turn it is. */
export function renderPlayers(box, view) {
  box.replaceChildren();
  if (!view) return;
  const game = view.game;
  const list = el("ol", { class: "player-list" });
  if (!game) {
    for (const seat of view.seats) {
      list.append(el("li", { class: "player", "data-player": seat.name }, el("span", { class: "name" }, seat.name), ...badges(view, seat.name)));
    }
    if (!view.seats.length) list.append(el("li", { class: "player empty" }, "No seats taken yet."));
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
        el("span", { class: "name" }, p.name),
        ...badges(view, p.name),
        p.eliminated ? el("span", { class: "badge out" }, "out") : null,
        el("span", { class: "spacer" }),
        el("span", { class: "hand-size", title: `${p.hand_size} cards in hand, limit ${p.hand_limit}` }, cardBacks(p.hand_size), `${p.hand_size}`),
        result ? el("span", { class: "place", title: "place" }, `${ordinal(result.places[p.name])}`) : null,
        el(
          "span",
          { class: "score", title: result ? "final score, after the cards left in hand" : "score" },
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
  if (game) facts.push(`deck ${game.deck_size}`, `bar ${game.bar.length}/20`);
  if (game?.last_move) {
    const { player, move } = game.last_move;
    facts.push(move.startsWith("leave ") ? `last: ${player} left the game` : `last: ${player} ${move}`);
  }
  if (game && !game.over && view.options?.clock) facts.push(`clock ${view.options.clock}s a turn`);
  if (view.spectators.length) facts.push(`watching: ${view.spectators.join(", ")}`);
  if (facts.length) box.append(el("p", { class: "facts" }, facts.join(" · ")));
}

function lobbyPanel({ name, rooms, actions }) {
  const input = el("input", { id: "room-input", value: "cafe", maxlength: 24, "aria-label": "Room name", autocomplete: "off" });
  const enter = (join) => () => {
    const room = input.value.trim();
    if (room) actions.enter(room, join);
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") enter(true)();
  });
  const list = el("ul", { class: "rooms" });
  for (const room of rooms) {
    const who = room.seats.map((s) => s.name).join(", ") || "no seats taken";
    list.append(
      el(
        "li",
        {},
        el("span", { class: "room" }, room.name),
        el("span", { class: `state ${room.state}` }, room.state),
        el("span", { class: "who" }, who),
        room.state === "waiting" && room.seats.length < 4 ? el("button", { type: "button", class: "small", onclick: () => actions.enter(room.name, true) }, "Join") : null,
        el("button", { type: "button", class: "small", onclick: () => actions.enter(room.name, false) }, "Watch"),
      ),
    );
  }
  return el(
    "div",
    { class: "panel lobby" },
    el("h2", {}, `Welcome, ${name}!`),
    el("p", {}, "Take a seat in a room, add a bot or wait for friends, and start."),
    el(
      "div",
      { class: "row" },
      input,
      el("button", { type: "button", class: "primary", onclick: enter(true) }, "Take a seat"),
      el("button", { type: "button", onclick: enter(false) }, "Watch"),
    ),
    rooms.length ? el("h3", {}, "Rooms") : null,
    rooms.length ? list : null,
    el("p", { class: "small-print" }, "Also playable from a terminal: telnet or nc to the line port, then /help."),
  );
}

function waitingPanel({ view, actions }) {
  const seated = view.seat !== null;
  const strategy = el(
    "select",
    { "aria-label": "Bot strategy" },
    el("option", { value: "greedy" }, "greedy bot"),
    el("option", { value: "random" }, "random bot"),
    el("option", { value: "strong" }, "strong bot"),
  );
  const full = view.seats.length >= 4;
  const seats = el("ol", { class: "seats" });
  for (let i = 0; i < 4; i += 1) {
    const seat = view.seats[i];
    seats.append(el("li", { class: seat ? "taken" : "free" }, seat ? `${seat.name}${seat.kind === "bot" ? " (bot)" : ""}` : "free seat"));
  }
  const options = view.options ?? {};
  return el(
    "div",
    { class: "panel waiting" },
    el("h2", {}, `Room ${view.room}`),
    el("p", {}, view.game ? "The last game is over." : "Waiting for 2 to 4 players."),
    seats,
    el(
      "div",
      { class: "row" },
      seated ? null : el("button", { type: "button", class: "primary", disabled: full, onclick: () => actions.join() }, "Take a seat"),
      el("span", { class: "group" }, strategy, el("button", { type: "button", disabled: full, onclick: () => actions.addBot(strategy.value) }, "Add bot")),
      seated ? el("button", { type: "button", class: "primary", disabled: view.seats.length < 2, onclick: () => actions.start() }, "Start") : null,
      seated && !view.game ? el("button", { type: "button", class: "small", onclick: () => actions.stand() }, "Give up seat") : null,
    ),
    el(
      "p",
      { class: "small-print" },
      `Seed ${options.seed ?? "random"} · Stammtisch ${options.stammtisch ? "on" : "off"} · clock ${options.clock ? `${options.clock}s` : "off"}` +
        ` · absent players: ${options.absent === "drop" ? "dropped" : "a bot plays"}` +
        " — change with /option seed 7, /option stammtisch on, /option clock 60, /option absent drop.",
    ),
  );
}

function resultPanel({ view, actions }) {
  const game = view.game;
  const result = game.result;
  const out = new Set(game.players.filter((p) => p.eliminated).map((p) => p.name));
  const rows = result.ranking.map((name) => {
    const penalty = result.penalties[name] ?? 0;
    const final = result.final_scores[name];
    return el(
      "tr",
      { class: `${name === view.you ? "me" : ""} place-${result.places[name]}`, "data-player": name },
      el("td", { class: "place" }, `${result.places[name]}.`),
      el("td", { class: "name" }, name, out.has(name) ? el("span", { class: "badge out" }, "out") : null),
      el("td", { class: "num" }, String(final + penalty)),
      el("td", { class: "num penalty" }, penalty ? `−${penalty}` : "0"),
      el("td", { class: "num final" }, String(final)),
    );
  });
  return el(
    "div",
    { class: "panel result", role: "dialog", "aria-label": "Game over" },
    el("h2", {}, "Game over"),
    el("p", {}, `${reasonText(result.reason)[0].toUpperCase()}${reasonText(result.reason).slice(1)}. ${winners(result)}.`),
    el(
      "table",
      { class: "ranking" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "player"), el("th", {}, "score"), el("th", {}, "cards left"), el("th", {}, "final"))),
      el("tbody", {}, ...rows),
    ),
    el(
      "div",
      { class: "row" },
      el("button", { type: "button", onclick: () => actions.closeResult() }, "Show the café"),
      view.seat !== null ? el("button", { type: "button", class: "primary", onclick: () => actions.start() }, "Play again") : null,
    ),
  );
}

/** The panel over the board: the lobby, a waiting room, or the final ranking; hidden in play. */
export function renderOverlay(box, { view, welcomed, name, rooms, resultClosed, actions }) {
  let panel = null;
  if (!view) panel = welcomed ? lobbyPanel({ name, rooms, actions }) : null;
  else if (view.game?.result && !resultClosed) panel = resultPanel({ view, actions });
  else if (view.state === "waiting") panel = waitingPanel({ view, actions });
  const kind = panel ? panel.className : "";
  // Rebuilding the panel on every view would lose what is typed in it and the focus.
  if (panel && box.dataset.kind === kind && box.dataset.key === JSON.stringify([view, rooms, name])) return;
  box.dataset.kind = kind;
  box.dataset.key = panel ? JSON.stringify([view, rooms, name]) : "";
  box.hidden = !panel;
  box.replaceChildren();
  if (panel) box.append(panel);
}
