// The replay viewer of /games/ID: the public positions of a finished game, as the server's engine
// computed them, stepped through forward and back (buttons, or the arrow keys).

import { ScoreChart, annotateMoves, fetchAnalysis, figuresText, showGhost } from "./analysis.js";
import { CafeBoard } from "./board.js";
import { preferredLanguage, setLanguage, t, tn } from "./i18n.js";
import { historyLine, playedFor } from "./live.js";
import { readerHeaders } from "./storage.js";

const $ = (id) => document.getElementById(id);

async function load() {
  const lang = await setLanguage(preferredLanguage());
  $("rules-link").href = `/rules?lang=${lang}`;
  document.title = t("Replay — Café International");
  const id = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? "");
  const [boardResponse, replayResponse] = await Promise.all([fetch("/board.json"), fetch(`/api/games/${encodeURIComponent(id)}/replay`, { headers: readerHeaders() })]);
  if (!replayResponse.ok) {
    $("replay-status").textContent = t("No finished game has that address.");
    for (const b of document.querySelectorAll(".steps button")) b.disabled = true;
    return;
  }
  const board = await boardResponse.json();
  const data = await replayResponse.json();
  const cafe = new CafeBoard($("board"), board, { onChair: () => {}, onBar: () => {} });
  $("replay-title").textContent = t("Room {room}: {players}", { room: data.room, players: data.players.join(", ") });
  const result = data.result;
  $("replay-status").textContent = result
    ? t("Ranking: {ranking}.", { ranking: result.ranking.map((n) => `${n} ${result.final_scores[n]}`).join(", ") })
    : "";
  const moves = $("moves");
  moves.replaceChildren(
    ...data.steps.slice(1).map((step, i) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link";
      button.textContent = historyLine(step.move, board.nations);
      button.addEventListener("click", () => show(i + 1));
      item.append(button);
      // a move the server played for its player (the clock ran out, or a bot kept the seat)
      const how = step.move.auto;
      if (how) {
        item.dataset.auto = how;
        item.append(" ", Object.assign(document.createElement("span"), { className: "badge auto", textContent: playedFor(how) }));
      }
      return item;
    }),
  );
  let current = 0;

  // the analysis, once one is kept: marks in the list, the chart, the best move as a ghost; while
  // it is being made, looked for again every five seconds
  let analysis = null;
  let chart = null;
  async function loadAnalysis() {
    const analysed = await fetchAnalysis(id, readerHeaders());
    analysis = analysed.data;
    if (analysis) annotateMoves(moves, analysis);
    $("analysis-status").textContent = analysis
      ? figuresText(analysis).join(" · ")
      : analysed.state === "queued"
        ? t("The analysis is being made; it shows here once it is ready.")
        : t("No analysis yet: /analyse {id} asks for one.", { id });
    chart = new ScoreChart($("chart"), data.steps, analysis, (n) => show(n));
    if (analysed.state === "queued") setTimeout(() => loadAnalysis().then(() => show(current)), 5000);
  }
  await loadAnalysis();

  function show(n) {
    current = Math.max(0, Math.min(data.steps.length - 1, n));
    const step = data.steps[current];
    const game = step.game;
    const last = { chairs: new Set(), bar: new Set() };
    if (step.move && !step.move.move.startsWith("leave ")) {
      const parts = step.move.move.replace(/^swap /, "").split(/\s+/);
      if (parts.length === 1 && parts[0].toLowerCase().endsWith("@bar")) last.bar.add(game.bar.length - 1);
      else for (const part of parts) last.chairs.add(part.slice(part.indexOf("@") + 1));
    }
    cafe.update({ chairs: game.chairs, bar: game.bar, targets: new Map(), picks: [], last });
    $("replay").dataset.step = String(current);
    chart.select(current);
    const barBefore = current > 0 ? data.steps[current - 1].game.bar.length : null;
    showGhost($("board"), cafe, analysis && current > 0 ? analysis.moves[current - 1] : null, barBefore);
    const moveCount = data.steps.length - 1;
    $("step-text").textContent =
      current === 0
        ? tn("The deal (of {n} move)", "The deal (of {n} moves)", moveCount)
        : t("Move {number} of {count}: {move}", { number: current, count: moveCount, move: historyLine(step.move, board.nations) }) +
          (step.move.auto ? ` (${playedFor(step.move.auto)})` : "");
    $("scores").replaceChildren(
      ...game.players.map((p) => {
        const item = document.createElement("li");
        const out = p.eliminated ? t(" (out)") : "";
        const cards = tn("{n} card", "{n} cards", p.hand_size);
        item.textContent = `${p.name}: ${p.score}${out} · ${cards}`;
        return item;
      }),
    );
    moves.querySelectorAll("li").forEach((li, i) => {
      if (i + 1 === current) li.setAttribute("aria-current", "step");
      else li.removeAttribute("aria-current");
    });
    // the list scrolls to the move, never the page (the buttons stay under the pointer)
    const item = moves.querySelector("[aria-current]");
    if (item && (item.offsetTop < moves.scrollTop || item.offsetTop + item.offsetHeight > moves.scrollTop + moves.clientHeight)) {
      moves.scrollTop = item.offsetTop - moves.clientHeight / 2;
    }
    $("first").disabled = $("back").disabled = current === 0;
    $("last").disabled = $("forward").disabled = current === data.steps.length - 1;
    $("play").disabled = data.steps.length < 2;
  }

  // autoplay: a move a second and a half, to the end, until stopped
  let playing = null;
  function stop() {
    clearInterval(playing);
    playing = null;
    $("play").setAttribute("aria-pressed", "false");
  }
  function autoplay() {
    if (playing !== null) return stop();
    if (current === data.steps.length - 1) show(0);
    $("play").setAttribute("aria-pressed", "true");
    playing = setInterval(() => {
      show(current + 1);
      if (current === data.steps.length - 1) stop();
    }, 1500);
  }
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(current - 1));
  $("play").addEventListener("click", autoplay);
  $("forward").addEventListener("click", () => show(current + 1));
  $("last").addEventListener("click", () => show(data.steps.length - 1));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
    // the arrows step through the game, not the page
    const to = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: data.steps.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  });
  show(0);
}

load();
