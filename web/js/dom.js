// A tiny helper to build DOM trees without a framework, and the patcher that
// puts a freshly built tree on the page by changing the elements already there.
//
// Every render builds the page anew with `h` (and the board builders), then
// `patch` walks the new tree against the live one: an element rendered again
// in the same place (same tag, same key) is kept and only its attributes,
// properties, listeners and children are brought up to date. So the focused
// element, a box's scroll position, a text field's caret and the button under
// a pressed pointer are the same elements before and after a frame, and
// nothing has to be put back by hand.
//
// Listeners are kept in a table on the element (`on`), behind one listener per
// event type: patching swaps the table, so a kept element runs the handlers of
// the latest render and never those of an earlier one.

/**
 * h("button", { class: "primary", onclick: fn, "aria-label": "…" }, "text", child)
 * Attributes starting with "on" become listeners; `dataset` takes an object;
 * `key` names the element among its siblings for `patch` (an id does too);
 * false, null and undefined attributes and children are skipped, but `checked`
 * and `selected` are always set, so a patch can also clear them.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "checked" || name === "selected") {
      setProp(el, name, Boolean(value));
      continue;
    }
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") {
      on(el, name.slice(2), value);
    } else if (name === "key") {
      el.patchKey = String(value);
    } else if (name === "dataset") {
      Object.assign(el.dataset, value);
    } else if (name === "class") {
      el.className = value;
    } else if (name === "text") {
      el.textContent = value;
    } else if (name === "value") {
      setProp(el, "value", value);
    } else if (name === "disabled") {
      el.disabled = true;
    } else if (name === "style" && typeof value === "object") {
      for (const [key, v] of Object.entries(value)) el.style.setProperty(key, v);
    } else {
      el.setAttribute(name, value === true ? "" : value);
    }
  }
  append(el, children);
  // A list's value names one of its options, which are there only now.
  if (el.renderedProps && "value" in el.renderedProps) el.value = el.renderedProps.value;
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.append(child);
    else el.append(document.createTextNode(String(child)));
  }
}

/**
 * A property the render sets (a field's value, a box's checked state): set now
 * and remembered, since properties are not attributes and `patch` could not
 * otherwise tell which ones the render chose.
 */
function setProp(el, name, value) {
  el[name] = value;
  el.renderedProps = { ...el.renderedProps, [name]: value };
}

/** Adds a listener that `patch` carries over to the element it keeps. */
export function on(el, type, handler) {
  if (!el.handlers) el.handlers = {};
  if (!el.handlers[type]) el.handlers[type] = [];
  el.handlers[type].push(handler);
  listen(el, type);
}

function listen(el, type) {
  if (!el.listening) el.listening = new Set();
  if (el.listening.has(type)) return;
  el.listening.add(type);
  el.addEventListener(type, runHandlers);
}

function runHandlers(event) {
  for (const handler of event.currentTarget.handlers?.[event.type] || []) handler.call(event.currentTarget, event);
}

/** What names an element among its siblings: its key, else its id. */
function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  return node.patchKey ?? (node.id || null);
}

/** Whether a live node can be kept for a newly rendered one. */
function compatible(old, node) {
  if (old.nodeType !== node.nodeType || old.nodeName !== node.nodeName) return false;
  if (keyOf(old) !== keyOf(node)) return false;
  // A text field must not turn into a check box under the caret.
  return old.nodeName !== "INPUT" || old.type === node.type;
}

/** Same tag and same classes: most likely the same thing rendered again. */
function alike(old, node) {
  return compatible(old, node) && (node.nodeType !== Node.ELEMENT_NODE || old.getAttribute("class") === node.getAttribute("class"));
}

// How far the matching of unkeyed siblings looks ahead to tell a changed
// element from one inserted or removed beside it.
const LOOK_AHEAD = 8;

/**
 * Makes `parent`'s children those of `fresh` (an array of nodes), keeping
 * every live child that matches one: by key, else in order among the unkeyed
 * ones, so that an element shown only sometimes does not shift its siblings
 * onto each other (see `matchUnkeyed`).
 */
export function patch(parent, fresh) {
  const olds = [...parent.childNodes];
  const byKey = new Map();
  const free = [];
  for (const old of olds) {
    const key = keyOf(old);
    if (key !== null && !byKey.has(key)) byKey.set(key, old);
    else free.push(old);
  }
  const unkeyed = fresh.filter((node) => keyOf(node) === null);
  const result = [];
  let i = 0;
  let j = 0;
  for (const node of fresh) {
    const key = keyOf(node);
    let match = null;
    if (key !== null) {
      const old = byKey.get(key);
      if (old && compatible(old, node)) {
        match = old;
        byKey.delete(key);
      }
    } else {
      const k = matchUnkeyed(free, j, unkeyed, i);
      i += 1;
      if (k !== null) {
        match = free[k];
        j = k + 1;
      }
    }
    result.push(match ? morph(match, node) : node);
  }
  const kept = new Set(result);
  for (const old of olds) if (!kept.has(old)) old.remove();
  let ref = parent.firstChild;
  for (const node of result) {
    if (node === ref) ref = ref.nextSibling;
    else parent.insertBefore(node, ref);
  }
}

/**
 * Which live unkeyed sibling (an index into `free`, from `j` on) to keep for
 * `fresh[i]`, or null for none. Three readings are weighed by how well the
 * siblings after them line up (same tag and classes): the live one changed in
 * place, the new one was inserted before it, or the live ones up to an alike
 * one were removed. Ties keep the element in place.
 */
function matchUnkeyed(free, j, fresh, i) {
  const node = fresh[i];
  const agree = (jo, io) => {
    let n = 0;
    for (let t = 0; t < LOOK_AHEAD && jo + t < free.length && io + t < fresh.length; t += 1) {
      if (alike(free[jo + t], fresh[io + t])) n += 1;
    }
    return n;
  };
  let best = null;
  let score = -1;
  if (j < free.length && compatible(free[j], node)) {
    best = j;
    score = (alike(free[j], node) ? 1 : 0.5) + agree(j + 1, i + 1);
    if (score >= 1 + Math.min(LOOK_AHEAD, free.length - j - 1, fresh.length - i - 1)) return j;
  }
  for (let k = j + 1; k < Math.min(free.length, j + 1 + LOOK_AHEAD); k += 1) {
    if (!alike(free[k], node)) continue;
    const removed = 1 + agree(k + 1, i + 1);
    if (removed > score) {
      best = k;
      score = removed;
    }
  }
  if (j < free.length && agree(j, i + 1) > score) return null;
  return best;
}

/** Brings the live node `old` up to what `node` is, and returns it. */
function morph(old, node) {
  if (old === node) return old;
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== node.nodeValue) old.nodeValue = node.nodeValue;
    return old;
  }
  for (const { name } of [...old.attributes]) if (!node.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of node.attributes) {
    if (old.getAttribute(name) === value) continue;
    // Styles go through the CSSOM: the page's Content-Security-Policy refuses
    // a style attribute written as text (setAttribute), not style properties.
    if (name === "style") old.style.cssText = node.style.cssText;
    else old.setAttribute(name, value);
  }
  old.handlers = node.handlers;
  for (const type of Object.keys(node.handlers || {})) listen(old, type);
  patch(old, [...node.childNodes]);
  // After the children: a list's value names one of its options.
  for (const [name, value] of Object.entries(node.renderedProps || {})) {
    // What the person is typing stays: the render's value only comes back once they leave the field.
    if (name === "value" && old === document.activeElement) continue;
    if (old[name] !== value) old[name] = value;
  }
  old.renderedProps = node.renderedProps;
  return old;
}
