// What the entry (app.js) does for the modules it imports: draw the page again
// and go back to the home page. app.js registers both at start-up, so that no
// module needs to import app.js (which imports them all).

const hooks = { render: () => {}, goHome: () => {} };

/** Called once by app.js with its `render` and `goHome`. */
export function registerHooks(entry) {
  Object.assign(hooks, entry);
}

/** Draws the page again from the state (S): after the message being handled, if one is (state.js). */
export function render() {
  hooks.render();
}

/** Leaves the room (or the page on show) for the home page. */
export function goHome() {
  hooks.goHome();
}
