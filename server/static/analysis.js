// The analysis beside the replay of /games/ID: a chart of each player's score over the moves (SVG, a
// line each) with the costly moves marked, each move's mark and cost in the list, and the best move
// as a ghost on the board. The analysis is GET /api/games/ID/analysis (200 once it is kept).

import { guestTile, svgEl } from "./flags.js";
import { language, t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
// the marks worth showing on the chart, and the words of every mark
const COSTLY = new Set(["inaccurate", "mistake", "blunder"]);
const MARK_SIGNS = { inaccurate: "?!", mistake: "?", blunder: "??" };
const COLOURS = ["#1f6fb2", "#c0392b", "#2e8b57", "#8e44ad"];

/** `value` with one decimal, as the page's language writes it ("3.1", "3,1"). */
function oneDecimal(value) {
  return value.toLocaleString(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** The analysis kept for game `id`, or null (none yet, or none to read); `state` says which. */
export async function fetchAnalysis(id, headers) {
  const response = await fetch(`/api/games/${encodeURIComponent(id)}/analysis`, { headers });
  if (response.status === 200) return { state: "ready", data: await response.json() };
  if (response.status === 202) return { state: "queued", data: null };
  return { state: "none", data: null };
}

/** Each move's mark and cost, for the list beside the moves. */
export function markWords(move) {
  if (!move || !move.mark) return "";
  const words = { good: t("good"), inaccurate: t("inaccurate"), mistake: t("mistake"), blunder: t("blunder") };
  if (move.mark === "forced") return t("forced");
  const sign = MARK_SIGNS[move.mark] ? MARK_SIGNS[move.mark] + " " : "";
  const cost = move.cost >= 0.05 ? " −" + oneDecimal(move.cost) : "";
  return sign + words[move.mark] + cost;
}

/** Add each move's mark and cost to the list items (one per move, in order). */
export function annotateMoves(list, analysis) {
  [...list.querySelectorAll(":scope > li")].forEach((item, i) => {
    const move = analysis.moves[i];
    if (!move || !move.mark) return;
    const mark = document.createElement("span");
    mark.className = `mark mark-${move.mark}`;
    mark.textContent = markWords(move);
    if (move.best && move.best !== move.move) mark.title = t("Best: {move}", { move: move.best });
    item.append(mark);
  });
}

/** Each player's accuracy and mean cost, one line each. */
export function figuresText(analysis) {
  return Object.entries(analysis.players).map(([name, f]) =>
    t("{name}: accuracy {accuracy} %, {mean} points lost a move", {
      name,
      accuracy: Math.round(f.accuracy),
      mean: oneDecimal(f.mean_cost),
    }),
  );
}

/**
 * The chart: x is the step (0 the deal), y the score; a line per player, a dot per step that goes
 * to it when clicked, the costly moves marked on their mover's line.
 */
export class ScoreChart {
  constructor(svg, steps, analysis, onPick) {
    this.svg = svg;
    const names = steps[0].game.players.map((p) => p.name);
    const scores = steps.map((s) => s.game.players.map((p) => p.score));
    const top = Math.max(10, ...scores.flat());
    const bottom = Math.min(0, ...scores.flat());
    const width = 600;
    const height = 300;
    const pad = { left: 44, right: 14, top: 14, bottom: 30 };
    const x = (i) => pad.left + ((width - pad.left - pad.right) * i) / Math.max(1, steps.length - 1);
    const y = (v) => pad.top + ((height - pad.top - pad.bottom) * (top - v)) / Math.max(1, top - bottom);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.replaceChildren();
    const axis = svgEl("g", { class: "axis" });
    for (const v of [bottom, Math.round((top + bottom) / 2), top]) {
      axis.append(svgEl("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v) }));
      const label = svgEl("text", { x: pad.left - 4, y: y(v) + 4, "text-anchor": "end" });
      label.textContent = String(v);
      axis.append(label);
    }
    svg.append(axis);
    this.cursor = svgEl("line", { class: "cursor", y1: pad.top, y2: height - pad.bottom, x1: x(0), x2: x(0) });
    svg.append(this.cursor);
    this.x = x;
    names.forEach((name, p) => {
      const colour = COLOURS[p % COLOURS.length];
      const points = scores.map((row, i) => `${x(i).toFixed(1)},${y(row[p]).toFixed(1)}`).join(" ");
      const line = svgEl("polyline", { class: "score-line", points, stroke: colour, "data-player": name });
      const title = document.createElementNS(NS, "title");
      title.textContent = name;
      line.append(title);
      svg.append(line);
    });
    // one target per step, on the mover's line: a click goes to that move
    steps.forEach((step, i) => {
      const p = step.move ? Math.max(0, names.indexOf(step.move.player)) : 0;
      const move = i > 0 ? analysis?.moves[i - 1] : null;
      const costly = move && COSTLY.has(move.mark);
      const dot = svgEl("circle", {
        class: costly ? `point costly mark-${move.mark}` : "point",
        cx: x(i).toFixed(1),
        cy: y(scores[i][p]).toFixed(1),
        r: costly ? 6 : 4,
        "data-step": String(i),
      });
      if (!costly) dot.setAttribute("fill", COLOURS[p % COLOURS.length]);
      const title = document.createElementNS(NS, "title");
      title.textContent =
        i === 0 ? t("The deal") : `${i}. ${step.move.player} ${step.move.move}${move?.mark ? ` (${markWords(move)})` : ""}`;
      dot.append(title);
      dot.addEventListener("click", () => onPick(i));
      svg.append(dot);
    });
    const legend = svgEl("g", { class: "legend" });
    names.forEach((name, p) => {
      const label = svgEl("text", { x: pad.left + 6 + p * 130, y: height - 6, fill: COLOURS[p % COLOURS.length] });
      label.textContent = `— ${name}`;
      legend.append(label);
    });
    svg.append(legend);
  }

  /** Move the cursor to step `n`. */
  select(n) {
    const at = this.x(n).toFixed(1);
    this.cursor.setAttribute("x1", at);
    this.cursor.setAttribute("x2", at);
  }
}

/**
 * Show move `move`'s best alternative as ghosts on the board's chairs (or the bar's next place)
 * when it differs from the move played; `null` clears them.
 */
export function showGhost(boardSvg, cafe, move, barBefore = null) {
  boardSvg.querySelectorAll(".ghost").forEach((g) => g.remove());
  if (!move || !move.best || move.best === move.move) return;
  for (const part of move.best.replace(/^swap /, "").split(/\s+/)) {
    const [card, chairName] = part.split("@");
    if (chairName?.toLowerCase() === "bar") {
      // the place that was next at the bar before the move (the move played may have filled it)
      const slot = barBefore === null ? null : cafe.slots[barBefore];
      if (!slot) continue;
      const ghost = svgEl("g", { class: "ghost", transform: "translate(0,-5.5)", "data-chair": "bar" });
      ghost.innerHTML = guestTile(card, 25, 17, { compact: true });
      const title = document.createElementNS(NS, "title");
      title.textContent = t("Best: {move}", { move: move.best });
      ghost.append(title);
      slot.el.append(ghost);
      continue;
    }
    const chair = cafe.chairs.get(chairName);
    if (!chair) continue;
    const ghost = svgEl("g", { class: "ghost", transform: chair.el.getAttribute("transform"), "data-chair": chairName });
    ghost.innerHTML = guestTile(card, 40, 40);
    const title = document.createElementNS(NS, "title");
    title.textContent = t("Best: {move}", { move: move.best });
    ghost.append(title);
    boardSvg.append(ghost);
  }
}
