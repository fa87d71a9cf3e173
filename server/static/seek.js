// "Play now": quick pairing from the page. The button sends `seek` (any size, rated if the name
// is registered, the server's clock) and, while the server looks for a table, `unseek`; the
// server's `seeking` and `seated` say where things stand, and the table's room comes by itself.

import { t } from "./i18n.js";

/** Milliseconds of seeking alone after which the page says how to play the server's bots. */
const LONELY = 30_000;

export class PlayNow {
  /** `button` the header's button; `send(msg)` sends a message; `say(kind, text)` a chat line. */
  constructor({ button, send, say }) {
    this.button = button;
    this.send = send;
    this.say = say;
    this.seeking = false;
    this.pending = null; // the id of a seek or unseek not answered yet
    this.count = 0;
    this.lonely = null; // the timer of the word on playing the bots, while seeking
    button.addEventListener("click", () => this.toggle());
    this.render();
  }

  toggle() {
    this.count += 1;
    this.pending = `seek-${this.count}`;
    this.send({ type: this.seeking ? "unseek" : "seek", id: this.pending });
  }

  /** A message from the server; whether it was this part's. */
  onMessage(msg) {
    if (msg.type === "seeking") {
      this.seeking = true;
      this.pending = null;
      this.say("notice", t("Looking for a game: a table is made as soon as enough people wait."));
      clearTimeout(this.lonely);
      this.lonely = setTimeout(() => {
        if (this.seeking) this.say("notice", t("Nobody else is looking for a game just now. Keep waiting, or type /seek bots to play the server's bots."));
      }, LONELY);
    } else if (msg.type === "seated") {
      this.seeking = false;
      this.say("notice", t("Your table is ready in room {room}.", { room: msg.room }));
    } else if (msg.type === "ack" && msg.id && msg.id === this.pending) {
      this.seeking = false; // the answer to unseek
      this.pending = null;
    } else if (msg.type === "error" && msg.id && msg.id === this.pending) {
      this.pending = null;
      return false; // (the page shows the error as any other)
    } else return false;
    this.render();
    return true;
  }

  /** The connection was lost: the server ended the seek. */
  reset() {
    this.seeking = false;
    this.pending = null;
    this.render();
  }

  render() {
    if (!this.seeking) clearTimeout(this.lonely);
    this.button.textContent = this.seeking ? t("Stop seeking") : t("Play now");
    this.button.setAttribute("aria-pressed", String(this.seeking));
  }
}
