// The café in SVG: the tables of the board on their grid, every chair (a shared chair sits on the
// line between its two tables), and the bar with its 20 places in the middle cell.

import { flagBox, guestTile, guestWords, nationName, readGuest, svgEl } from "./flags.js";
import { t } from "./i18n.js";

const CELL = 150; // one grid cell, in SVG units
const PAD = 12;
const TABLE_R = 27;
const CHAIR = 42; // a chair's side
const OWN_CHAIR = 53; // distance from a table's centre to a chair of its own
const STEP = { n: [0, -1], e: [1, 0], s: [0, 1], w: [-1, 0] };
const SIDES = ["n", "e", "s", "w"];

/** The guest a chosen (not yet played) placement shows on its chair. */
function pickedGuest(pick, chair) {
  if (pick.kind !== "swap" && pick.card.startsWith("J")) return `${pick.card}=${pick.nation ?? chair.nations[0]}`;
  return pick.card;
}

export class CafeBoard {
  /**
   * Draw `board` (board.json) into the <svg> `svg`. `onChair(name)` and `onBar()` are called when
   * a chair or the bar is chosen, with `true` when by keyboard.
   */
  constructor(svg, board, { onChair, onBar }) {
    this.svg = svg;
    this.board = board;
    this.onChair = onChair;
    this.onBar = onBar;
    this.chairs = new Map(); // canonical name -> {el, guestEl, key}
    this.slots = [];
    this.tableByName = new Map(board.tables.map((t) => [t.name, t]));
    this._build();
  }

  _centre(table) {
    return [PAD + table.col * CELL + CELL / 2, PAD + table.row * CELL + CELL / 2];
  }

  _chairPosition(chair) {
    const tables = chair.tables.map((n) => this.tableByName.get(n));
    if (tables.length === 2) {
      const [a, b] = tables.map((t) => this._centre(t));
      return [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    }
    const table = tables[0];
    const side = SIDES[table.chairs.indexOf(chair.name)];
    const [x, y] = this._centre(table);
    return [x + STEP[side][0] * OWN_CHAIR, y + STEP[side][1] * OWN_CHAIR];
  }

  _build() {
    const size = this.board.cols * CELL + 2 * PAD;
    const svg = this.svg;
    svg.setAttribute("viewBox", `0 0 ${size} ${this.board.rows * CELL + 2 * PAD}`);
    svg.innerHTML =
      `<defs>` +
      `<filter id="shadow" x="-30%" y="-30%" width="160%" height="160%"><feDropShadow dx="0" dy="1.5" stdDeviation="1.6" flood-color="#3e2a14" flood-opacity="0.35"/></filter>` +
      `<pattern id="floor" width="50" height="50" patternUnits="userSpaceOnUse"><rect width="50" height="50" fill="#f6ecdc"/><rect width="25" height="25" fill="#f1e4cf"/><rect x="25" y="25" width="25" height="25" fill="#f1e4cf"/></pattern>` +
      `<clipPath id="seat-clip"><rect x="${-CHAIR / 2}" y="${-CHAIR / 2}" width="${CHAIR}" height="${CHAIR}" rx="9"/></clipPath>` +
      `</defs>` +
      `<rect class="floor" x="0" y="0" width="${size}" height="${size}" rx="18" fill="url(#floor)"/>`;
    const tables = svgEl("g", { class: "tables" });
    for (const table of this.board.tables) tables.append(this._table(table));
    svg.append(tables);
    if (this.board.bar_cell) svg.append(this._bar());
    const chairs = svgEl("g", { class: "chairs" });
    for (const chair of this.board.chairs) chairs.append(this._chair(chair));
    svg.append(chairs);
    this.relabel();
  }

  _table(table) {
    const [x, y] = this._centre(table);
    const nation = nationName(table.nation, this.board.nations);
    const g = svgEl("g", { class: "table", "data-table": table.name, transform: `translate(${x},${y})` });
    const id = `tclip-${table.name}`;
    g.innerHTML =
      `<title>${table.name}: ${nation}</title>` +
      `<clipPath id="${id}"><circle r="${TABLE_R}"/></clipPath>` +
      `<circle r="${TABLE_R + 2}" fill="#fff" filter="url(#shadow)"/>` +
      `<g clip-path="url(#${id})">${flagBox(table.nation, -TABLE_R * 1.5, -TABLE_R, TABLE_R * 3, TABLE_R * 2)}</g>` +
      `<circle class="table-edge" r="${TABLE_R}" fill="none" stroke="#fff" stroke-width="2"/>` +
      `<rect x="-17" y="-8" width="34" height="16" rx="8" fill="rgba(30,20,10,0.72)"/>` +
      `<text class="table-name" y="4.5" text-anchor="middle">${table.name}</text>`;
    return g;
  }

  _chair(chair) {
    const [x, y] = this._chairPosition(chair);
    const h = CHAIR / 2;
    // a chair of one table has its back to the room; a shared chair is a bench between two tables
    let back = "";
    if (chair.tables.length === 1) {
      const table = this.tableByName.get(chair.tables[0]);
      const [dx, dy] = STEP[SIDES[table.chairs.indexOf(chair.name)]];
      const t = 7;
      const bx = dx > 0 ? h - t : dx < 0 ? -h : -h;
      const by = dy > 0 ? h - t : dy < 0 ? -h : -h;
      const bw = dx !== 0 ? t : CHAIR;
      const bh = dy !== 0 ? t : CHAIR;
      back = `<rect class="chair-back" x="${bx}" y="${by}" width="${bw}" height="${bh}" clip-path="url(#seat-clip)"/>`;
    }
    const g = svgEl("g", {
      class: chair.tables.length === 2 ? "chair shared" : "chair",
      "data-chair": chair.name,
      transform: `translate(${x},${y})`,
      role: "button",
      tabindex: "-1",
    });
    g.innerHTML =
      `<title></title>` +
      `<rect class="seat" x="${-h}" y="${-h}" width="${CHAIR}" height="${CHAIR}" rx="9"/>` +
      back +
      `<g class="guest"></g>` +
      `<rect class="ring" x="${-h - 4}" y="${-h - 4}" width="${CHAIR + 8}" height="${CHAIR + 8}" rx="12"/>` +
      `<rect class="focus" x="${-h - 6}" y="${-h - 6}" width="${CHAIR + 12}" height="${CHAIR + 12}" rx="13"/>` +
      `<g class="badge"></g>`;
    g.addEventListener("click", () => this.onChair(chair.name, false));
    g.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        this.onChair(chair.name, true);
      }
    });
    this.chairs.set(chair.name, { el: g, guestEl: g.querySelector(".guest"), key: null, chair });
    return g;
  }

  _bar() {
    const [row, col] = this.board.bar_cell;
    const x = PAD + col * CELL + CELL / 2;
    const y = PAD + row * CELL + CELL / 2;
    const g = svgEl("g", { class: "bar", transform: `translate(${x},${y})` });
    g.innerHTML =
      `<title></title>` +
      `<rect class="counter" x="-71" y="-71" width="142" height="142" rx="14" filter="url(#shadow)"/>` +
      `<rect class="ring" x="-74" y="-74" width="148" height="148" rx="16"/>` +
      `<rect class="focus" x="-77" y="-77" width="154" height="154" rx="18"/>` +
      `<text class="bar-title" y="-56" text-anchor="middle">BAR</text>`;
    // the places speak through the bar's own label; their figures are for the eye
    const places = svgEl("g", { "aria-hidden": "true" });
    g.append(places);
    const values = this.board.bar_values;
    for (let i = 0; i < values.length; i += 1) {
      const sx = -67 + (i % 5) * 27 + 12.5;
      const sy = -49 + Math.floor(i / 5) * 30 + 14;
      const slot = svgEl("g", { class: values[i] > 0 ? "slot plus" : "slot minus", transform: `translate(${sx},${sy})` });
      const value = values[i] > 0 ? `+${values[i]}` : `−${-values[i]}`;
      slot.innerHTML =
        `<title></title>` +
        `<rect class="place" x="-12.5" y="-14" width="25" height="28" rx="4"/>` +
        `<g class="guest"></g>` +
        `<text class="value" y="11.5" text-anchor="middle">${value}</text>`;
      this.slots.push({ el: slot, guestEl: slot.querySelector(".guest"), key: null });
      places.append(slot);
    }
    // the button is a clear pane over the counter: its name is its label alone, not the figures
    // of the places under it
    const hit = svgEl("rect", { class: "bar-hit", x: -71, y: -71, width: 142, height: 142, rx: 14, role: "button", tabindex: "-1" });
    g.append(hit);
    this.barHit = hit;
    g.addEventListener("click", () => this.onBar(false));
    hit.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        this.onBar(true);
      }
    });
    this.barEl = g;
    return g;
  }

  /** Write the tables' and the bar's titles again in the page's language (the chairs' labels are
   * written by every update). */
  relabel() {
    for (const table of this.board.tables) {
      const title = this.svg.querySelector(`.table[data-table="${table.name}"] > title`);
      if (title) title.textContent = `${table.name}: ${nationName(table.nation, this.board.nations)}`;
    }
    if (!this.barEl) return;
    this.barEl.querySelector(":scope > title").textContent = t("The bar: 20 places, filled in order");
    this.slots.forEach((slot, i) => {
      const value = this.board.bar_values[i];
      const shown = value > 0 ? `+${value}` : `−${-value}`;
      slot.el.querySelector(":scope > title").textContent = t("place {number}: {value}", { number: i + 1, value: shown });
    });
  }

  /** The chairs (in board order) and the bar that may be chosen now, as elements. */
  targetElements() {
    const found = [...this.chairs.values()].filter((c) => c.el.classList.contains("target")).map((c) => c.el);
    if (this.barEl?.classList.contains("target")) found.push(this.barHit);
    return found;
  }

  /**
   * Show a state: `chairs` (name -> guest text), `bar` (guest texts from place 1), `targets`
   * (Map target -> {kind}), `picks` ([{card, target, nation}] not yet played), `last`
   * ({chairs: Set, bar: place index or null}).
   */
  update({ chairs, bar, targets, picks, last }) {
    const nations = this.board.nations;
    const picked = new Map();
    picks.forEach((p, i) => picked.set(p.target, { ...p, number: i + 1 }));
    for (const [name, c] of this.chairs) {
      const seated = chairs[name] ?? null;
      const pick = picked.get(name);
      const shown = pick ? pickedGuest(pick, c.chair) : seated;
      const key = `${shown}|${pick ? pick.number : ""}`;
      if (key !== c.key) {
        c.key = key;
        c.guestEl.innerHTML = shown ? guestTile(shown, CHAIR - 2, CHAIR - 2) : "";
        const badge = c.el.querySelector(".badge");
        badge.innerHTML = pick
          ? `<circle cx="${CHAIR / 2 - 2}" cy="${CHAIR / 2 - 2}" r="8" class="pick-badge"/><text x="${CHAIR / 2 - 2}" y="${CHAIR / 2 + 2}" text-anchor="middle" class="pick-number">${pick.number}</text>`
          : "";
      }
      const target = targets.get(name);
      c.el.classList.toggle("occupied", seated !== null);
      c.el.dataset.guest = seated ?? "";
      c.el.classList.toggle("target", target !== undefined);
      c.el.classList.toggle("swap", target?.kind === "swap");
      c.el.classList.toggle("picked", pick !== undefined);
      c.el.classList.toggle("last", last.chairs.has(name));
      c.el.setAttribute("tabindex", target !== undefined ? "0" : "-1");
      const where =
        c.chair.tables.length === 2
          ? t("between {first} and {second}", { first: c.chair.tables[0], second: c.chair.tables[1] })
          : t("at {table}", { table: c.chair.tables[0] });
      const who = seated ? guestWords(seated, nations) : t("free");
      // the name starts with what the chair shows: the seated guest's nation code
      const shows = shown ? `${readGuest(shown).nation ?? "J"}: ` : "";
      const chosen = pick ? t(", chosen: {card}", { card: pick.card }) : "";
      const words = t("chair {names}, {where}: {who}", { names: c.chair.names.join(" = "), where, who });
      const label = shows + words + chosen;
      c.el.setAttribute("aria-label", label);
      c.el.querySelector("title").textContent = label;
    }
    const barPick = picked.get("bar");
    for (let i = 0; i < this.slots.length; i += 1) {
      const slot = this.slots[i];
      const shown = bar[i] ?? (barPick && i === bar.length ? barPick.card : null);
      if (shown !== slot.key) {
        slot.key = shown;
        // the guest fills the top of the place; its value stays readable below it
        // the guest fills the top of the place, its letters as large as the width allows; its value stays readable below it
        slot.guestEl.innerHTML = shown ? `<g transform="translate(0,-5.5)">${guestTile(shown, 25, 17, { compact: true })}</g>` : "";
      }
      slot.el.classList.toggle("taken", bar[i] !== undefined);
      slot.el.classList.toggle("next", i === bar.length);
      slot.el.classList.toggle("picked", barPick !== undefined && i === bar.length);
      slot.el.classList.toggle("last", last.bar.has(i));
    }
    if (this.barEl) {
      const target = targets.has("bar");
      this.barEl.classList.toggle("target", target);
      this.barHit.classList.toggle("target", target);
      this.barHit.setAttribute("tabindex", target ? "0" : "-1");
      const taken = t("the bar: {n} of 20 places taken", { n: bar.length });
      const choose = target ? t(", choose to send the guest to the bar") : "";
      this.barHit.setAttribute("aria-label", taken + choose);
    }
  }
}
