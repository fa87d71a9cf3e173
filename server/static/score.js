// What a legal move will score, shown before it is played: the rules' scoring (docs/rules.md,
// sections 4, 5, 6 and 10) read off the board as the page shows it. The server scores the move
// when it is played; this only says beforehand what it will say.

import { readGuest } from "./flags.js";
import { t } from "./i18n.js";
import { parseMove } from "./moves.js";

/**
 * What the prompt says a move of `points` will do for a mover whose score is `score` (if known):
 * a bar place that costs more than one's score cannot be paid, and one is out (docs/rules.md,
 * section 5).
 */
export function scoreWords(points, score) {
  if (score !== undefined && -points > score) {
    return t("It costs {cost}, more than your {score} points: you would be out of the game.", { cost: -points, score });
  }
  const shown = points > 0 ? `+${points}` : points < 0 ? `−${-points}` : "0";
  return t("It scores {points}.", { points: shown });
}

/** The points of a guest joining a table of `count` guests (it included), `oneNation` or not. */
function tablePoints(count, oneNation) {
  if (count < 2) return 0;
  return oneNation ? 2 * count : count;
}

/**
 * The points the legal move `text` scores on `board` (board.json) with the guests `chairs`
 * (canonical chair -> guest, as in the view) and the `bar` (guests from place 1).
 */
export function movePoints(text, { chairs, bar, board }) {
  const move = parseMove(text);
  if (move.kind === "swap") return 0;
  if (move.kind === "bar") {
    const value = board.bar_values[bar.length] ?? 0;
    // a joker earns nothing on a paying place, and pays on a costly one like any guest
    return move.placements[0].card.startsWith("J") && value > 0 ? 0 : value;
  }
  const chairOf = new Map();
  for (const chair of board.chairs) for (const name of chair.names) chairOf.set(name, chair);
  const tables = new Map(board.tables.map((t) => [t.name, { men: 0, women: 0, nations: new Set() }]));
  const seat = (chair, guest) => {
    for (const name of chair.tables) {
      const table = tables.get(name);
      if (guest.gender === "m") table.men += 1;
      else table.women += 1;
      table.nations.add(guest.nation);
    }
  };
  for (const [name, text] of Object.entries(chairs)) {
    const chair = chairOf.get(name);
    if (chair) seat(chair, readGuest(text));
  }
  // three or four guests at once fill a table of one gender (a Stammtisch): that table scores
  // 20, or 40 for one nation, once, instead of per guest
  const stammtisch = move.placements.length > 2 ? sharedTable(move.placements.map((p) => chairOf.get(p.target))) : null;
  let points = 0;
  for (const p of move.placements) {
    const chair = chairOf.get(p.target);
    const guest = readGuest(p.nation ? `${p.card}=${p.nation}` : p.card);
    if (guest.joker && !guest.nation) guest.nation = chair.nations[0];
    seat(chair, guest);
    for (const name of chair.tables) {
      if (name === stammtisch) continue;
      const table = tables.get(name);
      points += tablePoints(table.men + table.women, table.nations.size === 1);
    }
  }
  if (stammtisch) points += tables.get(stammtisch).nations.size === 1 ? 40 : 20;
  return points;
}

/** The one table every chair of `chairs` is at. */
function sharedTable(chairs) {
  const [first, ...rest] = chairs;
  return first.tables.find((t) => rest.every((c) => c.tables.includes(t))) ?? null;
}
