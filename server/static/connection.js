// The WebSocket to the server: JSON messages both ways, and reconnection after a drop with a
// growing pause (the page then says hello again with its resume token).

import { t } from "./i18n.js";

const PAUSES = [500, 1000, 2000, 4000, 8000];
const CLOSE_REPLACED = 1008; // the server closed us because the same name connected elsewhere

export class Connection {
  /**
   * `onOpen()` when connected, `onMessage(msg)` for each server message, `onState(state, info)`
   * with state "connecting", "connected", "reconnecting" (info: seconds until the next try) or
   * "offline" (info: why; no automatic retry).
   */
  constructor(url, { onOpen, onMessage, onState }) {
    this.url = url;
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onState = onState;
    this.socket = null;
    this.failures = 0;
    this.timer = null;
    this.stopped = false;
    window.addEventListener("online", () => this.retryNow());
    // The browser knows the network is gone before the socket does (a socket on a dead network
    // may look open for minutes): the connection is lost now.
    window.addEventListener("offline", () => this.lost());
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) return;
    this.onState("connecting");
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.onState("connected");
      this.onOpen();
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(msg);
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (event.code === CLOSE_REPLACED) {
        this.stopped = true;
        const replaced = event.reason === "replaced";
        // the staff's kick or ban closes with its kind; the `bye` before it said why and until when
        const removed = event.reason === "kick" || event.reason === "ban";
        this.onState(replaced ? "replaced" : removed ? "removed" : "offline", event.reason || t("closed by the server"));
        return;
      }
      this._schedule();
    });
  }

  /** The connection worked (the server welcomed us): the next drop starts with a short pause. */
  settled() {
    this.failures = 0;
  }

  _schedule() {
    const pause = PAUSES[Math.min(this.failures, PAUSES.length - 1)];
    this.failures += 1;
    this.onState("reconnecting", Math.ceil(pause / 1000));
    this.timer = setTimeout(() => this.connect(), pause);
  }

  /** Give up the socket as lost (unless closed on purpose) and reconnect with the usual pauses. */
  lost() {
    const socket = this.socket;
    if (this.stopped || !socket) return;
    this.socket = null;
    socket.close();
    this._schedule();
  }

  /** Try at once if waiting to reconnect. */
  retryNow() {
    if (this.timer !== null) this.connect();
  }

  /** Whether the socket is open, so that a message sent now goes out. */
  isOpen() {
    return !!this.socket && this.socket.readyState === WebSocket.OPEN;
  }

  /** Send a message; false when not connected. */
  send(msg) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(msg));
    return true;
  }

  /** Close and stay closed (until connect()). */
  close(reason = t("you closed the connection")) {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close(1000);
    this.onState("offline", reason);
  }
}
