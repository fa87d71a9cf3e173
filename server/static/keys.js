// The keyboard's shortcuts for a turn (1 to 9 choose a card, B the bar, Enter plays, Esc cancels,
// ? lists them), and the first game's guide: the rules in short, with a practice game one click away.

import { t } from "./i18n.js";

/** Whether a key pressed in `target` belongs to that control (a field, a list, a button). */
function typing(target) {
  const tag = target?.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || !!target?.isContentEditable;
}

export class Shortcuts {
  /** `turn` is the MoveChooser; `dialog` the <dialog> that lists the shortcuts (opened by ?). */
  constructor({ turn, dialog }) {
    this.turn = turn;
    this.dialog = dialog;
    document.addEventListener("keydown", (e) => this._key(e));
  }

  _key(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typing(e.target)) return;
    if (document.querySelector("dialog[open]")) return;
    const key = e.key;
    if (key === "?") {
      e.preventDefault();
      this.dialog.showModal();
      return;
    }
    if (/^[1-9]$/.test(key)) {
      if (this.turn.chooseByNumber(Number(key))) e.preventDefault();
      return;
    }
    if (key === "b" || key === "B") {
      if (this.turn.chooseBar()) e.preventDefault();
      return;
    }
    // Enter on a button or a link is that control's: elsewhere it plays the move chosen
    if (key === "Enter" && !e.target?.closest?.("button, a, [role=button], [role=tab]")) {
      if (this.turn.confirm()) e.preventDefault();
    }
  }
}

const GUIDE_KEY = "cafe.guide";

export class FirstGameGuide {
  /**
   * `box` is the guide's panel (its buttons carry data-guide="practice" and "close"); `storage`
   * remembers that it was closed; `practice()` starts a practice game against a bot.
   */
  constructor(box, { storage, practice }) {
    this.box = box;
    this.storage = storage;
    this.closed = storage.get(GUIDE_KEY) === "closed";
    box.querySelector("[data-guide=close]").addEventListener("click", () => {
      this.close();
      document.getElementById("input")?.focus();
    });
    box.querySelector("[data-guide=practice]").addEventListener("click", () => practice());
  }

  /** A newcomer is in: the guide shows until they close it (a registered player's browser keeps that). */
  welcomed() {
    this.closed = this.storage.get(GUIDE_KEY) === "closed";
  }

  close() {
    this.closed = true;
    this.storage.set(GUIDE_KEY, "closed");
    this.box.hidden = true;
  }

  /** Show the guide where it may be (`allowed`: in the lobby or a waiting room), unless closed. */
  render(allowed) {
    this.box.hidden = this.closed || !allowed;
    const link = this.box.querySelector("a[data-guide=rules]");
    if (link) link.textContent = t("The whole rules");
  }
}
