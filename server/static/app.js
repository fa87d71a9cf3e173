// The web page: one connection, the room's view (a snapshot kept current with patches), the café
// drawn from it, the hand, the move being chosen by pointing, and the chat pane.

import { CafeBoard } from "./board.js";
import { ChatPane, playedLine, reasonText, winners } from "./chat.js";
import { Connection } from "./connection.js";
import { AccountForm } from "./account.js";
import { BoardZoom } from "./zoom.js";
import { language, onLanguageChange, preferredLanguage, setLanguage, t, tn } from "./i18n.js";
import { flagBox, guestTile, guestWords, nationName } from "./flags.js";
import { MovePlanner, parseMove } from "./moves.js";
import { applyPatch } from "./patch.js";
import { Countdown, TurnSignal, recentMoves, renderHistory } from "./live.js";
import { canManage, renderOverlay, renderPlayers } from "./panels.js";
import { PeopleDialog } from "./profile.js";
import { SocialPane } from "./social.js";

const $ = (id) => document.getElementById(id);

const saved = {
  get(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch {
      // storage refused (a private window): the page still works, without resuming
    }
  },
};

async function loadJson(path) {
  const response = await fetch(path);
  if (!response.ok) {
    $("conn-text").textContent = t("could not load {path}: reload the page", { path });
    throw new Error(`${path}: ${response.status}`);
  }
  return response.json();
}

const [BOARD, COMMANDS] = await Promise.all([
  loadJson("board.json"),
  loadJson("commands.json"),
  setLanguage(preferredLanguage()),
]);

const state = {
  name: saved.get("cafe.name"),
  token: saved.get("cafe.token"),
  welcomed: false,
  view: null,
  lastSeq: 0,
  legal: null, // {moveNumber, planner} for the current turn
  legalAsked: null, // the move number legal moves were asked for
  selected: null, // index in the hand of the card being placed
  used: [], // hand indices already picked this turn, in order
  sending: null, // id of the move sent and not yet answered
  nationAsk: null, // {card, target, nations} while the joker's nation is asked
  leaving: null, // id of a leave_room not yet answered
  resultClosed: false,
  rooms: [],
  people: [],
  wasMyTurn: false,
  replaced: false,
  registered: false,
  pending: null, // {how, name, password} from the account form, until the server answers it
  registering: null, // id of a register message not yet answered
  nextId: 1,
};

const app = $("app");

// --- sending -------------------------------------------------------------------------------------

function newId(prefix) {
  state.nextId += 1;
  return `${prefix}-${state.nextId}`;
}

function send(msg) {
  if (!connection.send(msg)) {
    chat.add("error", t("Not connected: the page reconnects by itself."));
    return false;
  }
  return true;
}

function command(text) {
  const trimmed = text.trim();
  const name = /^\/(\S+)/.exec(trimmed)?.[1]?.toLowerCase();
  // a command is shown as typed; chat comes back from the server with the name, once
  if (name) chat.add("mine", trimmed);
  if (name === "quit") {
    connection.close(t("you typed /quit"));
    return;
  }
  const id = newId("cmd");
  if (name === "leave") state.leaving = id;
  send({ type: "command", id, text: trimmed });
}

function resync() {
  if (state.view) send({ type: "resync" });
}

function hello() {
  const pending = state.pending;
  if (pending) {
    // a login's password goes out once; a registration waits for the welcome to send its own
    if (pending.how !== "register") state.pending = null;
    const lang = language();
    if (pending.how === "login") send({ type: "hello", name: pending.name, password: pending.password, lang });
    else send({ type: "hello", name: pending.name, lang });
    return;
  }
  // another tab of this browser may have come back since, and every return hands out a new token
  state.token = saved.get("cafe.token") ?? state.token;
  state.name = saved.get("cafe.name") ?? state.name;
  const lang = language();
  if (state.token) send({ type: "hello", name: state.name || "guest", token: state.token, lang });
  else if (state.name) send({ type: "hello", name: state.name, lang });
  else askName("");
}

// --- the game as this page sees it -----------------------------------------------------------

function game() {
  return state.view?.game ?? null;
}

function myTurn() {
  const g = game();
  return !!g && !g.over && Array.isArray(g.hand) && g.to_move === state.view.you;
}

function planner() {
  const g = game();
  return myTurn() && state.legal && state.legal.moveNumber === g.move_number ? state.legal.planner : null;
}

function clearPicks() {
  state.selected = null;
  state.used = [];
  state.nationAsk = null;
  state.legal?.planner.clear();
}

function syncTurn() {
  const g = game();
  if (!myTurn()) {
    state.legal = null;
    state.legalAsked = null;
    clearPicks();
    return;
  }
  if (state.legal?.moveNumber !== g.move_number && state.legalAsked !== g.move_number) {
    state.legalAsked = g.move_number;
    send({ type: "legal_moves", id: `lm-${g.move_number}` });
  }
}

function lastMove() {
  return recentMoves(game(), state.view?.you);
}

// --- choosing a move by pointing -----------------------------------------------------------

function say(text) {
  $("prompt").textContent = text;
}

function focusLater(el, byKeyboard) {
  if (el) requestAnimationFrame(() => el.focus({ preventScroll: !byKeyboard }));
}

function chooseCard(index, byKeyboard) {
  const plan = planner();
  if (!plan || state.sending || state.used.includes(index)) return;
  if (state.selected === index) {
    state.selected = null;
    render();
    return;
  }
  const card = game().hand[index];
  if (!plan.nextCards().has(card)) {
    render();
    say(state.used.length ? t("{card} cannot be played with that.", { card }) : t("{card} cannot be played now.", { card }));
    return;
  }
  state.selected = index;
  state.nationAsk = null;
  render();
  if (byKeyboard) focusLater(cafe.targetElements()[0], true);
}

function chooseTarget(target, byKeyboard) {
  const plan = planner();
  if (!plan || state.sending) return;
  if (state.selected === null) {
    say(myTurn() ? t("Choose a guest from your hand first.") : "");
    return;
  }
  const card = game().hand[state.selected];
  const entry = plan.targets(card).get(target);
  if (!entry) {
    say(target === "bar" ? t("{card} cannot go to the bar now.", { card }) : t("{card} cannot sit at {target}.", { card, target }));
    return;
  }
  if (entry.nations.length > 1) {
    state.nationAsk = { card, target, nations: entry.nations };
    render();
    focusLater($("nation-choice").querySelector("button"), byKeyboard);
    return;
  }
  place(card, target, entry.nations[0], byKeyboard);
}

function place(card, target, nation, byKeyboard) {
  const plan = planner();
  if (!plan || !plan.pick(card, target, nation)) return;
  state.used.push(state.selected);
  state.selected = null;
  state.nationAsk = null;
  render();
  if (plan.complete()) focusLater($("confirm"), byKeyboard);
  else focusLater($("hand").querySelector(".card.playable"), byKeyboard);
}

function confirmMove() {
  const plan = planner();
  const text = plan?.complete();
  if (!text || state.sending) return;
  state.sending = newId("mv");
  if (!send({ type: "move", id: state.sending, move: text })) state.sending = null;
  render();
}

function cancelMove() {
  clearPicks();
  render();
}

/** Set the picks to a suggested move (the hint), so that it only needs confirming. */
function showSuggestion(text) {
  const plan = planner();
  if (!plan) return;
  clearPicks();
  const hand = game().hand;
  for (const p of parseMove(text).placements) {
    const index = hand.findIndex((c, i) => c === p.card && !state.used.includes(i));
    if (index < 0 || !plan.pick(p.card, p.target, p.nation)) {
      clearPicks();
      break;
    }
    state.used.push(index);
  }
  render();
}

// --- drawing -------------------------------------------------------------------------------

function renderHeader() {
  const v = state.view;
  const g = game();
  $("room-name").textContent = v ? t("room {room}", { room: v.room }) : "";
  $("me").textContent = state.welcomed ? state.name : "";
  $("register-open").hidden = !state.welcomed || state.registered;
  $("lobby-btn").hidden = !v;
  const turn = $("turn");
  turn.className = "turn";
  if (!g) turn.textContent = v ? t("waiting for players") : "";
  else if (g.over) turn.textContent = t("game over");
  else if (myTurn()) {
    turn.textContent = t("your turn");
    turn.classList.add("mine");
  } else turn.textContent = t("{name}'s turn", { name: g.to_move });
  const yourTurn = t("Your turn");
  document.title = `${myTurn() ? `● ${yourTurn} — ` : ""}Café International`;
  const mine = myTurn();
  if (mine && !state.wasMyTurn) signal.yourTurn();
  state.wasMyTurn = mine;
  countdown.set(g && !g.over ? g.deadline : null, g ? (mine ? t("your turn") : t("{name}'s turn", { name: g.to_move })) : "");
}

function cardButton(card, index) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "card";
  button.dataset.card = card;
  button.dataset.index = String(index);
  // the name starts with what the card shows (its nation code), then says it in words
  button.setAttribute("aria-label", `${card.startsWith("J") ? "J" : card.slice(0, 2)}: ${guestWords(card, BOARD.nations)} (${card})`);
  button.innerHTML = `<svg viewBox="-29 -35 58 70" aria-hidden="true">${guestTile(card, 56, 68)}</svg>`;
  button.addEventListener("click", (e) => chooseCard(index, e.detail === 0));
  return button;
}

function renderHand() {
  const g = game();
  const area = $("hand-area");
  const hand = g?.hand;
  const plan = planner();
  area.classList.toggle("watching", !Array.isArray(hand));
  const box = $("hand");
  if (!Array.isArray(hand)) {
    box.replaceChildren();
    box.dataset.hand = "";
    $("hand-title").textContent = state.view?.seat != null ? t("Your seat") : t("Watching");
    $("hand-info").textContent = "";
    return;
  }
  const me = g.players.find((p) => p.name === state.view.you);
  $("hand-title").textContent = t("Your hand");
  $("hand-info").textContent = me
    ? tn("{n} card · limit {limit} · deck {deck}", "{n} cards · limit {limit} · deck {deck}", hand.length, { limit: me.hand_limit, deck: g.deck_size })
    : "";
  // The buttons stay while the hand does, so that the focus stays on the card it was on.
  const key = hand.join(" ");
  if (box.dataset.hand !== key || box.childElementCount !== hand.length) {
    box.replaceChildren(...hand.map((card, i) => cardButton(card, i)));
    box.dataset.hand = key;
    if (hand.length === 0) box.textContent = t("No cards in hand.");
  }
  const next = plan ? plan.nextCards() : new Set();
  hand.forEach((card, i) => {
    const button = box.children[i];
    const used = state.used.includes(i);
    const selected = state.selected === i;
    const playable = !used && !!plan && !state.sending && (selected || next.has(card));
    button.classList.toggle("used", used);
    button.classList.toggle("selected", selected);
    button.classList.toggle("playable", playable);
    button.classList.toggle("dim", !!plan && !state.sending && !used && !playable);
    button.setAttribute("aria-pressed", String(selected));
  });
}

function renderNationChoice() {
  const box = $("nation-choice");
  const ask = state.nationAsk;
  box.hidden = !ask;
  const key = ask ? `${ask.card}@${ask.target}` : "";
  if (box.dataset.ask === key) return;
  box.dataset.ask = key;
  box.replaceChildren();
  if (!ask) return;
  const label = document.createElement("span");
  label.textContent = t("Seat {card} at {target} as:", { card: ask.card, target: ask.target });
  box.append(label);
  for (const nation of ask.nations) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "nation";
    button.dataset.nation = nation;
    button.innerHTML = `<svg viewBox="0 0 30 20" aria-hidden="true">${flagBox(nation, 0, 0, 30, 20)}</svg> ${nationName(nation, BOARD.nations)}`;
    button.addEventListener("click", (e) => place(ask.card, ask.target, nation, e.detail === 0));
    box.append(button);
  }
}

function renderMoveRow() {
  const plan = planner();
  const g = game();
  const confirm = $("confirm");
  const text = plan?.complete() ?? null;
  confirm.disabled = !text || !!state.sending;
  confirm.textContent = text ? t("Play {move}", { move: text }) : t("Play");
  $("cancel").disabled = !plan || (state.selected === null && state.used.length === 0) || !!state.sending;
  $("hint-btn").hidden = !myTurn();
  $("results-btn").hidden = !(g?.result && state.resultClosed);
  if (!g) return say(state.view ? t("The game has not started.") : "");
  if (g.over) return say(t("The game is over."));
  if (!Array.isArray(g.hand)) return say(t("{name} is to move.", { name: g.to_move }));
  if (!myTurn()) return say(t("{name} is to move. Your cards wait.", { name: g.to_move }));
  if (state.sending) return say(t("Playing {move}…", { move: text }));
  if (!plan) return say(t("Your turn: looking up your moves…"));
  if (state.nationAsk) return say(t("A joker between two nations: which nation does it join?"));
  if (state.selected !== null) {
    const card = g.hand[state.selected];
    const targets = plan.targets(card);
    const ways = [];
    if ([...targets.values()].some((t) => t.kind === "seat")) ways.push(t("a lit chair"));
    if (targets.has("bar")) ways.push(t("the bar"));
    if ([...targets.values()].some((t) => t.kind === "swap")) ways.push(t("a joker to exchange"));
    return say(t("Where does {card} go? Choose {ways}.", { card, ways: ways.join(t(", or ")) }));
  }
  if (text) return say(plan.canExtend() ? t("Play {move}, or add a second guest.", { move: text }) : t("Play {move}?", { move: text }));
  if (state.used.length) return say(t("Choose the next guest."));
  return say(t("Your turn: choose a guest from your hand."));
}

function renderBoard() {
  const g = game();
  const plan = planner();
  const targets = plan && state.selected !== null && !state.sending ? plan.targets(game().hand[state.selected]) : new Map();
  cafe.update({
    chairs: g?.chairs ?? {},
    bar: g?.bar ?? [],
    targets,
    picks: plan ? plan.picks : [],
    last: lastMove(),
  });
  zoom.showTargets(targets, cafe.targetElements()[0]);
}

function render() {
  const v = state.view;
  const g = game();
  app.dataset.state = !v ? "lobby" : v.state;
  app.dataset.turn = !g || g.over ? "none" : myTurn() ? "mine" : "other";
  app.dataset.legal = planner() ? "ready" : myTurn() ? "loading" : "none";
  app.dataset.moveNumber = String(g?.move_number ?? "");
  app.dataset.toMove = g && !g.over ? g.to_move : "";
  app.classList.toggle("spectator", !!v && v.seat === null);
  renderHeader();
  renderBoard();
  renderPlayers($("players"), v);
  social.renderRoom(v, !!v && canManage(v), overlayActions.option);
  renderHistory($("history"), g, v?.you, BOARD.nations);
  renderHand();
  renderNationChoice();
  renderMoveRow();
  renderOverlay($("overlay"), {
    view: v,
    welcomed: state.welcomed,
    name: state.name,
    rooms: state.rooms,
    people: state.people,
    resultClosed: state.resultClosed,
    actions: overlayActions,
  });
}

const overlayActions = {
  enter(room, join) {
    if (join) send({ type: "join", room, id: newId("ui") });
    else send({ type: "enter_room", room, id: newId("ui") });
  },
  refreshRooms() {
    send({ type: "list_rooms", id: newId("ui") });
  },
  join() {
    send({ type: "join", id: newId("ui") });
  },
  stand() {
    send({ type: "leave_game", id: newId("ui") });
  },
  option(key, value) {
    send({ type: "option", key, value, id: newId("ui") });
  },
  addBot(strategy) {
    send({ type: "add_bot", strategy, id: newId("ui") });
  },
  removeBot(name) {
    send({ type: "remove_bot", name, id: newId("ui") });
  },
  start() {
    send({ type: "start", id: newId("ui") });
  },
  closeResult() {
    state.resultClosed = true;
    render();
  },
};

// --- the server's messages ---------------------------------------------------------------------

function onView() {
  syncTurn();
  render();
}

function onMessage(msg) {
  if (typeof msg.seq === "number") {
    if (state.lastSeq && msg.seq !== state.lastSeq + 1) resync();
    state.lastSeq = msg.seq;
  }
  const id = typeof msg.id === "string" ? msg.id : "";
  switch (msg.type) {
    case "welcome":
      return onWelcome(msg);
    case "snapshot":
      if (state.view?.room !== msg.view.room) social.clearVote();
      state.view = msg.view;
      saved.set("cafe.room", msg.view.room);
      if (msg.view.state === "playing") state.resultClosed = false;
      return onView();
    case "patch":
      if (!state.view || state.view.room !== msg.room) return resync();
      try {
        state.view = applyPatch(state.view, msg.ops);
      } catch (e) {
        return resync();
      }
      return onView();
    case "ack":
      if (id.startsWith("soc")) social.onListAck();
      if (id && id === state.sending) {
        state.sending = null;
        clearPicks();
      }
      if (id && id === state.leaving) {
        state.leaving = null;
        state.view = null;
        social.clearVote();
        saved.set("cafe.room", null);
        send({ type: "list_rooms", id: newId("ui") });
        askWho();
      }
      return render();
    case "error":
      return onError(msg, id);
    case "legal_moves":
      if (id.startsWith("lm-")) {
        const number = Number(id.slice(3));
        if (game()?.move_number === number) {
          state.legal = { moveNumber: number, planner: new MovePlanner(msg.moves) };
          clearPicks();
          render();
        }
        return;
      }
      chat.addText(
        msg.moves.length
          ? [t("Legal moves ({n}):", { n: msg.moves.length }), ...msg.moves].join("\n")
          : t("No legal moves."),
      );
      return;
    case "hint":
      chat.add("notice", t("Hint: {move} ({points})", { move: msg.move, points: `${msg.points >= 0 ? "+" : ""}${msg.points}` }));
      return showSuggestion(msg.move);
    case "text":
      if (msg.kind === "history") return chat.addGames(msg.text);
      return chat.addText(msg.text, `text ${msg.kind}`);
    case "rooms":
      state.rooms = msg.rooms;
      if (!state.view) askWho();
      if (id.startsWith("cmd")) {
        chat.addText(
          msg.rooms.length
            ? msg.rooms.map((r) => [r.name, r.state, r.seats.map((s) => s.name).join(", ") || t("no seats taken")].join("  ")).join("\n")
            : t("No rooms yet: /join NAME makes one."),
        );
      }
      return render();
    case "who":
      if (id.startsWith("lobby")) {
        state.people = msg.people;
        return render();
      }
      return chat.addText(
        msg.people.map((p) => [p.name + (p.kind === "bot" ? ` (${botWord()})` : ""), p.room ?? t("lobby")].join("  ")).join("\n"),
      );
    case "presence":
      return chat.add("presence", ChatPane.presenceLine(msg));
    case "chat":
      return chat.add("chat", msg.text, `${msg.name}:`, { name: msg.name });
    case "notice":
      social.askFriends();
      return chat.add("notice", msg.text);
    case "game_started":
      state.resultClosed = false;
      return chat.add(
        "event start",
        t("The game starts: {players}. {first} begins.", { players: msg.players.join(", "), first: msg.start_player }) +
          (msg.practice ? " A practice game: the room chose the seed." : ""),
      );
    case "played":
      return chat.add("event", playedLine(msg));
    case "eliminated":
      return chat.add("event", t("{name} is eliminated (place {place}).", { name: msg.player, place: msg.place }));
    case "game_over": {
      const scores = msg.ranking.map((n) => `${n} ${msg.final_scores[n]}`).join(", ");
      return chat.add("event over", t("Game over: {reason}. {winners}. {scores}", { reason: reasonText(msg.reason), winners: winners(msg), scores }));
    }
    case "pong":
      return chat.add("system", "pong");
    case "bye":
      return chat.add("system", t("The server says goodbye: {reason}", { reason: msg.reason }));
    case "tell":
      social.onTell(msg);
      return msg.name === state.name
        ? chat.add("tell", msg.text, t("to {name}:", { name: msg.to }), { name: msg.to })
        : chat.add("tell", msg.text, t("{name} tells you:", { name: msg.name }), { name: msg.name });
    case "friends":
      social.onFriends(msg);
      if (id.startsWith("soc")) return undefined;
      return chat.addText(
        msg.friends.length
          ? msg.friends.map((f) => [f.name, f.online ? f.room ?? t("lobby") : t("not connected")].join("  ")).join("\n")
          : t("No friends listed yet: /friend NAME adds one."),
      );
    case "invited":
      return chat.add(
        "notice",
        t("{name} invites you to room {room}: /room {room} goes there, or choose", { name: msg.name, room: msg.room }),
        null,
        { room: msg.room },
      );
    case "vote":
      social.onVote(msg);
      return chat.add("notice", voteLine(msg));
    default:
      return undefined;
  }
}

function botWord() {
  return t("bot");
}

function voteLine(vote) {
  const params = { by: vote.by, name: vote.name, seat: vote.seat };
  const what = vote.kind === "join"
    ? t("{by} asks to take over seat {seat} ({name})", params)
    : t("{by} asks to take {name} (seat {seat}) out of the game", params);
  const ended = { passed: t("passed"), failed: t("failed"), expired: t("expired"), cancelled: t("cancelled") };
  if (vote.state !== "open") return t("Vote {state}: {what}.", { state: ended[vote.state] ?? vote.state, what });
  const mine = vote.voters.includes(state.name) && !vote.yes.includes(state.name) && !vote.no.includes(state.name);
  const tally = t("Vote: {what} ({yes} yes, {no} no).", { what, yes: vote.yes.length, no: vote.no.length });
  const answer = t("/accept or /refuse");
  return mine ? `${tally} ${answer}` : tally;
}

function onWelcome(msg) {
  state.name = msg.name;
  state.token = msg.token;
  state.registered = !!msg.registered;
  const pending = state.pending;
  if (pending?.how === "register" && !msg.registered) {
    state.pending = null;
    sendRegister(pending.password);
  } else if (!state.registering) account.close();
  if (msg.id && msg.id === state.registering) {
    state.registering = null;
    account.close();
    chat.add("system", t("{name} is registered: the name is yours, and your games are rated.", { name: msg.name }));
  }
  saved.set("cafe.name", msg.name);
  saved.set("cafe.token", msg.token);
  connection.settled();
  const first = !state.welcomed;
  state.welcomed = true;
  if (!first) {
    chat.add("system", t("You are now {name}.", { name: msg.name }));
    return render();
  }
  social.askFriends();
  chat.add(
    "system",
    msg.resumed ? t("Welcome back, {name}.", { name: msg.name }) : t("Welcome, {name}. Type /help for the commands.", { name: msg.name }),
  );
  const room = saved.get("cafe.room") || roomInAddress();
  if (room) send({ type: "enter_room", room, id: newId("ui") });
  else {
    send({ type: "list_rooms", id: newId("ui") });
    askWho();
  }
  render();
}

/** A room named in the page's address (…/#cafe), to watch on arrival. */
function roomInAddress() {
  try {
    return decodeURIComponent(location.hash.slice(1));
  } catch {
    return "";
  }
}

function onError(msg, id) {
  if (id.startsWith("lm-")) {
    state.legalAsked = null;
    return;
  }
  if (msg.code === "bad_token") {
    state.token = null;
    saved.set("cafe.token", null);
    if (state.name) send({ type: "hello", name: state.name, lang: language() });
    else askName("");
    return;
  }
  if (id && id === state.registering) {
    state.registering = null;
    account.ask(msg.message, { name: state.name, code: msg.code });
    return;
  }
  if (!state.welcomed && AccountForm.answers(msg.code)) {
    state.pending = null; // a refused registration's password is not kept for another try
    askName(msg.message, msg.code);
    return;
  }
  if (msg.code === "bad_room" || msg.code === "too_many_rooms") saved.set("cafe.room", null);
  if (id && id === state.sending) {
    state.sending = null;
    clearPicks();
    state.legal = null;
    state.legalAsked = null;
    syncTurn();
  }
  if (id && id === state.leaving) state.leaving = null;
  if (id.startsWith("tell")) social.onError(msg);
  const line = chat.add("error", msg.message);
  line.title = msg.code;
  render();
}

/** Who is online, for the lobby: asked on arrival and when the room list changes, at most every 2 s. */
let whoAsked = 0;
let whoTimer = null;
function askWho() {
  const wait = whoAsked + 2000 - Date.now();
  if (wait > 0) {
    whoTimer ??= setTimeout(() => {
      whoTimer = null;
      if (!state.view) askWho();
    }, wait);
    return;
  }
  whoAsked = Date.now();
  send({ type: "who", id: newId("lobby") });
}

function sendRegister(password) {
  state.registering = newId("reg");
  send({ type: "register", password, id: state.registering });
}

function askName(problem, code = "") {
  account.ask(problem, { name: state.name, code });
}

function onAccount({ how, name, password }) {
  if (state.welcomed && how === "guest" && name.toLowerCase() === state.name?.toLowerCase()) {
    account.close();
    return;
  }
  if (state.welcomed && how === "register") {
    // a guest registers the name played under (after a /nick when another name was typed)
    if (name.toLowerCase() === state.name?.toLowerCase()) return sendRegister(password);
    state.pending = { how, name, password };
    send({ type: "nick", name, id: newId("ui") });
    return;
  }
  state.pending = { how, name, password };
  state.name = name;
  state.token = null;
  saved.set("cafe.token", null);
  if (state.welcomed) {
    // another name on this page: a fresh connection says hello with it
    connection.close(t("changing name"));
    connection.connect();
  } else if (connection.isOpen()) hello();
  else connection.connect();
}

function onConnectionState(conn, info) {
  app.dataset.conn = conn;
  const words = {
    connecting: t("connecting…"),
    connected: t("connected"),
    reconnecting: t("connection lost — retrying in {seconds}s", { seconds: info }),
    offline: t("offline: {why}", { why: info }),
    replaced: t("offline: another tab took over"),
  };
  $("conn-text").textContent = words[conn];
  $("reconnect").hidden = conn !== "offline" && conn !== "reconnecting";
  // a lost connection dims the board and says so; a second tab that took over offers it back
  const banner = $("banner");
  const lost = (conn === "reconnecting" || conn === "offline") && !!state.view;
  banner.hidden = !(lost || conn === "replaced");
  $("take-back").hidden = conn !== "replaced";
  $("banner-text").textContent =
    conn === "replaced"
      ? t("This page was closed because you opened the game in another tab or window.")
      : lost
        ? t("The connection is lost: the board may be out of date until it comes back.")
        : "";
  if (conn !== "connected") {
    state.welcomed = false;
    state.sending = null;
    state.legalAsked = null;
  }
  render();
}

// --- wiring ----------------------------------------------------------------------------------

const chat = new ChatPane({
  log: $("log"),
  input: $("input"),
  hint: $("cmd-hint"),
  commands: COMMANDS,
  onSubmit: command,
});

const cafe = new CafeBoard($("board"), BOARD, {
  onChair: (name, byKeyboard) => chooseTarget(name, byKeyboard),
  onBar: (byKeyboard) => chooseTarget("bar", byKeyboard),
});
const zoom = new BoardZoom({ app, wrap: $("board").parentElement, button: $("zoom-btn"), storage: saved, onChange: () => render() });

const social = new SocialPane({
  send,
  newId,
  me: () => (state.welcomed ? state.name : null),
  enter: (room) => overlayActions.enter(room, false),
});
const people = new PeopleDialog($("people-dialog"), {
  me: () => state.name,
  isFriend: (name) => social.isFriend(name),
  friend: (name, on) => social.setFriend(name, on),
  tell: (name) => social.tellTo(name),
  mute: (name) => social.mute(name),
  invite: (name) => (state.view && !state.view.seats.some((s) => s.name === name) ? () => social.invite(name) : null),
});
const account = new AccountForm($("name-dialog"), { onSubmit: onAccount });
const signal = new TurnSignal({ sound: $("sound-on"), notify: $("notify-on"), storage: saved });
const countdown = new Countdown($("clock"));

const scheme = location.protocol === "https:" ? "wss:" : "ws:";
const connection = new Connection(`${scheme}//${location.host}/ws`, {
  onOpen: () => {
    state.lastSeq = 0;
    hello();
  },
  onMessage,
  onState: onConnectionState,
});

$("confirm").addEventListener("click", confirmMove);
$("cancel").addEventListener("click", cancelMove);
$("hint-btn").addEventListener("click", () => send({ type: "hint", id: newId("ui") }));
$("reconnect").addEventListener("click", () => connection.connect());
function leaveRoom() {
  state.leaving = newId("ui");
  send({ type: "leave_room", id: state.leaving });
}

/** What leaving does to your seat, or null when it does nothing to one (nothing to ask then). */
function leavingWords() {
  const v = state.view;
  const g = game();
  if (!v || v.seat === null || !g || g.over || !g.players.some((p) => p.name === v.you && !p.eliminated)) return null;
  if (v.options?.absent === "drop") {
    return t(
      "The game is running. If you leave now, you leave the game for good: your turns are skipped and you rank below the players still in it.",
    );
  }
  return t(
    "The game is running. If you leave now, a bot plays your seat from your next turn. Come back to room {room} to take your seat back.",
    { room: v.room },
  );
}

$("lobby-btn").addEventListener("click", () => {
  const words = leavingWords();
  if (!words) return leaveRoom();
  $("leave-text").textContent = words;
  $("leave-dialog").showModal();
  $("leave-dialog").querySelector("button.primary").focus();
});
$("leave-dialog").addEventListener("close", () => {
  if ($("leave-dialog").returnValue === "leave") leaveRoom();
  else $("lobby-btn").focus();
});
$("results-btn").addEventListener("click", () => {
  state.resultClosed = false;
  render();
  $("overlay").querySelector("h2")?.focus();
});
$("take-back").addEventListener("click", () => connection.connect());
$("people-btn").addEventListener("click", () => people.showLeaderboard());
document.addEventListener("click", (e) => {
  const link = e.target.closest?.("a[data-room]");
  if (!link) return;
  e.preventDefault();
  if (state.welcomed) overlayActions.enter(link.dataset.room, false);
});
$("register-open").addEventListener("click", () => account.ask("", { name: state.name, code: "register" }));
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && (state.selected !== null || state.used.length || state.nationAsk)) {
    cancelMove();
    focusLater($("hand").querySelector(".card.playable"), true);
  }
});
// the language switch: the page's words at once, the server's from its next message on
const langSelect = $("lang-select");
langSelect.value = language();
langSelect.addEventListener("change", async () => {
  const lang = await setLanguage(langSelect.value);
  if (state.welcomed) send({ type: "lang", id: newId("ui"), lang });
});
onLanguageChange((lang) => {
  langSelect.value = lang;
  $("rules-link").href = `/rules?lang=${lang}`;
  zoom.label();
  cafe.relabel();
  social.relabel();
  render();
});
$("rules-link").href = `/rules?lang=${language()}`;

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) connection.retryNow();
});

render();
connection.connect();
