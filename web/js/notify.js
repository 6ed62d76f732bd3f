// What the page tells the person besides the screen: the screen reader's live
// region (announce) and the toasts, which belong to the screen they speak of.

import { h } from "./dom.js";

const live = document.getElementById("live");

export function announce(text) {
  // Clearing first makes screen readers repeat an identical message.
  live.textContent = "";
  requestAnimationFrame(() => {
    live.textContent = text;
  });
}

let toastTimer;

// The screen a toast speaks of: it is taken away when another screen comes
// (render). `next` is for a toast about the screen that is coming.
let toastScreen = null;

export function toast(text, kind = "info", { next = false } = {}) {
  let el = document.getElementById("toast");
  if (!el) {
    el = h("div", { id: "toast", role: "status" });
    document.body.append(el);
  }
  el.textContent = text;
  el.className = `toast show ${kind}`;
  toastScreen = next ? null : shownScreen;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 3200);
}

export function hideToast() {
  clearTimeout(toastTimer);
  document.getElementById("toast")?.classList.remove("show");
}

// The screen on show (screenKey), to tell when another one comes.
let shownScreen = null;

/**
 * Called by render with the key of the screen on show: true when it is
 * another screen than before. What was said about the last screen no longer
 * applies (a toast about the coming screen stays, and belongs to this one now).
 */
export function showingScreen(key) {
  if (key === shownScreen) return false;
  if (toastScreen !== null) hideToast();
  toastScreen = key;
  shownScreen = key;
  return true;
}
