// The WebSocket link to the server (docs/protocol.md).
//
// One connection per page. It says hello with the stored token, keeps the token
// of the welcome frame, and reconnects with a growing back-off when the link
// drops (a server restart, a phone going to sleep), so a game resumes by itself.
// A person the operators banned (close code 4006) is not reconnected at once:
// the link tries again once a minute, or when asked (retryNow).

import { ViewCopy } from "./change.js";

const TOKEN_KEY = "broadside.token";

/** How long a banned person's link waits before it tries again. */
export const BANNED_RETRY_MS = 60000;

export class Link {
  constructor({ nickname, lang, onFrame, onStatus, onSessionEnded = () => {}, onBanned = () => {} }) {
    this.nickname = nickname;
    // The last nickname the server welcomed (the page starts with a checked
    // one): a refused hello says hello again with it.
    this.accepted = nickname;
    this.lang = lang;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    // Called when the server closed the link because this session was ended
    // on another device (4005): the token is forgotten first.
    this.onSessionEnded = onSessionEnded;
    // Called when the server closed the link because the operators banned
    // this person (4006); the link then tries again only once a minute.
    this.onBanned = onBanned;
    this.retryTimer = null;
    // Whether the next hello keeps the nickname stored with the token (a
    // session just signed in: the account's name, not this browser's).
    this.keepStoredName = false;
    this.socket = null;
    this.ready = false;
    // Frames sent while the link is down wait here, so a click during a
    // reconnect is not lost.
    this.outbox = [];
    this.retry = 0;
    this.closedOnPurpose = false;
    // Layout questions waiting for their answer, by request id (the server
    // echoes the id on the answer or on the error that refuses the question).
    this.questions = new Map();
    this.nextQuestion = 1;
    // The view of the room's game as the last `state` or `change` left it:
    // a `change` is handed on as the `state` it makes of this copy.
    this.copy = new ViewCopy();
  }

  get token() {
    return localStorage.getItem(TOKEN_KEY);
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.socket = socket;
    // A new connection starts from the whole view its join is sent.
    this.copy.clear();
    this.onStatus("connecting");
    // Whether this socket already said hello again after a refusal.
    let retried = false;
    // The token this socket said hello with: the session a 4005 speaks of.
    let helloToken = null;
    const hello = () => {
      helloToken = this.token;
      return JSON.stringify({ type: "hello", token: helloToken, nickname: this.keepStoredName && helloToken ? null : this.nickname, lang: this.lang });
    };
    socket.addEventListener("open", () => socket.send(hello()));
    socket.addEventListener("message", (message) => {
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "welcome") {
        localStorage.setItem(TOKEN_KEY, frame.token);
        helloToken = frame.token;
        this.keepStoredName = false;
        this.accepted = frame.nickname || this.nickname;
        this.nickname = this.accepted;
        this.ready = true;
        this.retry = 0;
        this.onStatus("online");
        this.onFrame(frame);
        const waiting = this.outbox.splice(0);
        for (const queued of waiting) this.send(queued);
        return;
      }
      if (frame.type === "state" || frame.type === "change") {
        const state = this.copy.receive(frame);
        // A change that does not follow the last frame: the whole view is
        // asked for again, and the changes until it arrives are dropped.
        if (state === null) {
          if (!this.copy.resyncing && socket.readyState === WebSocket.OPEN) {
            this.copy.resyncing = true;
            socket.send(JSON.stringify({ type: "resync" }));
          }
          return;
        }
        frame = state;
      }
      if (frame.type === "left") this.copy.clear();
      if (frame.type === "layout_check" || frame.type === "layout") {
        this.answer(frame.id, frame);
        return;
      }
      // A banned person's hello is refused for the person, not the name: the
      // server closes the link (4006) and nothing is said again.
      if (frame.type === "error" && frame.request === "hello" && frame.code !== "banned" && !this.ready && !retried && socket.readyState === WebSocket.OPEN) {
        // The server still waits for a hello on this socket: a refused
        // nickname must not leave the page connecting for ever, so the last
        // accepted one is sent instead (the page is told, to show why).
        retried = true;
        this.keepStoredName = false;
        this.nickname = this.accepted;
        socket.send(hello());
      }
      if (frame.type === "error") {
        if (frame.id != null) this.answer(frame.id, null);
        // Dropped frames are never answered: nobody waits for them any longer.
        if (frame.code === "rate_limited") this.answerAll();
      }
      this.onFrame(frame);
    });
    socket.addEventListener("close", (event) => {
      this.ready = false;
      // Pending layout questions will never be answered on this socket.
      this.answerAll();
      if (this.closedOnPurpose) return;
      if (event.code === 4005 && this.socket === socket) {
        // This session was ended elsewhere: its token is a stranger's now,
        // so the page connects again at once as a new guest.
        // (Another tab of this browser may have stored a new token already.)
        if (this.token === helloToken) localStorage.removeItem(TOKEN_KEY);
        this.keepStoredName = false;
        this.retry = 0;
        this.onSessionEnded();
      }
      if (event.code === 4006 && this.socket === socket) {
        // Banned by the operators: the page says so, and asks again in a minute.
        this.onBanned();
        this.onStatus("offline");
        this.retryTimer = setTimeout(() => this.retryNow(), BANNED_RETRY_MS);
        return;
      }
      this.onStatus("offline");
      const delay = Math.min(4000, 250 * 2 ** this.retry);
      this.retry += 1;
      this.retryTimer = setTimeout(() => this.retryNow(), delay);
    });
  }

  /** Connects again now (the banned page's button), unless a socket is already open or on its way. */
  retryNow() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const state = this.socket?.readyState;
    if (state === WebSocket.OPEN || state === WebSocket.CONNECTING) return;
    this.open();
  }

  send(frame) {
    if (this.ready && this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(frame));
    } else {
      this.outbox.push(frame);
    }
  }

  /**
   * Sends a question frame with a fresh request id; resolves to the answer
   * frame, or null when it is refused, dropped, unanswered within 10 s, or the
   * link goes down.
   */
  ask(frame) {
    return new Promise((resolve) => {
      if (!this.ready) return resolve(null);
      const id = this.nextQuestion++;
      const timer = setTimeout(() => this.answer(id, null), 10000);
      this.questions.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.send({ ...frame, id });
    });
  }

  answer(id, frame) {
    const waiter = this.questions.get(id);
    if (!waiter) return;
    this.questions.delete(id);
    waiter(frame);
  }

  answerAll() {
    for (const id of [...this.questions.keys()]) this.answer(id, null);
  }

  /** Asks the server whether a (partial) layout is legal; resolves to the answer frame or null. */
  checkLayout(ships) {
    return this.ask({ type: "check_layout", ships });
  }

  /** Asks for a whole random layout that keeps the given ships; resolves to the ships or null. */
  async randomLayout(fixed) {
    const answer = await this.ask({ type: "random_layout", fixed });
    return answer ? answer.ships : null;
  }

  /** A session that just signed in: its token replaces the stored one, and the link says hello with it. */
  useToken(token) {
    localStorage.setItem(TOKEN_KEY, token);
    this.keepStoredName = true;
    this.reopen();
  }

  /** Signed out: the token is forgotten and the link says hello as a new guest. */
  forgetToken() {
    localStorage.removeItem(TOKEN_KEY);
    this.keepStoredName = false;
    this.reopen();
  }

  reopen() {
    if (this.socket) {
      // Frames sent from now on wait for the welcome of the new hello.
      this.ready = false;
      this.retry = 0;
      this.socket.close();
    }
  }

  /** A new nickname or language is told with a fresh hello: the link reopens. */
  reconnectAs(nickname, lang) {
    this.nickname = nickname;
    this.lang = lang;
    if (this.socket) {
      // Frames sent from now on wait for the welcome of the new hello.
      this.ready = false;
      this.retry = 0;
      this.socket.close();
    }
  }
}
