// The page's words: `t(msgid, params)` gives the text for a message in the chosen language, with
// its named `{placeholders}` filled in. Until translations are loaded, the msgid is the English text.

let current = "en";

/** The text for `msgid` with each `{name}` replaced by `params.name`. */
export function t(msgid, params = {}) {
  return msgid.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

/** Choose the page's language (a code such as "en"). */
export function setLanguage(lang) {
  current = String(lang);
}

/** The page's language. */
export function language() {
  return current;
}
