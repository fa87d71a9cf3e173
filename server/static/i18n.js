// The page's words in the reader's language. Every text a person reads goes through t():
//
//   t("Seat {name}", { name: "ann" })          -> "Platz für ann" once German is chosen
//   tn("{n} card", "{n} cards", 2, { n: 2 })   -> "2 Karten"
//
// msgids are the English texts, extracted by Babel's javascript extractor (keywords t and tn:1,2)
// into the "page" domain; `make compile` writes each language's translations to i18n/<lang>.json
// (msgid -> text, or msgid -> [singular, plural] for tn). Placeholders are named: {name}.

export const LANGUAGES = ["en", "de"];
export const DEFAULT_LANGUAGE = "en";
const STORAGE_KEY = "cafe.lang";

const catalogs = { en: {} };
let current = DEFAULT_LANGUAGE;
const listeners = new Set();

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, key) =>
    Object.prototype.hasOwnProperty.call(params, key) ? String(params[key]) : whole,
  );
}

/** The text of `msgid` in the current language, its {placeholders} filled from `params`. */
export function t(msgid, params = {}) {
  const found = catalogs[current]?.[msgid];
  return fill(typeof found === "string" && found ? found : msgid, params);
}

/** The singular or plural text for `n`, in the current language (English and German: n == 1). */
export function tn(singular, plural, n, params = {}) {
  const found = catalogs[current]?.[singular];
  const forms = Array.isArray(found) && found[0] && found[1] ? found : [singular, plural];
  return fill(n === 1 ? forms[0] : forms[1], { n, ...params });
}

/** The language the page speaks now ("en" or "de"). */
export function language() {
  return current;
}

/** A language this page speaks for `wanted` ("de-AT" gives "de"), or null. */
export function supported(wanted) {
  const base = String(wanted || "").toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.includes(base) ? base : null;
}

function stored() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** The language to start in: the one chosen before, else the browser's first known one. */
export function preferredLanguage() {
  const chosen = supported(stored());
  if (chosen) return chosen;
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const lang of wanted) {
    const found = supported(lang);
    if (found) return found;
  }
  return DEFAULT_LANGUAGE;
}

/** Call `listener(lang)` after every change of language (to draw the page again). */
export function onLanguageChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Translate the static page: every element with data-i18n gets its text (its attribute holds the
 * msgid, or is empty and the English text is the msgid); data-i18n-title and
 * data-i18n-placeholder and data-i18n-aria-label do the same for those attributes. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    if (!el.dataset.i18n) el.dataset.i18n = el.textContent.trim();
    el.textContent = t(el.dataset.i18n);
  }
  for (const attr of ["title", "placeholder", "aria-label"]) {
    const key = `i18n${attr.replace(/(^|-)(\w)/g, (_, __, c) => c.toUpperCase())}`;
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) {
      if (!el.dataset[key]) el.dataset[key] = el.getAttribute(attr) || "";
      el.setAttribute(attr, t(el.dataset[key]));
    }
  }
}

/** Speak `lang` from now on: loads its catalog (i18n/<lang>.json) once, remembers the choice and
 * tells the listeners. Resolves to the language in use (unchanged when `lang` is unknown). */
export async function setLanguage(lang) {
  const chosen = supported(lang);
  if (!chosen) return current;
  if (!catalogs[chosen]) {
    // beside this module, wherever the page that imports it lives (/games/ID too)
    const response = await fetch(new URL(`i18n/${chosen}.json`, import.meta.url));
    if (!response.ok) return current;
    catalogs[chosen] = await response.json();
  }
  current = chosen;
  try {
    localStorage.setItem(STORAGE_KEY, chosen);
  } catch {
    // storage refused (a private window): the choice lasts until the page is closed
  }
  if (typeof document !== "undefined") {
    document.documentElement.lang = chosen;
    translatePage();
  }
  for (const listener of listeners) listener(chosen);
  return chosen;
}
