// The café on a phone: zoomed in, so that a chair is big enough for a thumb, the board scrolling
// inside its frame; a button shows the whole café instead. When a guest is chosen, the first
// place it may go is brought into the middle of the frame.

import { t } from "./i18n.js";

export class BoardZoom {
  /**
   * `app` carries `data-zoom` ("in" or "out") for the style sheet, `wrap` is the frame the board
   * scrolls in, `button` switches, `storage` remembers the choice ({get, set}).
   */
  constructor({ app, wrap, button, storage, onChange }) {
    this.app = app;
    this.wrap = wrap;
    this.button = button;
    this.storage = storage;
    this.shown = "";
    this.set(storage.get("cafe.zoom") !== "out");
    button.addEventListener("click", () => {
      this.set(app.dataset.zoom !== "in");
      onChange();
    });
  }

  set(zoom) {
    this.app.dataset.zoom = zoom ? "in" : "out";
    this.storage.set("cafe.zoom", zoom ? null : "out");
    this.label();
    this.shown = "";
  }

  /** The button's words, in the page's language. */
  label() {
    this.button.textContent = this.app.dataset.zoom === "in" ? t("Whole café") : t("Zoom in");
  }

  /** Whether the board is zoomed in now (only a narrow screen scrolls it in its frame). */
  zoomedIn() {
    return this.app.dataset.zoom === "in" && this.wrap.scrollWidth > this.wrap.clientWidth;
  }

  /** The places the chosen guest may go (`targets`, a Map) changed: show the first, `first`. */
  showTargets(targets, first) {
    const key = [...targets.keys()].join(" ");
    if (key === this.shown) return;
    this.shown = key;
    if (!first || !this.zoomedIn()) return;
    const box = first.getBoundingClientRect();
    const frame = this.wrap.getBoundingClientRect();
    this.wrap.scrollLeft += box.left + box.width / 2 - (frame.left + frame.width / 2);
    this.wrap.scrollTop += box.top + box.height / 2 - (frame.top + frame.height / 2);
  }
}
