// The Tournaments tab: the tournaments upcoming, running and over (GET /api/tournaments), one
// tournament's live standings and tables (GET /api/tournaments/ID), joining and leaving.

import { el } from "./dom.js";
import { language, t, tn } from "./i18n.js";
import { nameButton } from "./profile.js";
import { readerHeaders } from "./storage.js";

/** how often an open tab reads the tournaments again, in milliseconds */
const EVERY = 5000;

const $ = (id) => document.getElementById(id);

function points(n) {
  return String(Math.round(n * 100) / 100);
}

function clock(unix) {
  // the page's language, not the browser's (the reader's own time zone): 14:05 in either
  return new Date(unix * 1000).toLocaleTimeString(language() === "de" ? "de-DE" : "en-GB", { hour: "2-digit", minute: "2-digit" });
}

/** What a tournament is, in words: "Swiss, 5 rounds, tables of 4, 60 s a turn". */
export function kindWords(s) {
  return s.kind === "swiss"
    ? tn("Swiss, {n} round, tables of {size}, {clock} s a turn", "Swiss, {n} rounds, tables of {size}, {clock} s a turn", s.rounds, { size: s.size, clock: s.clock })
    : tn("Arena, {n} minute, tables of {size}, {clock} s a turn", "Arena, {n} minutes, tables of {size}, {clock} s a turn", s.minutes, { size: s.size, clock: s.clock });
}

/** Where a tournament stands, in words. */
export function stateWords(s) {
  if (s.status === "upcoming") return t("starts at {time}", { time: clock(s.starts) });
  if (s.status === "running") return s.kind === "swiss" ? t("round {round} of {rounds}", { round: s.round, rounds: s.rounds }) : t("until {time}", { time: clock(s.ends ?? s.starts) });
  if (s.status === "cancelled") return t("cancelled");
  if (s.status === "closed") return t("closed");
  return s.leader ? t("over: {name} won", { name: s.leader }) : t("over");
}

export class TournamentsPane {
  /** `send(msg)` sends a message, `newId(prefix)` makes an id, `me()` is the reader's name, `enter(room)` watches a room. */
  constructor({ send, newId, me, enter }) {
    this.send = send;
    this.newId = newId;
    this.me = me;
    this.enter = enter;
    this.shown = null; // the id of the tournament whose standings are open
    this.timer = null;
    $("tab-tournaments").addEventListener("click", () => this.refresh());
    setInterval(() => {
      if (!$("pane-tournaments").hidden) this.refresh();
    }, EVERY);
  }

  async refresh() {
    try {
      // (the resume token: the list says which tournaments this player is in)
      const answer = await fetch("/api/tournaments", { headers: readerHeaders({ Accept: "application/json" }) });
      if (answer.ok) this.renderList(await answer.json());
      if (this.shown !== null) await this.open(this.shown);
    } catch {
      // (the server is away: the next refresh tries again)
    }
  }

  renderList(lists) {
    const list = $("tournament-list");
    list.replaceChildren();
    const groups = [
      [t("Upcoming"), lists.upcoming],
      [t("Running"), lists.running],
      [t("Recently over"), lists.recent],
    ];
    for (const [heading, items] of groups) {
      if (!items.length) continue;
      list.append(el("li", { class: "tournament-heading" }, heading));
      for (const s of items) list.append(this.line(s));
    }
    $("tournaments-none").hidden = groups.some(([, items]) => items.length);
  }

  line(s) {
    const open = el("button", { type: "button", class: "link tournament-name", "data-id": s.id, onclick: () => this.open(s.id) }, s.name);
    const count = t("{n} in", { n: s.players });
    const row = el("li", { class: "tournament", "data-name": s.name },
      open, " ", el("span", { class: "small-print" }, [kindWords(s), stateWords(s), count].join(" · ")));
    if (s.status === "upcoming" || s.status === "running") {
      const [action, words] = s.entered ? ["leave", t("Leave")] : ["join", t("Join")];
      row.append(" ", el("button", { type: "button", class: "small", "data-action": action, onclick: () => this.act(action, s.name) }, words));
    }
    return row;
  }

  act(action, name) {
    this.send({ type: "tournament", action, name, id: this.newId("tour") });
    setTimeout(() => this.refresh(), 300);
  }

  async open(id) {
    const answer = await fetch(`/api/tournaments/${id}`, { headers: { Accept: "application/json" } });
    if (!answer.ok) return;
    this.shown = id;
    this.renderDetail(await answer.json());
  }

  renderDetail(data) {
    const s = data.tournament;
    const box = $("tournament-detail");
    const me = this.me();
    const playing = me && data.standings.some((line) => line.name === me && line.active);
    const head = el("div", { class: "tournament-head" },
      el("h3", {}, s.name), el("p", { class: "small-print" }, `${kindWords(s)} · ${stateWords(s)}`));
    if (playing && (s.status === "upcoming" || s.status === "running")) {
      head.append(el("button", { type: "button", class: "small", onclick: () => this.act("leave", s.name) }, t("Leave the tournament")));
    }
    const table = el("table", { class: "standings" },
      el("thead", {}, el("tr", {},
        el("th", {}, "#"), el("th", {}, t("Player")), el("th", {}, t("Points")),
        el("th", {}, t("Game points")), el("th", {}, t("Opponents")), el("th", {}, t("Games")))));
    const body = el("tbody");
    for (const line of data.standings) {
      body.append(el("tr", { class: line.active ? "" : "left" },
        el("td", {}, String(line.rank)), el("td", {}, nameButton(line.name)), el("td", {}, points(line.points)),
        el("td", {}, String(line.game_points)), el("td", {}, points(line.opponents)), el("td", {}, String(line.games))));
    }
    table.append(body);
    const games = el("ul", { class: "tournament-tables" });
    for (const x of data.tables) {
      const round = x.round ? t("Round {round}", { round: x.round }) : null;
      const item = el("li", {}, [round, x.players.join(", ")].filter(Boolean).join(": ") + " ");
      if (x.places) {
        const order = Object.entries(x.places).sort((a, b) => a[1] - b[1]).map(([n, p]) => `${p}. ${n}`);
        item.append(el("span", { class: "small-print" }, order.join(", ")), " ");
        if (x.game) item.append(el("a", { href: `/games/${x.game}`, target: "_blank", rel: "noopener" }, t("Replay")));
      } else if (x.room) {
        item.append(el("button", { type: "button", class: "link", onclick: () => this.enter(x.room) }, t("Watch")));
      }
      games.append(item);
    }
    // (the answer lists the tables still playing and the latest finished: say when there were more)
    const heading = data.table_count > data.tables.length
      ? t("Games (the latest {shown} of {count})", { shown: data.tables.length, count: data.table_count })
      : t("Games");
    box.replaceChildren(head, table, el("h4", {}, heading), games);
    box.hidden = false;
  }
}
