// Talking to people beyond the room: the tells (private messages, in a tab beside the chat), the
// friends list with who is online, the room's own tools (an invitation, the private switch), and
// the prompt of a vote on a seat, with buttons to accept or refuse.

import { t, tn } from "./i18n.js";
import { el } from "./dom.js";
import { nameButton } from "./profile.js";

const $ = (id) => document.getElementById(id);
const MAX_TELLS = 200;
const FRIENDS_EVERY = 30_000;
/** how long the reader's click on the private switch holds against the room's view, which says it
 * once the room took it (a render for anything else meanwhile would undo the click) */
const ASKED_HOLDS = 5_000;

/**
 * The form a name is compared by, as the server's (`protocol.names.alike`): names of one form look
 * alike, and the server holds them as one name (`i I l L 1` are `l`, `o O 0` are `o`, `m M` are
 * `rn`), so muting `miaa` mutes `rniaa` and `m1aa` too.
 */
export function alike(name) {
  return name.toLowerCase().replace(/[i1]/g, "l").replace(/0/g, "o").replace(/m/g, "rn");
}

function whereText(friend) {
  if (!friend.online) return t("offline");
  if (friend.room) return t("in room {room}", { room: friend.room });
  return friend.private ? t("in a private room") : t("in the lobby");
}

export class SocialPane {
  /**
   * `send(msg)` sends a message (false when not connected), `newId(prefix)` makes an id, `me()`
   * is the reader's name, `enter(room)` goes to a room.
   */
  constructor({ send, newId, me, enter }) {
    this.send = send;
    this.newId = newId;
    this.me = me;
    this.enter = enter;
    this.friends = [];
    this.invites = new Map();
    /** the names the reader mutes, in lower case, as the server's `friends` answer says (mutes made
     * at a terminal or in another browser too) */
    this.muted = new Set();
    /** the promises waiting for the next `friends` answer (refresh) */
    this.waiting = [];
    this.unread = 0;
    /** the private switch as the reader set it, until the room's view says so: {room, value, at} */
    this.privateAsked = null;
    this.lastFrom = null;
    this.vote = null;
    this.tabs = [...document.querySelectorAll('.chat-pane [role="tab"]')];
    for (const tab of this.tabs) {
      tab.addEventListener("click", () => this.select(tab.id));
      tab.addEventListener("keydown", (e) => this._tabKey(e, tab));
    }
    $("tell-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this._sendTell();
    });
    $("friend-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const name = $("friend-name").value.trim();
      if (name) this.setFriend(name, true);
      $("friend-name").value = "";
    });
    $("invite-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const name = $("invite-name").value.trim();
      if (name) this.invite(name);
      $("invite-name").value = "";
    });
    $("vote-yes").addEventListener("click", () => this._answer(true));
    $("vote-no").addEventListener("click", () => this._answer(false));
    setInterval(() => this.askFriends(), FRIENDS_EVERY);
  }

  // --- tabs ---

  /** Show the tab `id` ("tab-chat", "tab-tells" or "tab-friends"). */
  select(id) {
    for (const tab of this.tabs) {
      const on = tab.id === id;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      $(tab.getAttribute("aria-controls")).hidden = !on;
    }
    if (id === "tab-tells") {
      this.unread = 0;
      this._showUnread();
    }
    if (id === "tab-friends") this.askFriends();
  }

  _tabKey(e, tab) {
    const i = this.tabs.indexOf(tab);
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = this.tabs[(i + step + this.tabs.length) % this.tabs.length];
    this.select(next.id);
    next.focus();
  }

  _selected(id) {
    return $(id).getAttribute("aria-selected") === "true";
  }

  _showUnread() {
    const badge = $("tells-unread");
    badge.hidden = this.unread === 0;
    badge.textContent = String(this.unread);
    $("tab-tells").setAttribute("aria-label", this.unread ? t("Tells, {n} new", { n: this.unread }) : t("Tells"));
  }

  // --- tells ---

  /** Open the tells with `name` filled in as the one to tell. */
  tellTo(name) {
    this.select("tab-tells");
    $("tell-to").value = name;
    $("tell-text").focus();
  }

  _sendTell() {
    const name = $("tell-to").value.trim();
    const text = $("tell-text").value.trim();
    if (!name || !text) {
      $("tell-status").textContent = name ? t("Write something to tell.") : t("Whom to tell? Give a name.");
      (name ? $("tell-text") : $("tell-to")).focus();
      return;
    }
    if (this.send({ type: "tell", name, text, id: this.newId("tell") })) {
      $("tell-text").value = "";
      $("tell-status").textContent = "";
    }
  }

  /** A tell arrived (to the reader) or came back (the reader's own, as the server's answer). */
  onTell(msg) {
    const mine = msg.name.toLowerCase() === (this.me() ?? "").toLowerCase();
    const other = mine ? msg.to : msg.name;
    const item = el(
      "li",
      { class: mine ? "tell mine" : "tell", "data-from": msg.name, "data-to": msg.to },
      el("span", { class: "tell-head" }, mine ? t("to") : t("from"), " ", nameButton(other), ":"),
      " ",
      el("span", { class: "tell-text" }, msg.text),
    );
    if (!mine) {
      this.lastFrom = msg.name;
      item.append(" ", el("button", { type: "button", class: "small reply", onclick: () => this.tellTo(msg.name) }, t("Reply")));
      if (!$("tell-to").value) $("tell-to").value = msg.name;
      if (!this._selected("tab-tells")) {
        this.unread += 1;
        this._showUnread();
      }
    }
    const list = $("tells");
    $("tells-none").hidden = true;
    list.append(item);
    while (list.childElementCount > MAX_TELLS) list.firstElementChild.remove();
    list.scrollTop = list.scrollHeight;
  }

  /** An error answering a tell sent from the pane, shown beside it. */
  onError(msg) {
    $("tell-status").textContent = msg.message;
  }

  // --- friends ---

  askFriends() {
    if (this.me()) this.send({ type: "friends", id: this.newId("soc") });
  }

  isFriend(name) {
    return this.friends.some((f) => f.name.toLowerCase() === name.toLowerCase());
  }

  setFriend(name, on) {
    this.send({ type: "list", action: on ? "friend" : "unfriend", name, id: this.newId("soc") });
  }

  /** Mute `name` (or, with `on` false, unmute): their chat and tells no longer reach you, nor
   * those of a name that looks like it. */
  mute(name, on = true) {
    const key = alike(name);
    if (on) this.muted.add(key);  // (until the server's answer, which asks the lists again)
    else this.muted.delete(key);
    this.send({ type: "list", action: on ? "mute" : "unmute", name, id: this.newId("soc") });
  }

  /** Ask the server for the lists again: resolves once they came (or after two seconds). */
  refresh() {
    if (!this.me()) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      setTimeout(resolve, 2000);
      this.askFriends();
    });
  }

  isMuted(name) {
    return this.muted.has(alike(name));
  }

  /** The answer to an edit of a list (its id from here): the friends as they are now. */
  onListAck() {
    this.askFriends();
  }

  onFriends(msg) {
    this.friends = msg.friends;
    this.muted = new Set((msg.muted ?? []).map(alike));
    for (const resolve of this.waiting.splice(0)) resolve();
    this.friendsShown = msg;
    const list = $("friends");
    list.replaceChildren(
      ...msg.friends.map((f) =>
        el(
          "li",
          { class: f.online ? "friend online" : "friend", "data-friend": f.name },
          el("span", { class: "dot", "aria-hidden": "true" }),
          nameButton(f.name),
          el("span", { class: "where" }, whereText(f)),
          f.online && f.room ? el("button", { type: "button", class: "small", onclick: () => this.enter(f.room) }, t("Go to {room}", { room: f.room })) : null,
          el("button", { type: "button", class: "small", "aria-label": t("Unfriend {name}", { name: f.name }), onclick: () => this.setFriend(f.name, false) }, t("Unfriend")),
        ),
      ),
    );
    $("friends-none").hidden = msg.friends.length > 0;
    const online = msg.friends.filter((f) => f.online).length;
    $("tab-friends").textContent = online ? t("Friends ({n} online)", { n: online }) : t("Friends");
  }

  // --- the room: invitations and the private switch ---

  /** Invite `name` to the room; its answer (`ack`) is told to the inviter by invitedAck. */
  invite(name) {
    const id = this.newId("inv");
    this.invites.set(id, name);
    this.send({ type: "invite", name, id });
  }

  /** The name an invitation with `id` went to, once the server took it; else null. */
  invitedAck(id) {
    const name = this.invites.get(id) ?? null;
    this.invites.delete(id);
    return name;
  }

  /** Show the room's tools for `view`; `manage` says whether the reader may set its options. */
  renderRoom(view, manage, setOption) {
    const box = $("room-tools");
    box.hidden = !view;
    if (!view) return;
    this.shown = [view, manage, setOption];  // (drawn again when a click's hold runs out)
    const secret = $("opt-private");
    const shown = !!view.options?.private;
    const asked = this.privateAsked;
    const holds = !!asked && asked.room === view.room && asked.value !== shown && Date.now() - asked.at < ASKED_HOLDS;
    if (!holds) this.privateAsked = null;
    secret.checked = holds ? asked.value : shown;
    // a private game stays private to its end: the room turns public once it is over
    secret.disabled = !manage || (shown && view.state === "playing");
    secret.onchange = () => {
      this.privateAsked = { room: view.room, value: secret.checked, at: Date.now() };
      setOption("private", secret.checked);
      // refused, the room says nothing new: the switch shows the room's view again after the hold
      setTimeout(() => this.shown && this.renderRoom(...this.shown), ASKED_HOLDS + 50);
    };
  }

  // --- votes ---

  /** A vote of the room opened, changed or ended: the prompt shows it while it is open. */
  onVote(vote) {
    this.vote = vote.state === "open" ? vote : null;
    const box = $("vote");
    if (!this.vote) {
      box.hidden = true;
      return;
    }
    const me = this.me();
    const answered = vote.yes.includes(me) || vote.no.includes(me);
    const asked = vote.voters.includes(me) && !answered;
    const params = { by: vote.by, name: vote.name, seat: vote.seat, yes: vote.yes.length, no: vote.no.length };
    $("vote-text").textContent = vote.kind === "join"
      ? t("{by} asks to take over seat {seat} ({name}): {yes} yes, {no} no.", params)
      : t("{by} asks to take {name} (seat {seat}) out of the game: {yes} yes, {no} no.", params);
    $("vote-yes").hidden = !asked;
    $("vote-no").hidden = !asked;
    box.hidden = false;
  }

  /** Draw again what this pane wrote in the page's words (the language changed). */
  relabel() {
    this._showUnread();
    if (this.friendsShown) this.onFriends(this.friendsShown);
    if (this.vote) this.onVote(this.vote);
  }

  /** Forget the room's vote (the reader left the room). */
  clearVote() {
    this.vote = null;
    $("vote").hidden = true;
  }

  _answer(yes) {
    if (this.vote) this.send({ type: "answer", yes, id: this.newId("soc") });
  }
}
