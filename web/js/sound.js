// Optional sounds, muted by default (UI.md): short synthesized effects, so the
// client ships no audio files.

const KEY = "broadside.sound";

export class Sound {
  constructor() {
    this.muted = localStorage.getItem(KEY) !== "on";
    this.context = null;
  }

  toggle() {
    this.muted = !this.muted;
    localStorage.setItem(KEY, this.muted ? "off" : "on");
    if (!this.muted) this.play("hit");
  }

  play(kind) {
    if (this.muted) return;
    try {
      this.context = this.context || new AudioContext();
      const ctx = this.context;
      const now = ctx.currentTime;
      const gain = ctx.createGain();
      gain.connect(ctx.destination);
      const tone = (type, from, to, length, volume) => {
        const osc = ctx.createOscillator();
        osc.type = type;
        osc.frequency.setValueAtTime(from, now);
        osc.frequency.exponentialRampToValueAtTime(to, now + length);
        const g = ctx.createGain();
        g.gain.setValueAtTime(volume, now);
        g.gain.exponentialRampToValueAtTime(0.001, now + length);
        osc.connect(g).connect(gain);
        osc.start(now);
        osc.stop(now + length);
      };
      if (kind === "splash") tone("sine", 520, 180, 0.25, 0.15);
      else if (kind === "hit") tone("sawtooth", 160, 60, 0.35, 0.2);
      else if (kind === "sunk") {
        tone("sawtooth", 140, 40, 0.8, 0.25);
        tone("square", 90, 30, 0.9, 0.1);
      } else if (kind === "win") {
        tone("triangle", 440, 880, 0.6, 0.2);
      } else if (kind === "lose") {
        tone("triangle", 330, 110, 0.8, 0.2);
      }
    } catch {
      // No audio device: sounds are optional.
    }
  }
}

/** The page's sounds (muted until the person turns them on in the header). */
export const sound = new Sound();
