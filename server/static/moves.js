// Moves by pointing: the server's list of legal move texts, read as placements, and the choices
// a person has made so far (card, then chair, perhaps a second card and chair) matched against it.

/**
 * One legal move text as {text, kind, placements}; kind is "seat", "bar" or "swap" and each
 * placement is {card, target, nation}: target is a canonical chair name or "bar", nation is the
 * declared nation of a joker ("Jf=FR@FR1s") or null.
 */
export function parseMove(text) {
  let kind = "seat";
  let body = text.trim();
  if (body.toLowerCase().startsWith("swap ")) {
    kind = "swap";
    body = body.slice(5).trim();
  }
  const placements = body.split(/\s+/).map((part) => {
    const at = part.indexOf("@");
    const guest = part.slice(0, at);
    const target = part.slice(at + 1);
    const [card, nation] = guest.split("=");
    return { card, target, nation: nation ?? null };
  });
  if (kind === "seat" && placements.length === 1 && placements[0].target.toLowerCase() === "bar") {
    kind = "bar";
    placements[0].target = "bar";
  }
  return { text, kind, placements };
}

function samePlacement(pick, placement) {
  return (
    pick.card === placement.card &&
    pick.target === placement.target &&
    (pick.nation ?? null) === (placement.nation ?? null)
  );
}

/**
 * Which placements of `move` the `picks` use, in the order picked, or null when they do not fit.
 * Picks are matched as a set: two cards on chairs without a common table are listed in one order
 * only, but the server takes them in either.
 */
function matchPicks(move, picks) {
  if (picks.length > move.placements.length) return null;
  if (picks.length > 0 && picks[0].kind !== move.kind) return null;
  const used = [];
  for (const pick of picks) {
    const i = move.placements.findIndex((p, index) => !used.includes(index) && samePlacement(pick, p));
    if (i < 0) return null;
    used.push(i);
  }
  return used;
}

/** The legal moves of one turn and the placements chosen so far. */
export class MovePlanner {
  constructor(texts) {
    this.moves = texts.map(parseMove);
    this.picks = [];
  }

  /** The moves that still fit the picks. */
  candidates() {
    return this.moves.filter((move) => matchPicks(move, this.picks) !== null);
  }

  /** The placements a candidate move still needs beyond the picks. */
  _open(move) {
    const used = matchPicks(move, this.picks);
    if (used === null) return [];
    return move.placements
      .map((p) => ({ ...p, kind: move.kind }))
      .filter((_, i) => !used.includes(i));
  }

  /** Card texts that may be chosen next (as one more card of a move that fits the picks). */
  nextCards() {
    const cards = new Set();
    for (const move of this.candidates()) for (const p of this._open(move)) cards.add(p.card);
    return cards;
  }

  /**
   * Where `card` may go next: a Map from target ("FR1s", "bar") to {kind, nations}; nations lists
   * the nations a joker may be declared there ([null] where none is named).
   */
  targets(card) {
    const found = new Map();
    for (const move of this.candidates()) {
      for (const p of this._open(move)) {
        if (p.card !== card) continue;
        const entry = found.get(p.target) ?? { kind: p.kind, nations: [] };
        if (!entry.nations.includes(p.nation)) entry.nations.push(p.nation);
        found.set(p.target, entry);
      }
    }
    for (const entry of found.values()) entry.nations.sort();
    return found;
  }

  /** Choose `card` for `target` (with a joker's `nation`); false if that does not fit a legal move. */
  pick(card, target, nation = null) {
    const entry = this.targets(card).get(target);
    if (entry === undefined || !entry.nations.includes(nation)) return false;
    this.picks.push({ card, target, nation, kind: entry.kind });
    return true;
  }

  /** Take back the last choice. */
  undo() {
    this.picks.pop();
  }

  clear() {
    this.picks = [];
  }

  /**
   * The legal move text that seats exactly the picks, or null: the one in the order picked when
   * it is listed, otherwise the listed order (the server accepts it in either).
   */
  complete() {
    if (this.picks.length === 0) return null;
    const whole = this.candidates().filter((move) => move.placements.length === this.picks.length);
    const inOrder = whole.find((move) => move.placements.every((p, i) => samePlacement(this.picks[i], p)));
    return (inOrder ?? whole[0])?.text ?? null;
  }

  /** Whether a further card may still be added to the picks. */
  canExtend() {
    return this.candidates().some((move) => move.placements.length > this.picks.length);
  }
}
