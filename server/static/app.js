// The web page: one connection, the room's view (a snapshot kept current with patches) and what
// the server's messages do to the page. Its parts live in modules of their own: the café
// (board.js), your turn (turn.js), the chat (chat.js), the panels (panels.js), the name you come in
// with (account.js), friends and tells (social.js).

import { CafeBoard } from "./board.js";
import { ChatPane, friendsText, overLine, playedLine, roomsText, startLine, voteLine, whoText } from "./chat.js";
import { Connection } from "./connection.js";
import { Identity } from "./account.js";
import { BoardZoom } from "./zoom.js";
import { language, onLanguageChange, preferredLanguage, setLanguage, t } from "./i18n.js";
import { applyPatch } from "./patch.js";
import { saved } from "./storage.js";
import { Countdown, TurnSignal, renderHistory } from "./live.js";
import { canManage, leavingWords, renderOverlay, renderPlayers } from "./panels.js";
import { PeopleDialog } from "./profile.js";
import { RatedGame } from "./rated.js";
import { SocialPane } from "./social.js";
import { MoveChooser } from "./turn.js";

const $ = (id) => document.getElementById(id);

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

// --- drawing -------------------------------------------------------------------------------

function renderHeader() {
  const v = state.view;
  const g = turn.game();
  const mine = turn.myTurn();
  $("room-name").textContent = v ? t("room {room}", { room: v.room }) : "";
  $("me").textContent = state.welcomed ? state.name : "";
  $("register-open").hidden = !state.welcomed || state.registered;
  $("lobby-btn").hidden = !v;
  const label = $("turn");
  label.className = "turn";
  if (!g) label.textContent = v ? t("waiting for players") : "";
  else if (g.over) label.textContent = t("game over");
  else if (mine) {
    label.textContent = t("your turn");
    label.classList.add("mine");
  } else label.textContent = t("{name}'s turn", { name: g.to_move });
  const yourTurn = t("Your turn");
  document.title = `${mine ? `● ${yourTurn} — ` : ""}Café International`;
  if (mine && !state.wasMyTurn) signal.yourTurn();
  state.wasMyTurn = mine;
  countdown.set(g && !g.over ? g.deadline : null, g ? (mine ? t("your turn") : t("{name}'s turn", { name: g.to_move })) : "");
}

function render() {
  const v = state.view;
  const g = turn.game();
  app.dataset.state = !v ? "lobby" : v.state;
  app.dataset.turn = !g || g.over ? "none" : turn.myTurn() ? "mine" : "other";
  app.dataset.legal = turn.planner() ? "ready" : turn.myTurn() ? "loading" : "none";
  app.dataset.moveNumber = String(g?.move_number ?? "");
  app.dataset.toMove = g && !g.over ? g.to_move : "";
  app.classList.toggle("spectator", !!v && v.seat === null);
  renderHeader();
  turn.renderBoard();
  renderPlayers($("players"), v);
  social.renderRoom(v, !!v && canManage(v), overlayActions.option);
  renderHistory($("history"), g, v?.you, BOARD.nations);
  turn.renderHand();
  turn.renderNationChoice();
  turn.renderMoveRow();
  renderHints();
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

/** The Hint button on your turn, but in a rated game, which gives no hints: a note says so instead. */
function renderHints() {
  const offered = turn.myTurn();
  const reading = ratedGame.of(state.view);  // (looked up from the game's start, not at your turn)
  const rated = reading === true;
  app.dataset.rated = reading === null ? "unknown" : rated ? "yes" : "no";
  $("hint-btn").hidden = !offered || rated;
  $("no-hints").hidden = !offered || !rated;
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
  turn.syncTurn();
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
      if (state.view?.room !== msg.view.room) {
        social.clearVote();
        ratedGame.reset();
      }
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
      if (id && id === state.sending) turn.answered(false);
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
        return turn.legalMoves(Number(id.slice(3)), msg.moves);
      }
      chat.addText(
        msg.moves.length
          ? [t("Legal moves ({n}):", { n: msg.moves.length }), ...msg.moves].join("\n")
          : t("No legal moves."),
      );
      return;
    case "hint":
      chat.add("notice", t("Hint: {move} ({points})", { move: msg.move, points: `${msg.points >= 0 ? "+" : ""}${msg.points}` }));
      return turn.showSuggestion(msg.move);
    case "text":
      if (msg.kind === "history") return chat.addGames(msg.text);
      return chat.addText(msg.text, `text ${msg.kind}`);
    case "rooms":
      state.rooms = msg.rooms;
      if (!state.view) askWho();
      if (id.startsWith("cmd")) chat.addText(roomsText(msg.rooms));
      return render();
    case "who":
      if (id.startsWith("lobby")) {
        state.people = msg.people;
        return render();
      }
      return chat.addText(whoText(msg.people));
    case "presence":
      return chat.add("presence", ChatPane.presenceLine(msg));
    case "chat":
      return chat.add("chat", msg.text, `${msg.name}:`, { name: msg.name });
    case "notice":
      social.askFriends();
      return chat.add("notice", msg.text);
    case "game_started":
      state.resultClosed = false;
      ratedGame.reset();
      return chat.add("event start", startLine(msg));
    case "played":
      return chat.add("event", playedLine(msg));
    case "eliminated":
      return chat.add("event", t("{name} is eliminated (place {place}).", { name: msg.player, place: msg.place }));
    case "game_over":
      return chat.add("event over", overLine(msg));
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
      return chat.addText(friendsText(msg.friends));
    case "invited":
      return chat.add(
        "notice",
        t("{name} invites you to room {room}: /room {room} goes there, or choose", { name: msg.name, room: msg.room }),
        null,
        { room: msg.room },
      );
    case "vote":
      social.onVote(msg);
      return chat.add("notice", voteLine(msg, state.name));
    case "analysis":
      return chat.add(
        "notice",
        msg.state === "queued"
          ? t("The analysis of game {game} is queued; you will be told when it is ready.", { game: msg.game })
          : t("The analysis of game {game} is ready: /games/{game} shows it.", { game: msg.game }),
      );
    default:
      return undefined;
  }
}

function onWelcome(msg) {
  identity.welcomed(msg);
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
  if (identity.refused(msg, id)) return;
  if (msg.code === "bad_room" || msg.code === "too_many_rooms") saved.set("cafe.room", null);
  if (id && id === state.sending) turn.answered(true);
  if (id && id === state.leaving) state.leaving = null;
  if (id.startsWith("tell")) social.onError(msg);
  if (msg.code === "no_hints" && state.view) ratedGame.refusedIn(state.view.room);
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

/** The connection's state and what came with it (seconds to the next try, why it is offline). */
const connectionState = { conn: "connecting", info: null };

/** Say the connection's state in the page's language (again after a change of language). */
function showConnection() {
  const { conn, info } = connectionState;
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
}

function onConnectionState(conn, info) {
  app.dataset.conn = conn;
  connectionState.conn = conn;
  connectionState.info = info;
  showConnection();
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
  onChair: (name, byKeyboard) => turn.chooseTarget(name, byKeyboard),
  onBar: (byKeyboard) => turn.chooseTarget("bar", byKeyboard),
});
const zoom = new BoardZoom({ app, wrap: $("board").parentElement, button: $("zoom-btn"), storage: saved, onChange: () => render() });
const turn = new MoveChooser({ state, nations: BOARD.nations, cafe, zoom, send, newId, render });

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
const ratedGame = new RatedGame({ onChange: () => render() });
const signal = new TurnSignal({ sound: $("sound-on"), notify: $("notify-on"), storage: saved });
const countdown = new Countdown($("clock"));

const scheme = location.protocol === "https:" ? "wss:" : "ws:";
const connection = new Connection(`${scheme}//${location.host}/ws`, {
  onOpen: () => {
    state.lastSeq = 0;
    identity.hello();
  },
  onMessage,
  onState: onConnectionState,
});
const identity = new Identity($("name-dialog"), { state, saved, send, newId, connection, chat });

$("confirm").addEventListener("click", () => turn.confirm());
$("cancel").addEventListener("click", () => turn.cancel());
$("hint-btn").addEventListener("click", () => send({ type: "hint", id: newId("ui") }));
$("reconnect").addEventListener("click", () => connection.connect());
function leaveRoom() {
  state.leaving = newId("ui");
  send({ type: "leave_room", id: state.leaving });
}

$("lobby-btn").addEventListener("click", () => {
  const words = leavingWords(state.view);
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
$("register-open").addEventListener("click", () => identity.ask("", "register"));
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") turn.escape();
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
  showConnection();
  render();
});
$("rules-link").href = `/rules?lang=${language()}`;

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) connection.retryNow();
});

render();
connection.connect();
