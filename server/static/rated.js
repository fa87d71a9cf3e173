// Whether the game on the page is rated, so that the page offers no Hint where the server refuses
// one (`no_hints`). The server decides: a game is rated when two seats or more are held by
// registered accounts and the room did not choose the seed. The page reads the same from the view
// and from each seat's profile (`/api/players/NAME` answers for an account, with `bot: false`;
// a guest has none); a `no_hints` answer settles it for the rest of the game.

/** Whether `name` is a registered account's, as its profile says (a failed look-up: no). */
export async function isAccount(name) {
  try {
    const response = await fetch(`/api/players/${encodeURIComponent(name)}`, { headers: { Accept: "application/json" } });
    if (!response.ok) return false;
    const body = await response.json();
    return body?.bot === false;
  } catch {
    return false;
  }
}

export class RatedGame {
  /** `lookup(name)` resolves to whether `name` is an account's; `onChange()` draws the page again. */
  constructor({ lookup = isAccount, onChange }) {
    this.lookup = lookup;
    this.onChange = onChange;
    /** name -> true or false once looked up, null while the look-up runs */
    this.accounts = new Map();
    /** the room whose game the server refused a hint in */
    this.refused = null;
  }

  /** A game started, or the page is in another room: look the seats up afresh. */
  reset() {
    this.accounts.clear();
    this.refused = null;
    this.ended = null;
  }

  /** `room`'s game ended, `rated` or not (its `game_over` carried ratings or none). */
  over(room, rated) {
    this.ended = { room, rated };
    this.onChange();
  }

  /**
   * How `view`'s room counts its game, before the start, during it and after it: true (rated),
   * false, or null while unknown; the same reading as the server's, from the seats as they are.
   */
  ofRoom(view) {
    if (!view) return null;
    const game = view.game;
    if (game?.over) return this.ended?.room === view.room ? this.ended.rated : null;
    if (game) return this.of(view);
    if (view.options?.seed === "set") return false;
    return this._count(view);
  }

  _count(view) {
    let accounts = 0;
    let unknown = false;
    for (const { name, kind } of view.seats) {
      if (kind === "bot") continue;
      const known = this.accounts.get(name);
      if (known === undefined) this._ask(name);
      if (known === true) accounts += 1;
      else if (known !== false) unknown = true;
    }
    if (accounts >= 2) return true;
    return unknown ? null : false;
  }

  /** The server refused a hint in `room`'s game: it is rated. */
  refusedIn(room) {
    this.refused = room;
    this.onChange();
  }

  /**
   * Whether `view`'s running game is rated: true, false, or null while a seat's look-up has not
   * answered (the page then offers the Hint, and the server's answer settles it).
   */
  of(view) {
    const game = view?.game;
    if (!game || game.over) return false;
    if (this.refused === view.room) return true;
    if (view.options?.seed === "set") return false;  // a seed the room chose: a practice game
    if (view.seats.length < 2) return false;
    let accounts = 0;
    let unknown = false;
    for (const { name } of view.seats) {
      const known = this.accounts.get(name);
      if (known === undefined) this._ask(name);
      if (known === true) accounts += 1;
      else if (known !== false) unknown = true;
    }
    if (accounts >= 2) return true;
    return unknown ? null : false;
  }

  _ask(name) {
    this.accounts.set(name, null);
    this.lookup(name).then((found) => {
      if (this.accounts.get(name) !== null) return;  // reset meanwhile: asked again if needed
      this.accounts.set(name, found);
      this.onChange();
    });
  }
}
