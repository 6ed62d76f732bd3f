//! A structure-aware mutator for saved games (JSON text), used by the
//! `save_load` target so that inputs get past the parser.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// One JSON token that [`mutate_json`] may change, as a byte range of the text.
enum Token {
    Number(usize, usize),
    /// A string value (not an object key).
    Str(usize, usize),
    Literal(usize, usize),
    /// An array and the ranges of its elements.
    Array(usize, usize, Vec<(usize, usize)>),
}

/// The tokens of a JSON text (without checking that it is valid JSON).
fn json_tokens(text: &[u8]) -> Vec<Token> {
    enum Open {
        Array(usize, Vec<(usize, usize)>, usize),
        Object,
    }
    let mut tokens = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                let end = (i + 1).min(text.len());
                let next = text[end..].iter().find(|b| !b.is_ascii_whitespace());
                if next != Some(&b':') {
                    tokens.push(Token::Str(start, end));
                }
                i = end;
                continue;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < text.len()
                    && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                tokens.push(Token::Number(start, i));
                continue;
            }
            b't' | b'f' | b'n' => {
                let start = i;
                while i < text.len() && text[i].is_ascii_alphabetic() {
                    i += 1;
                }
                tokens.push(Token::Literal(start, i));
                continue;
            }
            b'[' => stack.push(Open::Array(i, Vec::new(), i + 1)),
            b'{' => stack.push(Open::Object),
            b',' => {
                if let Some(Open::Array(_, elements, from)) = stack.last_mut() {
                    elements.push((*from, i));
                    *from = i + 1;
                }
            }
            b']' => {
                if let Some(Open::Array(start, mut elements, from)) = stack.pop() {
                    if text[from..i].iter().any(|b| !b.is_ascii_whitespace()) {
                        elements.push((from, i));
                    }
                    tokens.push(Token::Array(start, i + 1, elements));
                }
            }
            b'}' => {
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    tokens
}

/// Numbers a mutated save tries: edges of the board sides, of seat counts and of
/// the integer types the engine uses.
const INTERESTING: [&str; 24] = [
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "9",
    "10",
    "20",
    "25",
    "26",
    "27",
    "40",
    "255",
    "256",
    "65535",
    "65536",
    "1000000",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "-1",
];

/// A structure-aware mutation of JSON text (a saved game): one to three edits
/// that keep it JSON, so that the fuzzer gets past the parser to `Game::load`'s
/// own checks: a number set to an edge value, a string value swapped for another
/// of the text (enum variants, ship ids), a literal flipped, an array emptied,
/// or one of its elements dropped, doubled or swapped. `None` if the text holds
/// nothing to change.
pub fn mutate_json(text: &[u8], seed: u64) -> Option<Vec<u8>> {
    use rand::Rng;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut text = text.to_vec();
    for _ in 0..rng.random_range(1..=3) {
        let tokens = json_tokens(&text);
        if tokens.is_empty() {
            return None;
        }
        let (start, end, with): (usize, usize, Vec<u8>) =
            match &tokens[rng.random_range(0..tokens.len())] {
                Token::Number(s, e) => {
                    let original = std::str::from_utf8(&text[*s..*e]).unwrap_or("0");
                    let value = match (rng.random_range(0..4), original.parse::<i128>()) {
                        (0, Ok(n)) => (n + 1).to_string(),
                        (1, Ok(n)) => (n - 1).to_string(),
                        _ => INTERESTING[rng.random_range(0..INTERESTING.len())].to_string(),
                    };
                    (*s, *e, value.into_bytes())
                }
                Token::Str(s, e) => {
                    let strings: Vec<(usize, usize)> = tokens
                        .iter()
                        .filter_map(|t| match t {
                            Token::Str(s, e) => Some((*s, *e)),
                            _ => None,
                        })
                        .collect();
                    let (os, oe) = strings[rng.random_range(0..strings.len())];
                    (*s, *e, text[os..oe].to_vec())
                }
                Token::Literal(s, e) => {
                    let value = ["true", "false", "null"][rng.random_range(0..3)];
                    (*s, *e, value.as_bytes().to_vec())
                }
                Token::Array(s, e, elements) => {
                    if elements.is_empty() || rng.random_range(0..4) == 0 {
                        (*s, *e, b"[]".to_vec())
                    } else {
                        let mut parts: Vec<Vec<u8>> =
                            elements.iter().map(|&(a, b)| text[a..b].to_vec()).collect();
                        let i = rng.random_range(0..parts.len());
                        match rng.random_range(0..3) {
                            0 => {
                                parts.remove(i);
                            }
                            1 => {
                                let copy = parts[i].clone();
                                parts.insert(i, copy);
                            }
                            _ => {
                                let j = rng.random_range(0..parts.len());
                                parts.swap(i, j);
                            }
                        }
                        let mut value = b"[".to_vec();
                        value.extend(parts.join(&b","[..]));
                        value.push(b']');
                        (*s, *e, value)
                    }
                }
            };
        text.splice(start..end, with);
    }
    Some(text)
}
