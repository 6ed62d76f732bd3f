// A tiny helper to build DOM trees without a framework.

/**
 * h("button", { class: "primary", onclick: fn, "aria-label": "…" }, "text", child)
 * Attributes starting with "on" become listeners; `dataset` takes an object;
 * false, null and undefined attributes and children are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      Object.assign(el.dataset, value);
    } else if (name === "class") {
      el.className = value;
    } else if (name === "text") {
      el.textContent = value;
    } else if (name === "value") {
      el.value = value;
    } else if (name === "checked" || name === "disabled" || name === "selected") {
      el[name] = Boolean(value);
    } else if (name === "style" && typeof value === "object") {
      for (const [key, v] of Object.entries(value)) el.style.setProperty(key, v);
    } else {
      el.setAttribute(name, value === true ? "" : value);
    }
  }
  append(el, children);
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
