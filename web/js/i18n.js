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
  if (Array.isArray(text)) return text;
  return text.replace(/\{(\w+)\}/g, (_, name) => (params[name] ?? `{${name}}`).toString());
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
