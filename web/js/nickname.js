// Nicknames: checked in the page before they are sent, with the server's rules
// (docs/protocol.md, `hello`; `clean_nickname` in crates/server/src/protocol.rs),
// so a name the server would refuse never costs the connection its hello.

/** Nicknames are 1 to this many characters (code points) after trimming. */
export const MAX_NICKNAME_CHARS = 24;

// Characters that could make one name look like another: control and invisible
// formatting characters, line and paragraph separators, private-use, surrogate
// and unassigned code points.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]/u;
// A zero-width joiner is fine between two of these: it composes emoji (👩‍🚀).
const SYMBOL = /[\p{So}\p{Sk}\p{Mn}]/u;
const JOINER = "\u200D";

/**
 * What is wrong with a nickname as an i18n key (`nick_empty`, `nick_too_long`,
 * `nick_hidden`), or null when the server would take it (trimmed).
 */
export function nicknameProblem(text) {
  const chars = [...String(text ?? "").trim()];
  if (!chars.length) return "nick_empty";
  if (chars.length > MAX_NICKNAME_CHARS) return "nick_too_long";
  const visible = chars.every((c, index) =>
    c === JOINER ? index > 0 && SYMBOL.test(chars[index - 1]) && SYMBOL.test(chars[index + 1] ?? "") : !HIDDEN.test(c),
  );
  return visible ? null : "nick_hidden";
}
