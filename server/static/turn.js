// Your turn on the page: the hand, the move being chosen by pointing (a guest, then a chair, the bar
// or a joker to exchange, and a joker's nation where two meet), the board's lit targets, and the
// row that confirms the move. The legal moves come from the server; the page never computes rules.

import { t, tn } from "./i18n.js";
import { flagBox, guestTile, guestWords, nationName } from "./flags.js";
import { MovePlanner, parseMove } from "./moves.js";
import { moveWords, recentMoves } from "./live.js";
import { movePoints, scoreWords } from "./score.js";

const $ = (id) => document.getElementById(id);

function focusLater(el, byKeyboard) {
  if (el) requestAnimationFrame(() => el.focus({ preventScroll: !byKeyboard }));
}

/**
 * Where a chosen guest may go, as one whole sentence for each set of ways (a lit chair, the bar, a
 * joker to exchange), so that every language words it as a sentence of its own.
 */
function wherePrompt(card, targets) {
  const seat = [...targets.values()].some((x) => x.kind === "seat");
  const bar = targets.has("bar");
  const swap = [...targets.values()].some((x) => x.kind === "swap");
  if (seat && bar && swap) return t("Where does {card} go? Choose a lit chair, the bar, or a joker to exchange.", { card });
  if (seat && bar) return t("Where does {card} go? Choose a lit chair, or the bar.", { card });
  if (seat && swap) return t("Where does {card} go? Choose a lit chair, or a joker to exchange.", { card });
  if (bar && swap) return t("Where does {card} go? Choose the bar, or a joker to exchange.", { card });
  if (seat) return t("Where does {card} go? Choose a lit chair.", { card });
  if (bar) return t("Where does {card} go? Choose the bar.", { card });
  if (swap) return t("Where does {card} go? Choose a joker to exchange.", { card });
  return t("{card} cannot be played now.", { card });
}

export class MoveChooser {
  /**
   * `state` is the page's state (the view, and the picks kept here: `legal`, `legalAsked`,
   * `selected`, `used`, `sending`, `nationAsk`); `cafe` and `zoom` are the board and its zoom;
   * `send` and `newId` talk to the server; `render` draws the whole page again.
   */
  constructor({ state, nations, board = null, cafe, zoom, send, newId, render }) {
    this.state = state;
    this.nations = nations;
    this.board = board;
    this.cafe = cafe;
    this.zoom = zoom;
    this.send = send;
    this.newId = newId;
    this.render = render;
  }

  // --- the game as this page sees it -------------------------------------------------------

  game() {
    return this.state.view?.game ?? null;
  }

  myTurn() {
    const g = this.game();
    return !!g && !g.over && Array.isArray(g.hand) && g.to_move === this.state.view.you;
  }

  planner() {
    const g = this.game();
    const legal = this.state.legal;
    return this.myTurn() && legal && legal.moveNumber === g.move_number ? legal.planner : null;
  }

  clearPicks() {
    const state = this.state;
    state.selected = null;
    state.used = [];
    state.nationAsk = null;
    state.legal?.planner.clear();
  }

  /** Ask for the legal moves once a turn of ours begins; forget them when it ends. */
  syncTurn() {
    const state = this.state;
    const g = this.game();
    if (!this.myTurn()) {
      state.legal = null;
      state.legalAsked = null;
      this.clearPicks();
      return;
    }
    if (state.legal?.moveNumber !== g.move_number && state.legalAsked !== g.move_number) {
      state.legalAsked = g.move_number;
      this.send({ type: "legal_moves", id: `lm-${g.move_number}` });
    }
  }

  /** The server's answer to our `legal_moves` for move `number`. */
  legalMoves(number, moves) {
    if (this.game()?.move_number !== number) return;
    this.state.legal = { moveNumber: number, planner: new MovePlanner(moves) };
    this.clearPicks();
    this.render();
  }

  /** Our move was answered (`ack`), or refused: the picks go, and a refused turn asks again. */
  answered(refused) {
    const state = this.state;
    state.sending = null;
    this.clearPicks();
    if (!refused) return;
    state.legal = null;
    state.legalAsked = null;
    this.syncTurn();
  }

  // --- choosing a move by pointing ---------------------------------------------------------

  say(text) {
    $("prompt").textContent = text;
  }

  chooseCard(index, byKeyboard) {
    const state = this.state;
    const plan = this.planner();
    if (!plan || state.sending || state.used.includes(index)) return;
    if (state.selected === index) {
      state.selected = null;
      this.render();
      return;
    }
    const card = this.game().hand[index];
    if (!plan.nextCards().has(card)) {
      this.render();
      this.say(state.used.length ? t("{card} cannot be played with that.", { card }) : t("{card} cannot be played now.", { card }));
      return;
    }
    state.selected = index;
    state.nationAsk = null;
    this.render();
    if (byKeyboard) focusLater(this.cafe.targetElements()[0], true);
  }

  chooseTarget(target, byKeyboard) {
    const state = this.state;
    const plan = this.planner();
    if (!plan || state.sending) return;
    if (state.selected === null) {
      this.say(this.myTurn() ? t("Choose a guest from your hand first.") : "");
      return;
    }
    const card = this.game().hand[state.selected];
    const entry = plan.targets(card).get(target);
    if (!entry) {
      this.say(target === "bar" ? t("{card} cannot go to the bar now.", { card }) : t("{card} cannot sit at {target}.", { card, target }));
      return;
    }
    if (entry.nations.length > 1) {
      state.nationAsk = { card, target, nations: entry.nations };
      this.render();
      focusLater($("nation-choice").querySelector("button"), byKeyboard);
      return;
    }
    this.place(card, target, entry.nations[0], byKeyboard);
  }

  place(card, target, nation, byKeyboard) {
    const state = this.state;
    const plan = this.planner();
    if (!plan || !plan.pick(card, target, nation)) return;
    state.used.push(state.selected);
    state.selected = null;
    state.nationAsk = null;
    this.render();
    if (plan.complete()) focusLater($("confirm"), byKeyboard);
    else focusLater($("hand").querySelector(".card.playable"), byKeyboard);
  }

  /** Play the move chosen; whether there was one to play. */
  confirm() {
    const state = this.state;
    const text = this.planner()?.complete();
    if (!text || state.sending) return false;
    // the Play button is disabled while the move goes: the focus stays in the hand, not the page's body
    const keep = document.activeElement === $("confirm") || document.activeElement === document.body;
    state.sending = this.newId("mv");
    if (!this.send({ type: "move", id: state.sending, move: text })) state.sending = null;
    this.render();
    if (keep) this.focusHand();
    return true;
  }

  /** Put the focus on the hand: its first card that may be played, else its first card. */
  focusHand() {
    const hand = $("hand");
    const card = hand.querySelector(".card.playable") ?? hand.querySelector(".card");
    if (card) card.focus();
    else {
      hand.tabIndex = -1;
      hand.focus();
    }
  }

  /** The card numbered `n` (from 1) in the hand, chosen by its key; whether the key was used. */
  chooseByNumber(n) {
    const g = this.game();
    if (!this.planner() || !Array.isArray(g?.hand) || n > g.hand.length) return false;
    this.chooseCard(n - 1, true);
    $("hand").children[n - 1]?.focus();
    if (this.state.selected === n - 1) focusLater(this.cafe.targetElements()[0], true);
    return true;
  }

  /** The bar for the chosen card (the key B); whether the key was used. */
  chooseBar() {
    if (!this.planner()) return false;
    this.chooseTarget("bar", true);
    return true;
  }

  cancel() {
    this.clearPicks();
    this.render();
  }

  /** Escape: the picks go, and the focus returns to the hand. */
  escape() {
    const state = this.state;
    if (state.selected === null && !state.used.length && !state.nationAsk) return;
    this.cancel();
    focusLater($("hand").querySelector(".card.playable"), true);
  }

  /** Set the picks to a suggested move (the hint), so that it only needs confirming. */
  showSuggestion(text) {
    const state = this.state;
    const plan = this.planner();
    if (!plan) return;
    this.clearPicks();
    const hand = this.game().hand;
    for (const p of parseMove(text).placements) {
      const index = hand.findIndex((c, i) => c === p.card && !state.used.includes(i));
      if (index < 0 || !plan.pick(p.card, p.target, p.nation)) {
        this.clearPicks();
        break;
      }
      state.used.push(index);
    }
    this.render();
  }

  // --- drawing -----------------------------------------------------------------------------

  cardButton(card, index) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "card";
    button.dataset.card = card;
    button.dataset.index = String(index);
    // the name starts with what the card shows (its nation code), then says it in words
    button.setAttribute("aria-label", `${card.startsWith("J") ? "J" : card.slice(0, 2)}: ${guestWords(card, this.nations)} (${card})`);
    button.innerHTML = `<svg viewBox="-29 -35 58 70" aria-hidden="true">${guestTile(card, 56, 68)}</svg>`;
    button.addEventListener("click", (e) => this.chooseCard(index, e.detail === 0));
    return button;
  }

  renderHand() {
    const state = this.state;
    const g = this.game();
    const area = $("hand-area");
    const hand = g?.hand;
    const plan = this.planner();
    area.classList.toggle("watching", !Array.isArray(hand));
    const box = $("hand");
    if (!Array.isArray(hand)) {
      box.replaceChildren();
      box.dataset.hand = "";
      $("hand-title").textContent = state.view?.seat != null ? t("Your seat") : t("Watching");
      $("hand-info").textContent = "";
      return;
    }
    const me = g.players.find((p) => p.name === state.view.you);
    $("hand-title").textContent = t("Your hand");
    $("hand-info").textContent = me
      ? tn("{n} card · limit {limit} · deck {deck}", "{n} cards · limit {limit} · deck {deck}", hand.length, { limit: me.hand_limit, deck: g.deck_size })
      : "";
    // The buttons stay while the hand does, so that the focus stays on the card it was on (and
    // are made again in another language: their names say the cards in words).
    const key = `${document.documentElement.lang} ${hand.join(" ")}`;
    if (box.dataset.hand !== key || box.childElementCount !== hand.length) {
      // the focus stays in the hand when its cards change (a move played, cards drawn)
      const focused = box.contains(document.activeElement) ? [...box.children].indexOf(document.activeElement) : -1;
      box.replaceChildren(...hand.map((card, i) => this.cardButton(card, i)));
      if (focused >= 0 || box === document.activeElement) (box.children[Math.max(0, Math.min(focused, hand.length - 1))] ?? box).focus();
      box.dataset.hand = key;
      if (hand.length === 0) box.textContent = t("No cards in hand.");
    }
    const next = plan ? plan.nextCards() : new Set();
    hand.forEach((card, i) => {
      const button = box.children[i];
      const used = state.used.includes(i);
      const selected = state.selected === i;
      const playable = !used && !!plan && !state.sending && (selected || next.has(card));
      button.classList.toggle("used", used);
      button.classList.toggle("selected", selected);
      button.classList.toggle("playable", playable);
      const dim = !!plan && !state.sending && !used && !playable;
      button.classList.toggle("dim", dim);
      button.setAttribute("aria-pressed", String(selected));
      // what the eye reads in a faded card: placed in the move already, or not playable now
      if (used || dim) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
    });
  }

  renderNationChoice() {
    const box = $("nation-choice");
    const ask = this.state.nationAsk;
    box.hidden = !ask;
    const key = ask ? `${ask.card}@${ask.target}` : "";
    if (box.dataset.ask === key) return;
    box.dataset.ask = key;
    box.replaceChildren();
    if (!ask) return;
    const label = document.createElement("span");
    label.textContent = t("Seat {card} at {target} as:", { card: ask.card, target: ask.target });
    box.append(label);
    for (const nation of ask.nations) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "nation";
      button.dataset.nation = nation;
      button.innerHTML = `<svg viewBox="0 0 30 20" aria-hidden="true">${flagBox(nation, 0, 0, 30, 20)}</svg> ${nationName(nation, this.nations)}`;
      button.addEventListener("click", (e) => this.place(ask.card, ask.target, nation, e.detail === 0));
      box.append(button);
    }
  }

  renderMoveRow() {
    const state = this.state;
    const plan = this.planner();
    const g = this.game();
    const confirm = $("confirm");
    const text = plan?.complete() ?? null;
    confirm.disabled = !text || !!state.sending;
    // the move in words, as the list of moves says it; its notation stays on the button's data
    confirm.textContent = text ? t("Play: {move}", { move: moveWords(text, this.nations) }) : t("Play");
    confirm.dataset.move = text ?? "";
    confirm.title = text ?? "";
    $("cancel").disabled = !plan || (state.selected === null && state.used.length === 0) || !!state.sending;
    $("results-btn").hidden = !(g?.result && state.resultClosed);
    this.say(this.prompt(plan, text));
  }

  /** What the move `text` will score, in words ("It scores 4 points."), or nothing without a board. */
  pointsWords(text) {
    const g = this.game();
    if (!this.board || !g) return "";
    const points = movePoints(text, { chairs: g.chairs ?? {}, bar: g.bar ?? [], board: this.board });
    const me = (g.players ?? []).find((p) => p.name === this.state.view?.you);
    return scoreWords(points, me?.score);
  }

  /** What the prompt under the board says now. */
  prompt(plan, text) {
    const state = this.state;
    const g = this.game();
    if (!g) return state.view ? t("The game has not started.") : "";
    if (g.over) return t("The game is over.");
    if (!Array.isArray(g.hand)) return t("{name} is to move.", { name: g.to_move });
    if (!this.myTurn()) return t("{name} is to move. Your cards wait.", { name: g.to_move });
    if (state.sending) return t("Playing {move}…", { move: text });
    if (!plan) return t("Your turn: looking up your moves…");
    if (state.nationAsk) return t("A joker between two nations: which nation does it join?");
    if (state.selected !== null) {
      const card = g.hand[state.selected];
      const targets = plan.targets(card);
      return wherePrompt(card, targets);
    }
    if (text) {
      const words = moveWords(text, this.nations);
      const play = plan.canExtend() ? t("Play {move}, or add a second guest.", { move: words }) : t("Play {move}?", { move: words });
      return `${play} ${this.pointsWords(text)}`.trim();
    }
    if (state.used.length) {
      // one guest chosen that may not stay alone: the rule says why a second one is needed
      const pick = plan.picks[plan.picks.length - 1];
      const card = pick ? guestWords(pick.card, this.nations) : "";
      return t("{card} may not sit alone: at the end of a turn every guest seated shares a table with someone. Choose a second guest for that table.", { card });
    }
    return t("Your turn: choose a guest from your hand.");
  }

  renderBoard() {
    const state = this.state;
    const g = this.game();
    const plan = this.planner();
    const targets = plan && state.selected !== null && !state.sending ? plan.targets(g.hand[state.selected]) : new Map();
    this.cafe.update({
      chairs: g?.chairs ?? {},
      bar: g?.bar ?? [],
      targets,
      picks: plan ? plan.picks : [],
      last: recentMoves(g, state.view?.you),
    });
    this.zoom.showTargets(targets, this.cafe.targetElements()[0]);
  }
}
