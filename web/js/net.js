// The WebSocket link to the server (docs/protocol.md).
//
// One connection per page. It says hello with the stored token, keeps the token
// of the welcome frame, and reconnects with a growing back-off when the link
// drops (a server restart, a phone going to sleep), so a game resumes by itself.

const TOKEN_KEY = "broadside.token";

export class Link {
  constructor({ nickname, lang, onFrame, onStatus }) {
    this.nickname = nickname;
    // The last nickname the server welcomed (the page starts with a checked
    // one): a refused hello says hello again with it.
    this.accepted = nickname;
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
    // Layout questions waiting for their answer, by request id (the server
    // echoes the id on the answer or on the error that refuses the question).
    this.questions = new Map();
    this.nextQuestion = 1;
  }

  get token() {
    return localStorage.getItem(TOKEN_KEY);
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.socket = socket;
    this.onStatus("connecting");
    // Whether this socket already said hello again after a refusal.
    let retried = false;
    const hello = () => JSON.stringify({ type: "hello", token: this.token, nickname: this.nickname, lang: this.lang });
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
      if (frame.type === "layout_check" || frame.type === "layout") {
        this.answer(frame.id, frame);
        return;
      }
      if (frame.type === "error" && frame.request === "hello" && !this.ready && !retried && socket.readyState === WebSocket.OPEN) {
        // The server still waits for a hello on this socket: a refused
        // nickname must not leave the page connecting for ever, so the last
        // accepted one is sent instead (the page is told, to show why).
        retried = true;
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
    socket.addEventListener("close", () => {
      this.ready = false;
      // Pending layout questions will never be answered on this socket.
      this.answerAll();
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
