// The WebSocket link to the server (docs/protocol.md).
//
// One connection per page. It says hello with the stored token, keeps the token
// of the welcome frame, and reconnects with a growing back-off when the link
// drops (a server restart, a phone going to sleep), so a game resumes by itself.

const TOKEN_KEY = "broadside.token";

export class Link {
  constructor({ nickname, lang, onFrame, onStatus }) {
    this.nickname = nickname;
    this.lang = lang;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.socket = null;
    this.ready = false;
    // Frames sent while the link is down wait here, so a click during a
    // reconnect is not lost.
    this.outbox = [];
    this.retry = 0;
    this.closedOnPurpose = false;
    // check_layout answers carry no id, so callers wait in the order they asked.
    this.layoutWaiters = [];
    this.layoutSuggestionWaiters = [];
  }

  get token() {
    return localStorage.getItem(TOKEN_KEY);
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.socket = socket;
    this.onStatus("connecting");
    socket.addEventListener("open", () => {
      socket.send(
        JSON.stringify({ type: "hello", token: this.token, nickname: this.nickname, lang: this.lang }),
      );
    });
    socket.addEventListener("message", (message) => {
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "welcome") {
        localStorage.setItem(TOKEN_KEY, frame.token);
        this.ready = true;
        this.retry = 0;
        this.onStatus("online");
        this.onFrame(frame);
        const waiting = this.outbox.splice(0);
        for (const queued of waiting) this.send(queued);
        return;
      }
      if (frame.type === "layout_check") {
        const waiter = this.layoutWaiters.shift();
        if (waiter) waiter(frame);
        return;
      }
      if (frame.type === "layout") {
        const waiter = this.layoutSuggestionWaiters.shift();
        if (waiter) waiter(frame);
        return;
      }
      this.onFrame(frame);
    });
    socket.addEventListener("close", () => {
      this.ready = false;
      // Pending layout questions will never be answered on this socket.
      for (const waiter of this.layoutWaiters.splice(0)) waiter(null);
      for (const waiter of this.layoutSuggestionWaiters.splice(0)) waiter(null);
      if (this.closedOnPurpose) return;
      this.onStatus("offline");
      const delay = Math.min(4000, 250 * 2 ** this.retry);
      this.retry += 1;
      setTimeout(() => this.open(), delay);
    });
  }

  send(frame) {
    if (this.ready && this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(frame));
    } else {
      this.outbox.push(frame);
    }
  }

  /** Asks the server whether a (partial) layout is legal; resolves to the answer frame or null. */
  checkLayout(ships) {
    return new Promise((resolve) => {
      if (!this.ready) return resolve(null);
      this.layoutWaiters.push(resolve);
      this.send({ type: "check_layout", ships });
    });
  }

  /** Asks for a whole random layout that keeps the given ships; resolves to the ships or null. */
  randomLayout(fixed) {
    return new Promise((resolve) => {
      if (!this.ready) return resolve(null);
      this.layoutSuggestionWaiters.push((frame) => resolve(frame ? frame.ships : null));
      this.send({ type: "random_layout", fixed });
    });
  }

  /** An error frame that answers a layout question must release its waiter. */
  failLayoutQuestion(request) {
    const waiters = request === "random_layout" ? this.layoutSuggestionWaiters : this.layoutWaiters;
    const waiter = waiters.shift();
    if (waiter) waiter(null);
  }

  /** A new nickname or language is told with a fresh hello: the link reopens. */
  reconnectAs(nickname, lang) {
    this.nickname = nickname;
    this.lang = lang;
    if (this.socket) {
      this.retry = 0;
      this.socket.close();
    }
  }
}
