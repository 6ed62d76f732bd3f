//! Accounts without passwords: a guest becomes an account by registering a
//! passkey (WebAuthn, verified by `webauthn-rs`) under a unique username,
//! and keeps their player id — games, history and ratings stay theirs.
//!
//! - **Usernames** follow the nickname rules (`protocol::clean_nickname`)
//!   and are unique by their *key*: the UTS #39 skeleton of the lower-cased
//!   name, so `Ana` and `ana`, or a Latin `a` and a Cyrillic `а`, are one
//!   name ([`username_key`]).
//! - **Sessions** are random tokens stored as SHA-256 hashes; a guest's own
//!   token becomes the account's first session, and every device signed in
//!   later gets a session of its own. Sign out ends one; "sign out
//!   everywhere" ends all the others.
//! - **Recovery codes**: ten, shown once when the account is made, stored
//!   hashed, each good for one sign-in.
//! - **Link codes** (8 letters, five minutes, one use): an *offer* shown by
//!   a signed-in device signs in the device that enters it; a *request*
//!   shown by a new device (the terminal) signs it in once a signed-in
//!   device approves it.
//!
//! The ceremonies' state lives in the connection that began them
//! ([`Ceremony`]): a passkey's challenge is answered on the same WebSocket.
//! This module decides and verifies; the connection (connection/account.rs)
//! talks to the client.

use broadside_protocol::{codes, Refusal};
use serde_json::{Map, Value};
use webauthn_rs::prelude::{
    Passkey, PasskeyAuthentication, PasskeyRegistration, PublicKeyCredential,
    RegisterPublicKeyCredential, Url, Uuid, Webauthn, WebauthnBuilder,
};

use crate::db::{AccountRow, PasskeyRow};
use crate::protocol;
use crate::secret::{self, RandomError};

/// How long a link code stays valid.
pub const LINK_CODE_LIFE_MS: i64 = 5 * 60 * 1000;

/// Recovery codes made with an account.
pub const RECOVERY_CODES: usize = 10;

/// Fewest characters of a username (nicknames may have 1).
pub const MIN_USERNAME_CHARS: usize = 3;

/// The relying party: the site's origin as passkeys see it.
pub struct Accounts {
    webauthn: Webauthn,
}

/// A ceremony under way on a connection.
pub enum Ceremony {
    /// A guest becoming an account.
    Create {
        username: String,
        key: String,
        handle: Uuid,
        state: Box<PasskeyRegistration>,
    },
    /// A signed-in account adding a passkey.
    Add { state: Box<PasskeyRegistration> },
    /// Signing in to an account.
    SignIn {
        player_id: i64,
        state: Box<PasskeyAuthentication>,
    },
}

/// The relying party could not be set up from the configured origin.
#[derive(Debug, thiserror::Error)]
#[error("--public-origin {origin}: {reason}")]
pub struct OriginError {
    origin: String,
    reason: String,
}

impl Accounts {
    /// The relying party of `origin` (`https://host[:port]`); with none,
    /// `http://localhost` on any port (browsers allow passkeys on localhost
    /// without TLS, never on a bare IP address).
    pub fn new(origin: Option<&str>) -> Result<Accounts, OriginError> {
        let error = |reason: String| OriginError {
            origin: origin.unwrap_or("").to_string(),
            reason,
        };
        let url =
            Url::parse(origin.unwrap_or("http://localhost")).map_err(|e| error(e.to_string()))?;
        let host = url
            .host_str()
            .ok_or_else(|| error("the origin needs a host name".into()))?
            .to_string();
        let webauthn = WebauthnBuilder::new(&host, &url)
            .map_err(|e| error(e.to_string()))?
            .rp_name("Broadside")
            .allow_any_port(origin.is_none())
            .build()
            .map_err(|e| error(e.to_string()))?;
        Ok(Accounts { webauthn })
    }

    /// Begins making the guest an account: the options for the browser.
    pub fn begin_create(
        &self,
        username: String,
        key: String,
    ) -> Result<(Map<String, Value>, Ceremony), Refusal> {
        let handle = new_handle().map_err(internal)?;
        let (options, state) = self
            .webauthn
            .start_passkey_registration(handle, &username, &username, None)
            .map_err(passkey_failed)?;
        let ceremony = Ceremony::Create {
            username,
            key,
            handle,
            state: Box::new(state),
        };
        Ok((object(&options)?, ceremony))
    }

    /// Begins adding a passkey to `account`, whose passkeys are `existing`
    /// (an authenticator that holds one of them is not asked again).
    pub fn begin_add(
        &self,
        account: &AccountRow,
        existing: &[PasskeyRow],
    ) -> Result<(Map<String, Value>, Ceremony), Refusal> {
        let handle = Uuid::from_slice(&account.handle)
            .map_err(|_| internal("an account's handle is not 16 bytes"))?;
        let exclude = existing
            .iter()
            .map(|row| read_passkey(row).map(|p| p.cred_id().clone()))
            .collect::<Result<Vec<_>, _>>()?;
        let (options, state) = self
            .webauthn
            .start_passkey_registration(handle, &account.username, &account.username, Some(exclude))
            .map_err(passkey_failed)?;
        Ok((
            object(&options)?,
            Ceremony::Add {
                state: Box::new(state),
            },
        ))
    }

    /// Verifies a new credential against the ceremony's challenge: the
    /// passkey to store for `player_id`.
    pub fn finish_registration(
        &self,
        credential: Map<String, Value>,
        state: &PasskeyRegistration,
        player_id: i64,
        now_ms: i64,
    ) -> Result<PasskeyRow, Refusal> {
        let credential: RegisterPublicKeyCredential =
            serde_json::from_value(Value::Object(credential)).map_err(|e| {
                Refusal::new(codes::PASSKEY_FAILED, format!("unreadable credential: {e}"))
            })?;
        let passkey = self
            .webauthn
            .finish_passkey_registration(&credential, state)
            .map_err(passkey_failed)?;
        passkey_row(&passkey, player_id, now_ms, None)
    }

    /// Begins signing in to the account whose passkeys are `passkeys`.
    pub fn begin_sign_in(
        &self,
        player_id: i64,
        passkeys: &[PasskeyRow],
    ) -> Result<(Map<String, Value>, Ceremony), Refusal> {
        let keys = passkeys
            .iter()
            .map(read_passkey)
            .collect::<Result<Vec<_>, _>>()?;
        if keys.is_empty() {
            return Err(sign_in_failed());
        }
        let (options, state) = self
            .webauthn
            .start_passkey_authentication(&keys)
            .map_err(passkey_failed)?;
        Ok((
            object(&options)?,
            Ceremony::SignIn {
                player_id,
                state: Box::new(state),
            },
        ))
    }

    /// Verifies an assertion against the ceremony's challenge and the
    /// account's passkeys: the passkey used, with its state brought up to
    /// date (to store again).
    pub fn finish_sign_in(
        &self,
        credential: Map<String, Value>,
        state: &PasskeyAuthentication,
        passkeys: &[PasskeyRow],
        now_ms: i64,
    ) -> Result<PasskeyRow, Refusal> {
        let credential: PublicKeyCredential = serde_json::from_value(Value::Object(credential))
            .map_err(|e| {
                Refusal::new(codes::PASSKEY_FAILED, format!("unreadable assertion: {e}"))
            })?;
        let result = self
            .webauthn
            .finish_passkey_authentication(&credential, state)
            .map_err(passkey_failed)?;
        for row in passkeys {
            let mut passkey = read_passkey(row)?;
            if passkey.update_credential(&result).is_some() {
                return passkey_row(&passkey, row.player_id, row.created_ms, Some(now_ms));
            }
        }
        Err(sign_in_failed())
    }
}

/// A username as it will be shown, and its key: the name must pass the
/// nickname rules and have at least [`MIN_USERNAME_CHARS`] characters.
pub fn username_key(username: &str) -> Result<(String, String), Refusal> {
    let username = protocol::clean_nickname(username)?;
    if username.chars().count() < MIN_USERNAME_CHARS {
        return Err(Refusal::bad_request(format!(
            "a username has {MIN_USERNAME_CHARS} to {} characters",
            broadside_protocol::MAX_NICKNAME_CHARS
        )));
    }
    Ok((username.clone(), key_of(&username)))
}

/// The key two usernames share when they are the same name in another case
/// or look alike: the UTS #39 skeleton of the lower-cased name (the skeleton
/// maps each character to its confusable prototype after NFD), lower-cased
/// again because prototypes may be capitals.
fn key_of(username: &str) -> String {
    let lower = username.to_lowercase();
    let skeleton: String = unicode_security::skeleton(&lower).collect();
    skeleton.to_lowercase()
}

/// New recovery codes: as shown (`ABCD-EFGH-JKMN`), and their hashes.
pub fn new_recovery_codes() -> Result<(Vec<String>, Vec<Vec<u8>>), RandomError> {
    let codes = (0..RECOVERY_CODES)
        .map(|_| secret::new_recovery_code())
        .collect::<Result<Vec<_>, _>>()?;
    let hashes = codes
        .iter()
        .map(|code| recovery_hash(code).expect("a new recovery code reads back"))
        .collect();
    Ok((codes, hashes))
}

/// The stored hash of a recovery code as typed, if it can be one.
pub fn recovery_hash(code: &str) -> Option<Vec<u8>> {
    secret::normalize_typed_code(code, secret::RECOVERY_LETTERS).map(|l| secret::code_hash(&l))
}

/// The stored hash of a link code as typed, if it can be one.
pub fn link_hash(code: &str) -> Option<Vec<u8>> {
    secret::normalize_typed_code(code, secret::LINK_CODE_LENGTH).map(|l| secret::code_hash(&l))
}

fn new_handle() -> Result<Uuid, RandomError> {
    let token = secret::new_token()?;
    let bytes: Vec<u8> = (0..16)
        .map(|i| u8::from_str_radix(&token[2 * i..2 * i + 2], 16).expect("tokens are hex"))
        .collect();
    Ok(Uuid::from_slice(&bytes).expect("16 bytes"))
}

fn read_passkey(row: &PasskeyRow) -> Result<Passkey, Refusal> {
    serde_json::from_str(&row.passkey).map_err(|e| internal(format!("a stored passkey: {e}")))
}

fn passkey_row(
    passkey: &Passkey,
    player_id: i64,
    created_ms: i64,
    last_used_ms: Option<i64>,
) -> Result<PasskeyRow, Refusal> {
    let cred_id = match serde_json::to_value(passkey.cred_id()) {
        Ok(Value::String(id)) => id,
        _ => return Err(internal("a credential id is not a string")),
    };
    Ok(PasskeyRow {
        cred_id,
        player_id,
        passkey: serde_json::to_string(passkey).map_err(internal)?,
        created_ms,
        last_used_ms,
    })
}

fn object(options: &impl serde::Serialize) -> Result<Map<String, Value>, Refusal> {
    match serde_json::to_value(options) {
        Ok(Value::Object(mut object)) => {
            // The browser reads `publicKey` (parse…OptionsFromJSON); the
            // rest (a mediation hint) is left out.
            match object.remove("publicKey") {
                Some(Value::Object(public_key)) => Ok(public_key),
                _ => Ok(object),
            }
        }
        _ => Err(internal("passkey options are not an object")),
    }
}

pub fn sign_in_failed() -> Refusal {
    Refusal::new(
        codes::SIGN_IN_FAILED,
        "no account with that username and passkey or recovery code",
    )
}

fn passkey_failed(error: impl std::fmt::Display) -> Refusal {
    Refusal::new(
        codes::PASSKEY_FAILED,
        format!("the passkey was not accepted: {error}"),
    )
}

fn internal(error: impl std::fmt::Display) -> Refusal {
    Refusal::new(codes::INTERNAL, format!("the server failed: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_differ_only_in_case_or_look_share_a_key() {
        let key = |name: &str| username_key(name).unwrap().1;
        assert_eq!(key("Ana"), key("ana"));
        assert_eq!(key("ANA"), key("aNa"));
        // A Cyrillic а and о in place of the Latin letters.
        assert_eq!(key("Ana"), key("\u{0410}na"));
        assert_eq!(key("bob"), key("b\u{043e}b"));
        // Digits that pass for letters.
        assert_eq!(key("b0b"), key("bob"));
        assert_ne!(key("Ana"), key("Ann"));
    }

    #[test]
    fn usernames_follow_the_nickname_rules_and_have_three_characters() {
        assert!(username_key("Al").is_err());
        assert!(username_key("\u{200b}Ana").is_err());
        assert!(username_key("   ").is_err());
        assert_eq!(username_key("  Ana  ").unwrap().0, "Ana");
    }

    #[test]
    fn recovery_and_link_codes_read_back_however_they_are_typed() {
        let (codes, hashes) = new_recovery_codes().unwrap();
        assert_eq!(codes.len(), RECOVERY_CODES);
        for (code, hash) in codes.iter().zip(&hashes) {
            assert_eq!(code.len(), 14);
            let typed = code.to_lowercase().replace('-', " ");
            assert_eq!(recovery_hash(&typed).as_ref(), Some(hash));
        }
        let code = secret::new_link_code().unwrap();
        assert_eq!(code.len(), 8);
        assert_eq!(link_hash(&code.to_lowercase()), link_hash(&code));
        assert!(link_hash("short").is_none());
        assert!(link_hash("IIIIOOOO").is_none());
    }

    #[test]
    fn the_default_relying_party_is_localhost_and_a_bad_origin_is_refused() {
        assert!(Accounts::new(None).is_ok());
        assert!(Accounts::new(Some("https://broadside.example")).is_ok());
        assert!(Accounts::new(Some("not a url")).is_err());
    }
}
