// Building the page's elements.

/** A new element: `attrs` are attributes, or listeners for keys starting with "on". */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/**
 * `map[key]` when `map` holds `key` itself: a player's name is any word, `valueOf` and
 * `constructor` too, which a plain object's lookup would find among its own functions.
 */
export function own(map, key) {
  return map && Object.hasOwn(map, key) ? map[key] : undefined;
}
