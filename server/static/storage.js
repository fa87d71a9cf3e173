// What the page keeps in the browser between visits (the name, the resume token, the room, the
// settings). A browser may refuse storage (a private window): the page then works without it.

export const saved = {
  get(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch {
      // storage refused: the page still works, without resuming
    }
  },
};

/**
 * `headers` with the kept resume token as `Authorization: Bearer`: the server shows a private
 * room's games (and where its people are) only to those it names.
 */
export function readerHeaders(headers = {}) {
  const token = saved.get("cafe.token");
  return token ? { ...headers, Authorization: `Bearer ${token}` } : headers;
}
