// Translations: one JSON file per language in /i18n/, picked from the browser's
// language unless the player chose one. Error codes, ship ids and presets are
// translated by their stable ids.

export const LANGUAGES = [
  { id: "pt-PT", name: "Português (Portugal)", flag: "🇵🇹" },
  { id: "pt-BR", name: "Português (Brasil)", flag: "🇧🇷" },
  { id: "es", name: "Español", flag: "🇪🇸" },
  { id: "it", name: "Italiano", flag: "🇮🇹" },
  { id: "en", name: "English", flag: "🇬🇧" },
];

const LANG_KEY = "broadside.lang";
let strings = {};
let fallback = {};
let current = "en";

/** The language to start with: the stored choice, else the browser's, else English. */
export function initialLanguage() {
  const stored = localStorage.getItem(LANG_KEY);
  if (stored && LANGUAGES.some((l) => l.id === stored)) return stored;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const lower = wanted.toLowerCase();
    if (lower === "pt-br") return "pt-BR";
    if (lower.startsWith("pt")) return "pt-PT";
    if (lower.startsWith("es")) return "es";
    if (lower.startsWith("it")) return "it";
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

async function load(lang) {
  const response = await fetch(`/i18n/${lang}.json`);
  if (!response.ok) throw new Error(`no translation ${lang}`);
  return response.json();
}

export async function setLanguage(lang, remember) {
  if (!fallback.lang_name) fallback = await load("en");
  strings = lang === "en" ? fallback : await load(lang);
  current = lang;
  if (remember) localStorage.setItem(LANG_KEY, lang);
  document.documentElement.lang = lang;
}

export function language() {
  return current;
}

/** The string of `key` with `{name}` placeholders filled in. */
export function t(key, params = {}) {
  let text = strings[key] ?? fallback[key];
  if (text === undefined) return key;
  if (typeof text !== "string") return text;
  return fill(text, params);
}

/**
 * A count in words: `key` holds one form per plural category of the language
 * ({"one": "{n} player", "other": "{n} players"}; Polish-like languages would
 * add "few" and "many"), chosen by Intl.PluralRules. `n` fills `{n}`. With
 * `ordinal` the forms are the language's ordinal ones ("1st", "2nd", "3rd").
 */
export function plural(key, n, params = {}, { ordinal = false } = {}) {
  const forms = strings[key] ?? fallback[key];
  if (!forms || typeof forms !== "object") return key;
  const rules = new Intl.PluralRules(current, { type: ordinal ? "ordinal" : "cardinal" });
  const form = forms[rules.select(n)] ?? forms.other;
  return fill(form, { n: new Intl.NumberFormat(current).format(n), ...params });
}

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (_, name) => (params[name] ?? `{${name}}`).toString());
}

/** A moment (unix milliseconds) as a short date and time in the page's language. */
export function dateTime(ms) {
  return new Intl.DateTimeFormat(current, { dateStyle: "medium", timeStyle: "short" }).format(new Date(ms));
}

/** A fraction from 0 to 1 as a whole percentage in the page's language. */
export function percent(fraction) {
  return new Intl.NumberFormat(current, { style: "percent", maximumFractionDigits: 0 }).format(fraction);
}

/** A raw entry (arrays and objects such as the rules page). */
export function entry(key) {
  return strings[key] ?? fallback[key];
}

export function shipName(id, fallbackName) {
  const key = `ship.${id}`;
  const text = strings[key] ?? fallback[key];
  return text ?? fallbackName ?? id;
}

export function errorText(code, message) {
  const key = `err.${code}`;
  return strings[key] ?? fallback[key] ?? message ?? code;
}
