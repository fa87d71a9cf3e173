// What the server's messages do to the page: the room's view kept current (a snapshot, then its
// patches), the chat's lines, the parts' answers, and the moves the server played for a player.
// The page (app.js) makes it once it has its parts, and hands it every message.

import { ChatPane, friendsText, overLine, playedLine, roomsText, startLine, voteLine, whoText } from "./chat.js";
import { t } from "./i18n.js";
import { applyPatch } from "./patch.js";
import { saved } from "./storage.js";

/** The handler of the server's messages, on the page's `state` and parts. */
export function serverMessages(parts) {
  const { state, chat, turn, social, playNow, moderation, identity, guide, people } = parts;
  const { send, newId, resync, askWho, render } = parts;
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
    // the room's latest chat comes right after its snapshot: lines this tab shows already are not shown twice
    if (msg.type !== "chat") state.catchingUp = msg.type === "snapshot";
    if (playNow.onMessage(msg)) return render();
    if (moderation.onMessage(msg)) return undefined;
    switch (msg.type) {
      case "welcome":
        return onWelcome(msg);
      case "snapshot":
        if (state.view?.room !== msg.view.room) {
          state.botPlays = new Set();
          social.clearVote();
        }
        state.view = msg.view;
        keepRoom(msg.view.room);
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
        if (id.startsWith("soc")) social.onListAck(id);
        if (id.startsWith("inv")) {
          const invited = social.invitedAck(id);
          if (invited) chat.add("notice", t("{name} is invited to room {room}.", { name: invited, room: state.view?.room ?? "" }));
        }
        if (id && id === state.sending) turn.answered(false);
        if (id && id === state.leaving) {
          state.leaving = null;
          toLobby();
        }
        return render();
      case "room_closed":
        // the staff closed the room (the notice before said so): the page is in the lobby again
        if (state.view && state.view.room.toLowerCase() === msg.room.toLowerCase()) toLobby();
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
        // whose seat a bot plays (after a vote, a lost connection, the clock): not "away"
        if (msg.event === "replaced_by_bot") state.botPlays.add(msg.name);
        else if (msg.event === "back" || msg.event === "joined") state.botPlays.delete(msg.name);
        chat.add("presence", ChatPane.presenceLine(msg));
        return render();
      case "chat":
        if (state.catchingUp && chat.shows("chat", `${msg.name}:`, msg.text)) return undefined;
        return chat.add("chat", msg.text, `${msg.name}:`, { name: msg.name });
      case "notice":
        social.askFriends();
        return chat.add("notice", msg.text);
      case "game_started":
        state.resultClosed = false;
        state.botPlays = new Set();
        chat.add("event start", startLine(msg));
        // what `cafe-engine verify --seed-hash` checks the revealed seed against, once it is over
        if (msg.seed_hash) chat.add("event", t("Shuffle fingerprint, sha256(seed): {hash}", { hash: msg.seed_hash }));
        return;
      case "played":
        return chat.add("event", playedLine(msg));
      case "eliminated":
        return chat.add("event", t("{name} is eliminated (place {place}).", { name: msg.player, place: msg.place }));
      case "game_over":
        chat.add("event over", overLine(msg));
        return render();
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
          { room: msg.room, seat: true },
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
    const was = state.name;
    identity.welcomed(msg);
    guide.welcomed();
    const first = !state.welcomed;
    state.welcomed = true;
    moderation.welcomed();
    if (!first) {
      // (a new token alone, after a new password, changes nobody)
      if (msg.name !== was) chat.add("system", t("You are now {name}.", { name: msg.name }));
      return render();
    }
    social.askFriends();
    chat.add(
      "system",
      msg.resumed ? t("Welcome back, {name}.", { name: msg.name }) : t("Welcome, {name}. Type /help for the commands.", { name: msg.name }),
    );
    // a shared link (…/#room) goes before the room this browser was in last
    const room = roomInAddress() || saved.get("cafe.room");
    // (a name's alone, as the server serves the page for no other: the dialog shows what the
    // address says, which a link could make anything)
    const profile = /^\/players\/([A-Za-z][A-Za-z0-9_-]{0,15})$/.exec(location.pathname)?.[1];
    if (profile) people.showPlayer(profile);
    if (room) send({ type: "enter_room", room, id: newId("ui") });
    else {
      send({ type: "list_rooms", id: newId("ui") });
      askWho();
    }
    render();
  }

  /** Out of the room, into the lobby: its list and its people asked again. */
  function toLobby() {
    state.view = null;
    social.clearVote();
    keepRoom(null);
    send({ type: "list_rooms", id: newId("ui") });
    askWho();
  }

  /** The room this tab is in, kept for a reload and shown in the page's address (…/#cafe: the
   * address to share, which opens the room to watch); `null` in the lobby. */
  function keepRoom(room) {
    saved.set("cafe.room", room);
    const hash = room ? `#${encodeURIComponent(room)}` : "";
    if (location.hash !== hash) history.replaceState(null, "", `${location.pathname}${location.search}${hash}`);
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
    if (msg.code === "bad_room" || msg.code === "too_many_rooms") keepRoom(null);
    if (id && id === state.sending) turn.answered(true);
    if (id && id === state.leaving) state.leaving = null;
    if (id.startsWith("tell")) social.onError(msg);
    const line = chat.add("error", msg.message);
    line.title = msg.code;
    render();
  }

  return onMessage;
}
