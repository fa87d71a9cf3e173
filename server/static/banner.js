// What the page says of its connection: the header's words, the Reconnect button, and the banner
// over a board that may be out of date (or closed because another tab took over).

import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

export class ConnectionBanner {
  /** `state`: the page's state (whose name and view decide what is offered). */
  constructor(state) {
    this.state = state;
    // the connection's state and what came with it (seconds to the next try, why it is offline)
    this.conn = "connecting";
    this.info = null;
  }

  /** The connection is now `conn` (with `info`): say so. */
  set(conn, info) {
    this.conn = conn;
    this.info = info;
    this.show();
  }

  /** Say the connection's state in the page's language (again after a change of language). */
  show() {
    const { conn, info, state } = this;
    const words = {
      connecting: t("connecting…"),
      connected: t("connected"),
      reconnecting: t("connection lost — retrying in {seconds}s", { seconds: info }),
      offline: t("offline: {why}", { why: info }),
      idle: t("not connected"),
      replaced: t("offline: another tab took over"),
      removed: t("offline: closed by the staff"),
    };
    $("conn-text").textContent = words[conn];
    $("reconnect").hidden = !state.name || !["offline", "reconnecting", "removed"].includes(conn);
    // a lost connection dims the board and says so; a second tab that took over offers it back
    const banner = $("banner");
    const lost = (conn === "reconnecting" || conn === "offline") && !!state.view;
    banner.hidden = !(lost || conn === "replaced" || conn === "removed");
    $("take-back").hidden = conn !== "replaced";
    $("banner-text").textContent =
      conn === "replaced"
        ? t("This page was closed because you opened the game in another tab or window.")
        : conn === "removed"
          ? t("The staff closed this connection: the chat says why, and until when.")
          : lost
            ? t("The connection is lost: the board may be out of date until it comes back.")
            : "";
  }
}
