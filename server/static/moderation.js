// Keeping the peace from the page: "Report" in a name's menu for everyone (a reason asked, the
// report sent, a thank-you), and for the staff (whose role the server says in `who`: asked with
// `whereis` of one's own name) a moderation panel: the people connected with one-click kick,
// silence and ban, a name's unban and unsilence, the open reports with their chat, and the log.
// The server checks every right again; the page only leaves out what would be refused.

import { t } from "./i18n.js";
import { el } from "./dom.js";
import { nameButton } from "./profile.js";

const $ = (id) => document.getElementById(id);
const DURATIONS = ["30m", "2h", "1d", "7d", "perm"];
/** the least time between two askings of one's role (a notice may say it changed) */
const ROLE_EVERY = 2000;

function when(seconds) {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ");
}

/** `name` as a list shows it: `@name` for the staff. */
export function staffMark(person) {
  return person.role ? `@${person.name}` : person.name;
}

export class Moderation {
  /**
   * `send(msg)` sends a message, `newId(prefix)` makes an id, `me()` is the reader's name (null
   * before the welcome), `say(kind, text)` writes a line in the chat.
   */
  constructor({ send, newId, me, say }) {
    this.send = send;
    this.newId = newId;
    this.me = me;
    this.say = say;
    this.role = null;
    this.roleAsked = 0;
    this.roleTimer = null;
    this.pending = new Map(); // id -> what it asked: "me", "who", "reports", "modlog", "act", "report"
    this.people = [];
    this.reports = [];
    this.entries = [];
    this.status = "";
    this.reporting = null; // the name being reported
    this._build();
  }

  /** Whether the reader is staff, as the server last said. */
  isStaff() {
    return this.role === "admin" || this.role === "moderator";
  }

  // --- the page's parts, made once ------------------------------------------------------------

  _build() {
    this.button = el("button", { id: "mod-open", class: "small", type: "button", hidden: true, onclick: () => this.open() });
    $("people-btn")?.before(this.button);
    this.dialog = el("dialog", { id: "mod-dialog", class: "name-dialog mod-dialog", "aria-labelledby": "mod-title" });
    this.body = el("div", { id: "mod-body" });
    this.closer = el("button", { type: "submit", value: "close" });
    this.dialog.append(this.body, el("form", { method: "dialog", class: "row" }, this.closer));
    this.reportDialog = el("dialog", { id: "report-dialog", class: "name-dialog", "aria-labelledby": "report-title" });
    $("app").append(this.dialog, this.reportDialog);
    this.relabel();
  }

  /** Write the page's words again (the language changed). */
  relabel() {
    this.button.textContent = t("Moderation");
    this.closer.textContent = t("Close");
    if (this.dialog.open) this.render();
    if (this.reportDialog.open && this.reporting) this._reportForm(this.reporting, this.reportThanked);
  }

  // --- what the server says -------------------------------------------------------------------

  /** After a welcome: ask the server for the reader's role. */
  welcomed() {
    this.role = null;
    this._showButton();
    this.askRole();
  }

  /** Ask `whereis` of oneself: the `who` answer carries one's role. */
  askRole() {
    const me = this.me();
    if (!me) return;
    const wait = this.roleAsked + ROLE_EVERY - Date.now();
    if (wait > 0) {
      // asked a moment ago: once more when the time is up (the notice may have come after it)
      this.roleTimer ??= setTimeout(() => {
        this.roleTimer = null;
        this.askRole();
      }, wait);
      return;
    }
    this.roleAsked = Date.now();
    this._ask({ type: "whereis", name: me }, "me");
  }

  _ask(msg, what) {
    const id = this.newId("mod");
    this.pending.set(id, what);
    return this.send({ ...msg, id });
  }

  /** Take the server's message if it answers this part (returns true), or look at it in passing. */
  onMessage(msg) {
    const id = typeof msg.id === "string" ? msg.id : "";
    const what = this.pending.get(id);
    if (msg.type === "notice" && !msg.room) {
      // a role given or taken, a new report, an action's result: read again what may have changed
      if ([...this.pending.values()].includes("act")) this._say(msg.text);
      this.askRole();
      if (this.dialog.open) this.refresh();
      return false;
    }
    if (!what) {
      // `/reports` or `/modlog` typed in the chat: their answer opens the panel
      if ((msg.type === "reports" || msg.type === "modlog") && this.isStaff()) {
        if (msg.type === "reports") this.reports = msg.reports;
        else this.entries = msg.entries;
        this.open("", msg.type);
        return true;
      }
      return false;
    }
    this.pending.delete(id);
    if (msg.type === "error") return this._refused(what, msg);
    if (what === "me" && msg.type === "who") {
      const self = msg.people.find((p) => p.name.toLowerCase() === (this.me() ?? "").toLowerCase());
      this.role = self?.role ?? null;
      this._showButton();
      return true;
    }
    if (what === "who" && msg.type === "who") {
      this.people = msg.people;
      this._renderPeople();
      return true;
    }
    if (what === "reports" && msg.type === "reports") {
      this.reports = msg.reports;
      this._renderReports();
      return true;
    }
    if (what === "modlog" && msg.type === "modlog") {
      this.entries = msg.entries;
      this._renderLog();
      return true;
    }
    if (msg.type === "ack" && what === "act") {
      this.refresh();
      return true;
    }
    if (msg.type === "ack" && what === "report") {
      this._reportThanks();
      return true;
    }
    return true;
  }

  _refused(what, msg) {
    if (what === "me") return true;
    if (what === "report") {
      const status = $("report-status");
      if (status) status.textContent = msg.message;
      return true;
    }
    if (msg.code === "not_staff") {
      this.role = null;
      this._showButton();
    }
    this._say(msg.message, true);
    return true;
  }

  _showButton() {
    const staff = this.isStaff() && !!this.me();
    this.button.hidden = !staff;
    if (!staff && this.dialog.open) this.dialog.close();
  }

  _say(text, error = false) {
    this.status = text;
    const line = $("mod-status");
    if (!line) return;
    line.textContent = text;
    line.className = error ? "error-text" : "mod-said";
  }

  // --- the panel ------------------------------------------------------------------------------

  /** Open the panel (with `name` filled in as the one to act on; `kept`: the part just read). */
  open(name = "", kept = null) {
    if (!this.isStaff()) return;
    this.render();
    if (name) $("mod-name").value = name;
    if (!this.dialog.open) this.dialog.showModal();
    $("mod-title").focus();
    this.refresh(kept);
  }

  /** Ask for the people, the open reports and the log again (but the part `kept`). */
  refresh(kept = null) {
    this._ask({ type: "who" }, "who");
    if (kept !== "reports") this._ask({ type: "reports" }, "reports");
    if (kept !== "modlog") this._ask({ type: "modlog" }, "modlog");
  }

  _act(action, name, duration = null) {
    // the reason chosen above is a kick's, a silence's or a ban's: an unban or unsilence by name
    // gives none (else the log would keep one given for another action, or another person)
    const reason = action.startsWith("un") ? "" : $("mod-reason").value.trim();
    const msg = { type: "moderate", action, name, reason };
    if (action === "ban" || action === "silence") msg.duration = duration ?? $("mod-duration").value;
    this._say(t("Sending…"));
    this._ask(msg, "act");
  }

  render() {
    const duration = el(
      "select",
      { id: "mod-duration", title: t("How long a silence or ban lasts") },
      ...DURATIONS.map((d) => el("option", { value: d }, d === "perm" ? t("for good") : d)),
    );
    duration.value = $("mod-duration")?.value ?? "1d";
    const reason = el("input", { id: "mod-reason", maxlength: "200", autocomplete: "off", placeholder: t("reason"), "aria-label": t("Reason for an action") });
    reason.value = $("mod-reason")?.value ?? "";
    const name = el("input", { id: "mod-name", maxlength: "16", autocomplete: "off", placeholder: t("name"), "aria-label": t("Name to act on") });
    name.value = $("mod-name")?.value ?? "";
    const byName = (action) =>
      el("button", { type: "button", class: "small", "data-mod": action, onclick: () => name.value.trim() && this._act(action, name.value.trim()) }, this._word(action));
    this.body.replaceChildren(
      el("h2", { id: "mod-title", tabindex: "-1" }, t("Moderation")),
      el("p", { id: "mod-status", class: "mod-said", role: "status", tabindex: "-1" }, this.status),
      el("div", { class: "row mod-how" }, el("label", { for: "mod-duration" }, t("Duration")), duration, reason),
      el("h3", {}, t("People connected")),
      el("ul", { id: "mod-people", class: "mod-people" }),
      el("form", { class: "row mod-by-name", onsubmit: (e) => e.preventDefault() }, name, ...["kick", "silence", "ban", "unsilence", "unban"].map(byName)),
      el("h3", {}, t("Open reports")),
      el("ul", { id: "mod-reports", class: "mod-reports" }),
      el("h3", {}, t("Moderation log")),
      el("ul", { id: "mod-log", class: "mod-log" }),
    );
    this._renderPeople();
    this._renderReports();
    this._renderLog();
  }

  _word(action) {
    return {
      kick: t("Kick"),
      silence: t("Silence"),
      ban: t("Ban"),
      unsilence: t("Unsilence"),
      unban: t("Unban"),
    }[action];
  }

  /** Kick, silence and ban `name`, one click each, labelled for a screen reader with the name. */
  _buttons(name) {
    return ["kick", "silence", "ban"].map((action) =>
      el(
        "button",
        {
          type: "button",
          class: "small",
          "data-mod": action,
          "aria-label": {
            kick: t("Kick {name}", { name }),
            silence: t("Silence {name}", { name }),
            ban: t("Ban {name}", { name }),
          }[action],
          onclick: () => this._act(action, name),
        },
        this._word(action),
      ),
    );
  }

  /** Draw `list` again with `draw`, the keyboard kept where it was: on the same button of the same
   * person or report when it is still there, else (the person gone, the report resolved) on the
   * panel's status line, which says what was done. */
  _redraw(list, draw) {
    const focused = list.contains(document.activeElement) ? document.activeElement : null;
    const whose = (node) => {
      const row = node.closest("li[data-person], li[data-report]");
      return row ? `${row.dataset.person ?? ""}#${row.dataset.report ?? ""}` : null;
    };
    const before = focused && [whose(focused), focused.dataset.mod];
    draw();
    if (!focused) return;
    const again = [...list.querySelectorAll("[data-mod]")].find(
      (b) => before[0] !== null && whose(b) === before[0] && b.dataset.mod === before[1],
    );
    (again ?? $("mod-status"))?.focus();
  }

  _renderPeople() {
    const list = $("mod-people");
    if (!list) return;
    this._redraw(list, () => this._drawPeople(list));
  }

  _drawPeople(list) {
    const me = (this.me() ?? "").toLowerCase();
    const people = this.people.filter((p) => p.kind !== "bot" && p.name.toLowerCase() !== me);
    list.replaceChildren(
      ...people.map((p) =>
        el(
          "li",
          { "data-person": p.name },
          el("span", { class: "mod-who" }, staffMark(p), p.guest ? t(" (guest)") : "", p.room ? ` — ${p.room}` : ""),
          ...(p.role ? [] : this._buttons(p.name)),
        ),
      ),
    );
    if (!people.length) list.append(el("li", { class: "small-print" }, t("Nobody else is connected.")));
  }

  _renderReports() {
    const list = $("mod-reports");
    if (!list) return;
    this._redraw(list, () => this._drawReports(list));
  }

  _drawReports(list) {
    list.replaceChildren(
      ...this.reports.map((r) => {
        const note = el("input", { maxlength: "200", autocomplete: "off", placeholder: t("note"), "aria-label": t("Note on report #{id}", { id: r.id }) });
        return el(
          "li",
          { "data-report": String(r.id), "data-name": r.name },
          el("p", {}, el("strong", {}, `#${r.id}`), " ", t("{reporter} reports {name} ({when} UTC): {reason}", { reporter: r.reporter, name: r.name, when: when(r.made), reason: r.reason })),
          r.excerpt.length
            ? el("ul", { class: "mod-excerpt", tabindex: "0", "aria-label": t("Chat of report #{id}", { id: r.id }) }, ...r.excerpt.map((line) => el("li", {}, line)))
            : el("p", { class: "small-print" }, t("No chat was kept with this report.")),
          r.resolved
            ? el("p", { class: "small-print" }, t("Resolved by {name}: {note}", { name: r.resolved_by ?? "", note: r.note || "-" }))
            : el(
                "div",
                { class: "row" },
                ...this._buttons(r.name),
                note,
                el(
                  "button",
                  { type: "button", class: "small", "data-mod": "resolve", onclick: () => this._ask({ type: "resolve", report: r.id, note: note.value.trim() }, "act") },
                  t("Resolve"),
                ),
              ),
        );
      }),
    );
    if (!this.reports.length) list.append(el("li", { class: "small-print" }, t("No open reports.")));
  }

  _renderLog() {
    const list = $("mod-log");
    if (!list) return;
    list.replaceChildren(
      ...this.entries.map((e) =>
        el(
          "li",
          { "data-entry": String(e.id), "data-action": e.action },
          `${when(e.when)} ${e.by} ${e.action} ${e.target}${e.duration ? ` ${e.duration}` : ""}${e.reason ? `: ${e.reason}` : ""}`,
        ),
      ),
    );
    if (!this.entries.length) list.append(el("li", { class: "small-print" }, t("Nothing logged yet.")));
  }

  // --- a report, from a name's menu -------------------------------------------------------------

  /** Ask the reason for reporting `name`, then send the report. */
  report(name) {
    this.reporting = name;
    this.reportThanked = false;
    this._reportForm(name, false);
    if (!this.reportDialog.open) this.reportDialog.showModal();
    $("report-reason")?.focus();
  }

  _reportForm(name, thanked) {
    const title = el("h2", { id: "report-title", tabindex: "-1" }, t("Report {name}", { name }));
    if (thanked) {
      const done = el("button", { type: "button", class: "primary", onclick: () => this.reportDialog.close() }, t("Close"));
      this.reportDialog.replaceChildren(
        title,
        el("p", { id: "report-thanks", role: "status" }, t("Thank you: the staff will read your report of {name}.", { name })),
        el("div", { class: "row" }, done),
      );
      done.focus();
      return;
    }
    const reason = el("input", { id: "report-reason", maxlength: "200", autocomplete: "off", required: true });
    const form = el(
      "form",
      {
        onsubmit: (e) => {
          e.preventDefault();
          const text = reason.value.trim();
          if (!text) {
            $("report-status").textContent = t("Say what happened: the staff read it.");
            reason.focus();
            return;
          }
          this._ask({ type: "report", name, reason: text }, "report");
        },
      },
      title,
      el("p", { class: "small-print" }, t("The staff read your reason with the last chat you and {name} both saw. {name} is not told.", { name })),
      el("label", { for: "report-reason" }, t("What happened?")),
      reason,
      el("p", { id: "report-status", class: "error-text", role: "alert" }),
      el(
        "div",
        { class: "row" },
        el("button", { type: "submit", class: "primary", id: "report-send" }, t("Send the report")),
        el("button", { type: "button", onclick: () => this.reportDialog.close() }, t("Cancel")),
      ),
    );
    this.reportDialog.replaceChildren(form);
  }

  _reportThanks() {
    this.reportThanked = true;
    if (this.reporting) this._reportForm(this.reporting, true);
  }
}
