// The web page: one connection, the room's view (a snapshot kept current with patches) and what
// the server's messages do to the page (messages.js). Its parts live in modules of their own: the
// café (board.js), your turn (turn.js), the chat (chat.js), the panels (panels.js), the name you
// come in with (account.js), friends and tells (social.js).

import { CafeBoard } from "./board.js";
import { FirstGameGuide, Shortcuts } from "./keys.js";
import { ChatPane, holdsPassword } from "./chat.js";
import { Connection } from "./connection.js";
import { Identity } from "./account.js";
import { BoardZoom } from "./zoom.js";
import { ConnectionBanner } from "./banner.js";
import { language, onLanguageChange, preferredLanguage, setLanguage, t, tn } from "./i18n.js";
import { saved } from "./storage.js";
import { Countdown, TurnSignal, renderHistory } from "./live.js";
import { canManage, leavingWords, renderOverlay, renderPlayers } from "./panels.js";
import { PeopleDialog } from "./profile.js";
import { SocialPane } from "./social.js";
import { PlayNow } from "./seek.js";
import { TournamentsPane } from "./tournaments.js";
import { MoveChooser } from "./turn.js";
import { Moderation } from "./moderation.js";
import { serverMessages } from "./messages.js";

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
  loadJson("/board.json"),
  loadJson("/commands.json"),
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
  botPlays: new Set(), // the players of this room's game whose seats a bot plays for now
  nextId: 1,
};

const app = $("app");
const banner = new ConnectionBanner(state);

// --- sending -------------------------------------------------------------------------------------

function newId(prefix) {
  state.nextId += 1;
  return `${prefix}-${state.nextId}`;
}

function send(msg) {
  if (!connection.send(msg)) {
    // a connection the server closed for good (replaced, kicked, flooding) is not tried again
    chat.add("error", connection.stopped ? t("Not connected: reload the page to connect again.") : t("Not connected: the page reconnects by itself."));
    return false;
  }
  return true;
}

function command(text) {
  const trimmed = text.trim();
  const name = /^\/(\S+)/.exec(trimmed)?.[1]?.toLowerCase();
  // a command is shown as typed (its passwords hidden); chat comes back from the server with the
  // name, once
  if (name) chat.add("mine", holdsPassword(trimmed) ? `/${name} ***` : trimmed);
  if (name === "quit") {
    logOut();
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
  // the room's name is the link to share: it opens the room to watch
  const roomName = $("room-name");
  if (!v) roomName.replaceChildren();
  else if (roomName.dataset.room !== v.room || roomName.dataset.lang !== language()) {
    const link = document.createElement("a");
    link.href = `/#${encodeURIComponent(v.room)}`;
    link.title = t("A link to watch this room");
    link.textContent = t("room {room}", { room: v.room });
    roomName.replaceChildren(link);
  }
  roomName.dataset.room = v?.room ?? "";
  roomName.dataset.lang = language();
  $("me").textContent = state.welcomed ? state.name : "";
  if (!state.welcomed) openMenu(false);
  $("register-open").hidden = !state.welcomed || state.registered;
  // (a seat in a running game is played first: the server would refuse a seek, already_playing)
  $("play-now").hidden = !state.welcomed || Boolean(g && !g.over && v?.seat != null);
  $("lobby-btn").hidden = !v;
  const label = $("turn");
  let said;
  if (!g) said = v ? t("waiting for players") : "";
  else if (g.over) said = t("game over");
  else if (mine) {
    // a clock of ten seconds or less has no warning from the server, so the turn says how long it has
    const clock = v.options?.clock;
    said =
      clock && clock <= 10
        ? tn("your turn: {n} second to move", "your turn: {n} seconds to move", clock)
        : t("your turn");
  } else said = t("{name}'s turn", { name: g.to_move });
  // the header's turn is read out as it changes (aria-live): written only then, not at each render
  if (label.textContent !== said) label.textContent = said;
  label.classList.toggle("mine", !!(g && !g.over && mine));
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
  renderPlayers($("players"), v, state.botPlays);
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
  guide.render(state.welcomed && (!v || v.state === "waiting"));
}

/** The Hint button on your turn, but in a rated game, which gives no hints: a note says so instead. */
function renderHints() {
  const offered = turn.myTurn();
  const game = turn.game();
  // the server's own reading, in the view
  const rated = !!state.view?.rated && !!game && !game.over;
  app.dataset.rated = rated ? "yes" : "no";
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
    // the focus goes to the button that brings the results back, not to the page's body
    $("results-btn").focus();
  },
};

/** Who is online, for the lobby: asked on arrival, when the room list changes (at most every 2 s)
 * and every 10 s while the lobby shows, so that people coming and going show without a room changing. */
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
const WHO_EVERY = 10_000;
setInterval(() => {
  if (state.welcomed && !state.view && !document.hidden) askWho();
}, WHO_EVERY);

/**
 * Log out: the server lets the name go (`/quit` revokes the token), and this browser forgets the
 * token, the name and the room, so that a reload asks for a name again. The welcome form opens.
 */
function logOut() {
  if (connection.isOpen()) connection.send({ type: "command", id: newId("cmd"), text: "/quit" });
  connection.close(t("you logged out"));
  for (const key of ["cafe.token", "cafe.name", "cafe.room"]) saved.set(key, null);
  history.replaceState(null, "", `${location.pathname}${location.search}`); // (nor the room's address)
  chat.forget(); // (the lines typed and read: the next person on this browser finds none of them)
  Object.assign(state, { name: null, token: null, registered: false, view: null, pending: null, registering: null });
  social.clearVote();
  chat.add("system", t("You are logged out on this browser."));
  onConnectionState("idle");
  identity.ask("", "", { fresh: true });
}

function onConnectionState(conn, info) {
  app.dataset.conn = conn;
  banner.set(conn, info);
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
const turn = new MoveChooser({ state, nations: BOARD.nations, board: BOARD, cafe, zoom, send, newId, render });

const social = new SocialPane({
  send,
  newId,
  me: () => (state.welcomed ? state.name : null),
  enter: (room) => overlayActions.enter(room, false),
});
new TournamentsPane({
  send,
  newId,
  me: () => (state.welcomed ? state.name : null),
  enter: (room) => overlayActions.enter(room, false),
});
// the staff's panel, and "Report" in a name's menu (moderation.js)
const moderation = new Moderation({
  send,
  newId,
  me: () => (state.welcomed ? state.name : null),
  say: (kind, text) => chat.add(kind, text),
});
const people = new PeopleDialog($("people-dialog"), {
  me: () => state.name,
  isFriend: (name) => social.isFriend(name),
  friend: (name, on) => social.setFriend(name, on),
  tell: (name) => social.tellTo(name),
  mute: (name, on) => social.mute(name, on),
  isMuted: (name) => social.isMuted(name),
  refresh: () => social.refresh(),
  report: (name) => moderation.report(name),
  moderate: (name) => (moderation.isStaff() ? () => moderation.open(name) : null),
  invite: (name) => (state.view && !state.view.seats.some((s) => s.name === name) ? () => social.invite(name) : null),
});
const guide = new FirstGameGuide($("guide"), {
  storage: saved,
  practice: () => {
    guide.close();
    seatWithBot();
  },
});
const signal = new TurnSignal({ sound: $("sound-on"), notify: $("notify-on"), storage: saved });
const countdown = new Countdown($("clock"));

const scheme = location.protocol === "https:" ? "wss:" : "ws:";
// "Play now": quick pairing (seek.js)
const playNow = new PlayNow({ button: $("play-now"), send, say: (kind, text) => chat.add(kind, text) });
const connection = new Connection(`${scheme}//${location.host}/ws`, {
  onOpen: () => {
    state.lastSeq = 0;
    playNow.reset();
    social.clearVote(); // (what the old connection showed: a vote running comes again on entering)
    identity.hello();
  },
  onMessage: (msg) => onMessage(msg),
  onState: onConnectionState,
});
const identity = new Identity($("name-dialog"), { state, saved, send, newId, connection, chat });
const onMessage = serverMessages({
  state,
  chat,
  turn,
  social,
  playNow,
  moderation,
  identity,
  guide,
  people,
  send,
  newId,
  resync,
  askWho,
  render,
});

$("confirm").addEventListener("click", () => turn.confirm());
$("logout-btn").addEventListener("click", () => logOut());
/** The header's menu under the name: the account's choices (and, on a phone, the header's settings). */
function openMenu(open) {
  $("me").setAttribute("aria-expanded", String(open));
  $("account").hidden = !open;
  app.dataset.menu = open ? "open" : "";
}
$("me").addEventListener("click", () => openMenu($("account").hidden));
document.addEventListener("click", (e) => {
  if (!$("account").hidden && !e.target.closest?.(".account-wrap, .top .signals, .top .lang")) openMenu(false);
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !$("account").hidden) {
    openMenu(false);
    $("me").focus();
  }
});
$("switch-btn").addEventListener("click", () => logOut());
$("skip-hand").addEventListener("click", (e) => {
  e.preventDefault();
  turn.focusHand();
});
new Shortcuts({ turn, dialog: $("keys-dialog") });

/** A practice game against a bot, one click away: a room of one's own, a bot, a chosen seed. */
function seatWithBot() {
  const room = `practice-${state.name}`.slice(0, 24);
  // one after the other in the room's order: a seat, a bot, a seed of the room's (practice), the start
  send({ type: "join", room, id: newId("ui") });
  send({ type: "add_bot", strategy: "greedy", id: newId("ui") });
  send({ type: "option", key: "seed", value: Math.floor(Math.random() * 1e9), id: newId("ui") });
  send({ type: "start", id: newId("ui") });
}
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
  const link = e.target.closest?.("a[data-room], button[data-join]");
  if (!link) return;
  e.preventDefault();
  if (!state.welcomed) return;
  if (link.dataset.join) overlayActions.enter(link.dataset.join, true);
  else overlayActions.enter(link.dataset.room, false);
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
  playNow.render();
  cafe.relabel();
  social.relabel();
  moderation.relabel();
  chat.relabel();
  banner.show();
  render();
});
$("rules-link").href = `/rules?lang=${language()}`;

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) connection.retryNow();
});

render();
// a newcomer reads the welcome form first: the socket opens when they choose (the server closes a
// connection that says no hello within its time)
if (state.token || state.name) connection.connect();
else {
  onConnectionState("idle");
  identity.ask("");
}
