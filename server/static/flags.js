// The twelve nations' flags, simplified, and the guest tiles drawn with them (SVG markup).
// Every flag is drawn in a 30 x 20 box; callers place it with a nested <svg>.

import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

function star(cx, cy, r, fill, turn = 0) {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const radius = i % 2 === 0 ? r : r * 0.4;
    const angle = turn + (Math.PI / 5) * i - Math.PI / 2;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(2)},${(cy + radius * Math.sin(angle)).toFixed(2)}`);
  }
  return `<polygon points="${points.join(" ")}" fill="${fill}"/>`;
}

function stripes(colours, vertical = false) {
  const n = colours.length;
  return colours
    .map((c, i) =>
      vertical
        ? `<rect x="${(30 / n) * i}" y="0" width="${30 / n + 0.05}" height="20" fill="${c}"/>`
        : `<rect x="0" y="${(20 / n) * i}" width="30" height="${20 / n + 0.05}" fill="${c}"/>`,
    )
    .join("");
}

const FLAGS = {
  FR: () => stripes(["#0055a4", "#ffffff", "#ef4135"], true),
  IT: () => stripes(["#009246", "#ffffff", "#ce2b37"], true),
  DE: () => stripes(["#000000", "#dd0000", "#ffce00"]),
  RU: () => stripes(["#ffffff", "#0039a6", "#d52b1e"]),
  ES: () => `<rect width="30" height="20" fill="#aa151b"/><rect y="5" width="30" height="10" fill="#f1bf00"/>`,
  GB: () =>
    `<rect width="30" height="20" fill="#012169"/>` +
    `<path d="M0,0 L30,20 M30,0 L0,20" stroke="#fff" stroke-width="4"/>` +
    `<path d="M0,0 L30,20 M30,0 L0,20" stroke="#c8102e" stroke-width="1.4"/>` +
    `<path d="M15,0 V20 M0,10 H30" stroke="#fff" stroke-width="6"/>` +
    `<path d="M15,0 V20 M0,10 H30" stroke="#c8102e" stroke-width="3.4"/>`,
  US: () => {
    let s = "";
    for (let i = 0; i < 13; i += 1) s += `<rect y="${(20 / 13) * i}" width="30" height="${20 / 13 + 0.05}" fill="${i % 2 ? "#fff" : "#b22234"}"/>`;
    s += `<rect width="12" height="${(20 / 13) * 7}" fill="#3c3b6e"/>`;
    for (let r = 0; r < 3; r += 1) for (let c = 0; c < 4; c += 1) s += `<circle cx="${1.8 + c * 2.8}" cy="${1.9 + r * 3.4}" r="0.6" fill="#fff"/>`;
    return s;
  },
  CN: () =>
    `<rect width="30" height="20" fill="#ee1c25"/>` +
    star(5, 5, 3, "#ffde00") +
    star(10, 2, 1, "#ffde00", 0.4) +
    star(12, 4, 1, "#ffde00", 0.8) +
    star(12, 7, 1, "#ffde00", 0) +
    star(10, 9, 1, "#ffde00", 0.4),
  IN: () =>
    stripes(["#ff9933", "#ffffff", "#138808"]) +
    `<circle cx="15" cy="10" r="2.6" fill="none" stroke="#000080" stroke-width="0.8"/><circle cx="15" cy="10" r="0.6" fill="#000080"/>`,
  TR: () =>
    `<rect width="30" height="20" fill="#e30a17"/>` +
    `<circle cx="11.5" cy="10" r="5" fill="#fff"/><circle cx="12.8" cy="10" r="4" fill="#e30a17"/>` +
    star(17.4, 10, 2.3, "#fff", -Math.PI / 2 + Math.PI / 5 + Math.PI / 2),
  CU: () =>
    stripes(["#002a8f", "#ffffff", "#002a8f", "#ffffff", "#002a8f"]) +
    `<polygon points="0,0 13,10 0,20" fill="#cf142b"/>` +
    star(4.3, 10, 2.4, "#fff"),
  CF: () =>
    stripes(["#003082", "#ffffff", "#289728", "#ffce00"]) +
    `<rect x="12.5" width="5" height="20" fill="#d21034"/>` +
    star(4, 2.5, 1.8, "#ffce00"),
};

const JOKER_FLAG = () =>
  `<rect width="30" height="20" fill="#5b2a86"/>` + star(15, 10, 6, "#ffd54f");

/** The flag of `nation` as SVG markup in a 30 x 20 box (a joker's starred purple without a nation). */
export function flagMarkup(nation) {
  return (FLAGS[nation] ?? JOKER_FLAG)();
}

// Flags with an emblem keep their proportions (cropped to fill a box); striped flags stretch,
// so that a narrow band still shows every stripe.
const EMBLEMS = new Set(["CN", "IN", "TR", null]);

/** A nested <svg> element string that draws the flag filling the rectangle given. */
export function flagBox(nation, x, y, width, height, extra = "") {
  const fit = EMBLEMS.has(nation ?? null) ? "xMidYMid slice" : "none";
  return (
    `<svg x="${x}" y="${y}" width="${width}" height="${height}" viewBox="0 0 30 20" ` +
    `preserveAspectRatio="${fit}" ${extra}>${flagMarkup(nation)}</svg>`
  );
}

/**
 * A guest as drawn on the board and in the hand: {card, nation, gender, joker}. A card text is
 * "FRf", "Jm", or a seated joker "Jf=FR".
 */
export function readGuest(text) {
  const [card, declared] = text.split("=");
  const joker = card[0] === "J";
  return {
    text,
    card,
    joker,
    nation: joker ? (declared ?? null) : card.slice(0, 2),
    gender: card[card.length - 1],
  };
}

export const GENDER_GLYPH = { m: "♂", f: "♀" };
/** "man" or "woman" in the page's language ("Herr", "Dame"). */
export function genderWord(gender) {
  return gender === "f" ? t("woman") : t("man");
}

/** A nation's name in the page's language ("Frankreich"); `nations` (the board's English names)
 * names a nation this page has no words for. */
export function nationName(code, nations = {}) {
  // written out one by one so that the extraction finds every name
  const names = {
    CF: t("Central Africa"),
    CN: t("China"),
    CU: t("Cuba"),
    DE: t("Germany"),
    ES: t("Spain"),
    FR: t("France"),
    GB: t("United Kingdom"),
    IN: t("India"),
    IT: t("Italy"),
    RU: t("Russia"),
    TR: t("Turkey"),
    US: t("USA"),
  };
  return names[code] ?? nations[code] ?? code;
}

/** A guest of a nation, `gender` its word for a man or a woman: one whole phrase a nation, so that
 * each language words it its own way ("Dame aus der Türkei", "Herr aus den USA"); null for a
 * nation this page has no words for. */
function nativeWords(code, gender) {
  // written out one by one so that the extraction finds every phrase
  const phrases = {
    CF: () => t("Central Africa {gender}", { gender }),
    CN: () => t("China {gender}", { gender }),
    CU: () => t("Cuba {gender}", { gender }),
    DE: () => t("Germany {gender}", { gender }),
    ES: () => t("Spain {gender}", { gender }),
    FR: () => t("France {gender}", { gender }),
    GB: () => t("United Kingdom {gender}", { gender }),
    IN: () => t("India {gender}", { gender }),
    IT: () => t("Italy {gender}", { gender }),
    RU: () => t("Russia {gender}", { gender }),
    TR: () => t("Turkey {gender}", { gender }),
    US: () => t("USA {gender}", { gender }),
  };
  return phrases[code]?.() ?? null;
}

/** A joker declared as a nation, in one whole phrase a nation ("Joker (Herr) für die Türkei"). */
function jokerWords(code, gender) {
  const phrases = {
    CF: () => t("joker ({gender}) as Central Africa", { gender }),
    CN: () => t("joker ({gender}) as China", { gender }),
    CU: () => t("joker ({gender}) as Cuba", { gender }),
    DE: () => t("joker ({gender}) as Germany", { gender }),
    ES: () => t("joker ({gender}) as Spain", { gender }),
    FR: () => t("joker ({gender}) as France", { gender }),
    GB: () => t("joker ({gender}) as United Kingdom", { gender }),
    IN: () => t("joker ({gender}) as India", { gender }),
    IT: () => t("joker ({gender}) as Italy", { gender }),
    RU: () => t("joker ({gender}) as Russia", { gender }),
    TR: () => t("joker ({gender}) as Turkey", { gender }),
    US: () => t("joker ({gender}) as USA", { gender }),
  };
  return phrases[code]?.() ?? null;
}

/** Words for a guest, for titles and screen readers: "France woman", "joker (man) as Spain";
 * in German "Dame aus Frankreich", "Joker (Herr) für Spanien". */
export function guestWords(text, nations) {
  const g = readGuest(text);
  const gender = genderWord(g.gender);
  if (g.joker) {
    if (!g.nation) return t("joker ({gender})", { gender });
    return jokerWords(g.nation, gender) ?? t("joker ({gender}) as {nation}", { gender, nation: nationName(g.nation, nations) });
  }
  return nativeWords(g.nation, gender) ?? t("{nation} {gender}", { nation: nationName(g.nation, nations), gender });
}

/** Make an SVG element with attributes. */
export function svgEl(name, attrs = {}) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * SVG markup of a guest tile centred on (0, 0), `w` x `h`: the flag across the top, the nation
 * code and the gender below; a joker is gold with a J badge (and its declared nation's flag).
 */
let tileCount = 0;

export function guestTile(text, w, h, { compact = false } = {}) {
  const g = readGuest(text);
  const x = -w / 2;
  const y = -h / 2;
  const r = h * 0.16;
  // a compact tile (the bar's) gives the letters more of its height, so that they stay legible
  const band = Math.round(h * (compact ? 0.18 : 0.36));
  const code = g.nation ?? "J";
  // the code sits at the left edge and the sign at the right: sized to the width, they never touch
  const fs = Math.min(h * (compact ? 0.5 : 0.34), w * 0.3);
  const base = y + band + (h - band) * 0.5 + fs * 0.36;
  const inset = w * 0.08;
  tileCount += 1;
  const clip = `tile-${tileCount}`;
  let s = `<rect class="tile" x="${x}" y="${y}" width="${w}" height="${h}" rx="${r}" fill="${g.joker ? "#ffe9a8" : "#fffdf8"}"/>`;
  // the flag fills the top of the card, inside its rounded border
  s += `<clipPath id="${clip}"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${r}"/></clipPath>`;
  s += `<g clip-path="url(#${clip})">${flagBox(g.nation, x, y, w, band, `class="band"`)}</g>`;
  s += `<line x1="${x}" x2="${-x}" y1="${y + band}" y2="${y + band}" stroke="rgba(0,0,0,0.18)" stroke-width="1"/>`;
  s += `<rect class="tile-edge" x="${x}" y="${y}" width="${w}" height="${h}" rx="${r}" fill="none" stroke="${g.joker ? "#b8860b" : "#6d5a45"}" stroke-width="1.5"/>`;
  if (compact) {
    // a small tile (the bar's): a thin flag, and the code and the sign as large as the width allows
    const big = Math.min((h - band) * 0.72, w * 0.42);
    const line = y + band + (h - band) / 2 + big * 0.36;
    s += `<text class="code" x="${x + w * 0.06}" y="${line}" font-size="${big}" text-anchor="start">${code}</text>`;
    s += `<text class="glyph g-${g.gender}" x="${-x - w * 0.06}" y="${line}" font-size="${big}" text-anchor="end">${GENDER_GLYPH[g.gender]}</text>`;
    return s;
  }
  s += `<text class="code" x="${x + inset}" y="${base}" font-size="${fs}" text-anchor="start">${code}</text>`;
  s += `<text class="glyph g-${g.gender}" x="${-x - inset}" y="${base}" font-size="${fs}" text-anchor="end">${GENDER_GLYPH[g.gender]}</text>`;
  if (g.joker) {
    // the J badge sits inside the flag band, within the tile's edge, large enough to read
    const b = Math.min(band * 0.5, w * 0.2);
    const cx = -x - b - w * 0.05;
    const cy = y + band / 2;
    s += `<circle class="j-badge" cx="${cx}" cy="${cy}" r="${b}" fill="#5b2a86" stroke="#fff" stroke-width="1"/>`;
    s += `<text x="${cx}" y="${cy + b * 0.55}" font-size="${b * 1.6}" text-anchor="middle" fill="#fff" font-weight="700">★</text>`;
  }
  return s;
}
