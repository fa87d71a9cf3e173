// Looking people up: a player's profile (rating, games, where they are now, their finished games
// as links to the replay viewer) and the leaderboard, in one dialog, opened by choosing a name
// anywhere on the page (every name shown as a button with `data-profile`).

import { t, tn } from "./i18n.js";
import { el } from "./dom.js";
import { readerHeaders } from "./storage.js";

/** A name that opens its profile when chosen. */
export function nameButton(name, attrs = {}) {
  return el(
    "button",
    { type: "button", class: "name-link", "data-profile": name, "aria-label": t("{name}: profile", { name }), ...attrs },
    name,
  );
}

function when(seconds) {
  if (typeof seconds !== "number") return t("never");
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ");
}

function ratingText(p) {
  return `${p.rating}${p.provisional ? "?" : ""}`;
}

async function getJson(path) {
  const response = await fetch(path, { headers: readerHeaders({ Accept: "application/json" }) });
  const body = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, body };
}

export class PeopleDialog {
  /**
   * `dialog` holds `#people-body`; `actions` says who reads the page and what may be done to a
   * name: {me(), isFriend(name), friend(name, on), tell(name), invite(name) or null, mute(name)}.
   */
  constructor(dialog, actions) {
    this.dialog = dialog;
    this.body = dialog.querySelector("#people-body");
    this.actions = actions;
    this.asked = 0;
    // closed while it loaded: the late answer draws nothing and does not open it again
    dialog.addEventListener("close", () => {
      this.asked++;
    });
    document.addEventListener("click", (e) => {
      const button = e.target.closest?.("[data-profile]");
      if (!button) return;
      e.preventDefault();
      this.showPlayer(button.dataset.profile);
    });
  }

  _open(title, ...parts) {
    this.body.replaceChildren(el("h2", { id: "people-title", tabindex: "-1" }, title), ...parts);
    if (!this.dialog.open) this.dialog.showModal();
    this.body.querySelector("h2").focus();
  }

  /** The leaderboard: the best rated players and bot strategies, each name a profile link. */
  async showLeaderboard(limit = 20) {
    const asked = ++this.asked;
    this._open(t("Leaderboard"), el("p", { class: "small-print" }, t("Loading…")));
    const { ok, body } = await getJson(`/api/leaderboard?limit=${limit}`);
    if (asked !== this.asked) return;
    const rows = ok ? body.leaderboard : [];
    const table = el(
      "table",
      { class: "ranking leaderboard" },
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, t("player")), el("th", {}, t("rating")), el("th", {}, t("games")), el("th", {}, t("wins")))),
      el(
        "tbody",
        {},
        ...rows.map((r) =>
          el(
            "tr",
            { "data-player": r.name },
            el("td", { class: "num" }, String(r.place)),
            el("td", { class: "name" }, nameButton(r.name)),
            el("td", { class: "num rating" }, ratingText(r)),
            el("td", { class: "num" }, String(r.games)),
            el("td", { class: "num" }, String(r.wins)),
          ),
        ),
      ),
    );
    this._open(
      t("Leaderboard"),
      rows.length ? table : el("p", {}, ok ? t("No rated games yet.") : t("The leaderboard could not be loaded.")),
      el("p", { class: "small-print" }, t("A rating with ? is still provisional. Games with two registered players or more are rated.")),
    );
  }

  /** The profile of `name`: a registered player's, a bot strategy's, or a note that a guest has none. */
  async showPlayer(name) {
    const asked = ++this.asked;
    this._open(name, el("p", { class: "small-print" }, t("Loading…")));
    const [profile, games] = await Promise.all([
      getJson(`/api/players/${encodeURIComponent(name)}`),
      getJson(`/api/players/${encodeURIComponent(name)}/games`),
      this.actions.refresh?.(),  // whom the reader mutes, as the server keeps it now
    ]);
    if (asked !== this.asked) return;
    const parts = [];
    if (!profile.ok) {
      parts.push(el("p", { class: "profile-facts" }, t("{name} plays as a guest: guests have no profile and no rating.", { name })));
    } else {
      const p = profile.body;
      name = p.name;
      const where = !p.online
        ? t("offline")
        : p.room
          ? t("now in room {room}", { room: p.room })
          : p.private
            ? t("now in a private room")
            : t("now in the lobby");
      const facts = p.bot
        ? [t("a bot strategy"), t("rating {rating}", { rating: ratingText(p) }), tn("{n} rated game, {w} won", "{n} rated games, {w} won", p.rated_games, { w: p.wins })]
        : [
            t("rating {rating}", { rating: ratingText(p) }),
            tn("{n} game ({r} rated, {w} won)", "{n} games ({r} rated, {w} won)", p.games, { r: p.rated_games, w: p.wins }),
            where,
            t("registered {date}", { date: when(p.registered) }),
            t("last seen {date}", { date: when(p.last_seen) }),
          ];
      parts.push(el("ul", { class: "profile-facts" }, ...facts.map((f) => el("li", {}, f))));
    }
    // the profile's own address, to share
    parts.push(el("p", { class: "small-print" }, el("a", { href: `/players/${encodeURIComponent(name)}`, "data-share": "profile" }, t("Link to this profile"))));
    const actions = this._actions(name, profile.ok && profile.body.bot);
    if (actions) parts.push(actions);
    const list = games.ok ? games.body.games : [];
    if (list.length) {
      parts.push(
        el("h3", {}, t("Games")),
        el(
          "ul",
          { class: "profile-games" },
          ...list.map((g) => {
            const outcome = g.ranking ? g.ranking.map((n) => `${n} ${g.final_scores[n]}`).join(", ") : t("unfinished");
            const label = t("{date} in room {room}", { date: when(g.started), room: g.room });
            return el("li", { "data-game": g.id }, el("a", { href: `/games/${g.id}`, target: "_blank", rel: "noopener" }, label), `: ${outcome}`);
          }),
        ),
      );
    } else if (profile.ok && !profile.body.bot) parts.push(el("p", { class: "small-print" }, t("No finished games yet.")));
    this._open(name, ...parts);
  }

  _actions(name, bot) {
    const a = this.actions;
    if (bot || name.toLowerCase() === (a.me() ?? "").toLowerCase()) return null;
    const friend = a.isFriend(name);
    const buttons = [
      el("button", { type: "button", "data-action": "tell", onclick: () => this._then(() => a.tell(name)) }, t("Tell")),
      el(
        "button",
        { type: "button", "data-action": friend ? "unfriend" : "friend", onclick: () => this._then(() => a.friend(name, !friend)) },
        friend ? t("Unfriend") : t("Add as a friend"),
      ),
    ];
    if (a.invite(name)) {
      buttons.push(el("button", { type: "button", "data-action": "invite", onclick: () => this._then(() => a.invite(name)?.()) }, t("Invite to this room")));
    }
    // muted or not, said, with the way back
    const muted = !!a.isMuted?.(name);
    buttons.push(
      el(
        "button",
        { type: "button", "data-action": muted ? "unmute" : "mute", onclick: () => this._then(() => a.mute(name, !muted)) },
        muted ? t("Unmute") : t("Mute"),
      ),
    );
    // "Report" for everyone; the staff's panel with the name filled in for the staff (moderation.js)
    if (a.report) buttons.push(el("button", { type: "button", "data-action": "report", onclick: () => this._then(() => a.report(name)) }, t("Report")));
    const moderate = a.moderate?.(name);
    if (moderate) buttons.push(el("button", { type: "button", "data-action": "moderate", onclick: () => this._then(moderate) }, t("Moderate")));
    const row = el("div", { class: "row profile-actions" }, ...buttons);
    if (!muted) return row;
    return el("div", {}, el("p", { class: "small-print muted-note" }, t("You muted {name}: their chat and tells do not reach you.", { name })), row);
  }

  _then(fn) {
    this.dialog.close();
    fn();
  }
}
