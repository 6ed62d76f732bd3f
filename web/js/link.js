// The page's one connection to the server (net.js): opened once at start-up,
// used by every module that sends.

import { Link } from "./net.js";

let link;

export function send(frame) {
  link.send(frame);
}

export function getLink() {
  return link;
}

/** Makes the link (app.js, at start-up); it connects when opened. */
export function connect(options) {
  link = new Link(options);
  return link;
}
