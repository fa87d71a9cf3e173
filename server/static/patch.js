// JSON Patch (RFC 6902) for the room view: the server sends a snapshot, then patches to apply in order.

export class PatchError extends Error {}

function unescape(token) {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

function parsePointer(path) {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new PatchError(`bad pointer ${JSON.stringify(path)}`);
  return path.slice(1).split("/").map(unescape);
}

function isContainer(value) {
  return value !== null && typeof value === "object";
}

function arrayIndex(array, token, forAdd) {
  if (forAdd && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${JSON.stringify(token)}`);
  const index = Number(token);
  if (index > array.length || (!forAdd && index === array.length)) {
    throw new PatchError(`array index ${index} out of range`);
  }
  return index;
}

function parentOf(doc, tokens) {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
    else if (isContainer(node) && Object.hasOwn(node, token)) node = node[token];
    else throw new PatchError(`no value at ${JSON.stringify(token)}`);
  }
  if (!isContainer(node)) throw new PatchError("the parent is not an object or array");
  return node;
}

function get(doc, tokens) {
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return parent[arrayIndex(parent, last, false)];
  if (!Object.hasOwn(parent, last)) throw new PatchError(`no value at ${JSON.stringify(last)}`);
  return parent[last];
}

function add(doc, tokens, value) {
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, value);
  else parent[last] = value;
  return doc;
}

function remove(doc, tokens) {
  if (tokens.length === 0) throw new PatchError("cannot remove the whole document");
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false), 1);
  else if (Object.hasOwn(parent, last)) delete parent[last];
  else throw new PatchError(`no value at ${JSON.stringify(last)} to remove`);
  return doc;
}

function equal(a, b) {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isContainer(a)) {
    if (!isContainer(b) || Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return a === b;
}

/** The document after `ops`, applied in order; `doc` itself is left unchanged. Throws PatchError. */
export function applyPatch(doc, ops) {
  let result = structuredClone(doc);
  for (const op of ops) {
    const tokens = parsePointer(op.path);
    switch (op.op) {
      case "add":
        result = add(result, tokens, structuredClone(op.value));
        break;
      case "remove":
        result = remove(result, tokens);
        break;
      case "replace":
        get(result, tokens);
        result = tokens.length === 0 ? structuredClone(op.value) : add(remove(result, tokens), tokens, structuredClone(op.value));
        break;
      case "move": {
        const from = parsePointer(op.from);
        const value = get(result, from);
        result = add(remove(result, from), tokens, value);
        break;
      }
      case "copy":
        result = add(result, tokens, structuredClone(get(result, parsePointer(op.from))));
        break;
      case "test":
        if (!equal(get(result, tokens), op.value)) throw new PatchError(`test failed at ${op.path}`);
        break;
      default:
        throw new PatchError(`unknown operation ${JSON.stringify(op.op)}`);
    }
  }
  return result;
}
