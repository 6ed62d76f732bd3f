//! Session tokens, room codes and game seeds: everything drawn from the
//! operating system's generator.

use rand::rngs::OsRng;
use rand::TryRngCore;
use sha2::{Digest, Sha256};

/// The operating system's generator failed; nothing random can be made.
#[derive(Debug, thiserror::Error)]
#[error("the operating system's random generator failed: {0}")]
pub struct RandomError(String);

fn fill(bytes: &mut [u8]) -> Result<(), RandomError> {
    OsRng
        .try_fill_bytes(bytes)
        .map_err(|e| RandomError(e.to_string()))
}

/// Bytes of a token: 128 bits, the brief's minimum for an unguessable secret.
const TOKEN_BYTES: usize = 16;

/// A new session token: 128 random bits as 32 lowercase hex digits.
pub fn new_token() -> Result<String, RandomError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether a string has the form of a token (so junk is never hashed and looked up
/// as if it could be one).
pub fn is_token(token: &str) -> bool {
    token.len() == TOKEN_BYTES * 2
        && token
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// What the database stores instead of the token: a stolen database yields no
/// usable token.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Room code letters: no 0/O, 1/I/L, so a code read aloud or copied by hand is
/// not mistyped.
pub const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// Letters of a new code: 31^10 ≈ 8.2 × 10^14 codes (49.5 bits), so that with
/// joins by unknown codes rate-limited per address nobody can sweep them
/// (docs/protocol.md works out the expected time to find one room).
pub const CODE_LENGTH: usize = 10;
/// Letters of the codes made before codes grew longer; they are still accepted
/// so that old invite links keep working.
pub const LEGACY_CODE_LENGTH: usize = 6;

/// A random room code.
pub fn new_room_code() -> Result<String, RandomError> {
    random_letters(CODE_LENGTH)
}

/// `length` letters of [`CODE_ALPHABET`], each equally likely.
fn random_letters(length: usize) -> Result<String, RandomError> {
    let mut code = String::with_capacity(length);
    let n = CODE_ALPHABET.len();
    // Rejection sampling keeps every letter equally likely.
    let limit = (256 / n * n) as u8;
    while code.len() < length {
        let mut byte = [0u8; 1];
        fill(&mut byte)?;
        if byte[0] < limit {
            code.push(CODE_ALPHABET[byte[0] as usize % n] as char);
        }
    }
    Ok(code)
}

/// Letters of a link code (accounts.rs): 31^8 ≈ 8.5 × 10^11 codes (39.6
/// bits), valid five minutes, used once, and wrong guesses rationed per
/// address like unknown room codes.
pub const LINK_CODE_LENGTH: usize = 8;

/// A new link code.
pub fn new_link_code() -> Result<String, RandomError> {
    random_letters(LINK_CODE_LENGTH)
}

/// Groups of four letters in a recovery code: 12 letters, 59.5 bits.
const RECOVERY_GROUPS: usize = 3;

/// A new recovery code, as shown: `ABCD-EFGH-JKMN`.
pub fn new_recovery_code() -> Result<String, RandomError> {
    let letters = random_letters(RECOVERY_GROUPS * 4)?;
    let groups: Vec<&str> = (0..RECOVERY_GROUPS)
        .map(|group| &letters[group * 4..group * 4 + 4])
        .collect();
    Ok(groups.join("-"))
}

/// A link or recovery code as typed by a person (any case, spaces and
/// dashes anywhere): its letters, if they can be one of `length` letters.
pub fn normalize_typed_code(code: &str, length: usize) -> Option<String> {
    let letters: String = code
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (letters.len() == length && letters.bytes().all(|b| CODE_ALPHABET.contains(&b)))
        .then_some(letters)
}

/// The stored hash of a link or recovery code's letters.
pub fn code_hash(letters: &str) -> Vec<u8> {
    Sha256::digest(letters.as_bytes()).to_vec()
}

/// The letters of a recovery code, as [`normalize_typed_code`] reads them.
pub const RECOVERY_LETTERS: usize = RECOVERY_GROUPS * 4;

/// A code as typed by a person, upper-cased, if it can be a room code.
pub fn normalize_code(code: &str) -> Option<String> {
    let code = code.trim().to_ascii_uppercase();
    let length_ok = code.len() == CODE_LENGTH || code.len() == LEGACY_CODE_LENGTH;
    (length_ok && code.bytes().all(|b| CODE_ALPHABET.contains(&b))).then_some(code)
}

/// A game seed. It never leaves the server: with it, a client could replay the
/// game's generator and learn every random placement.
pub fn new_seed() -> Result<u64, RandomError> {
    let mut bytes = [0u8; 8];
    fill(&mut bytes)?;
    Ok(u64::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bit_hex_and_distinct() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert!(is_token(&a) && is_token(&b));
        assert_ne!(a, b);
        assert_eq!(token_hash(&a).len(), 32);
        assert!(!is_token("not a token"));
        assert!(!is_token(&a.to_uppercase()));
    }

    #[test]
    fn room_codes_use_the_unambiguous_alphabet() {
        for _ in 0..50 {
            let code = new_room_code().unwrap();
            assert_eq!(code.len(), CODE_LENGTH);
            assert_eq!(normalize_code(&code.to_lowercase()), Some(code.clone()));
            assert!(!code.contains(['0', 'O', '1', 'I', 'L']));
        }
        assert_eq!(normalize_code("ABC0EF"), None);
        assert_eq!(normalize_code("ABCDE"), None);
        assert_eq!(
            normalize_code("abcdef").as_deref(),
            Some("ABCDEF"),
            "an old code"
        );
        assert_eq!(normalize_code("ABCDEFGHJ"), None);
    }
}
