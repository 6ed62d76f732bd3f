//! Accounts for the tests' clients (docs/protocol.md, "Accounts"), with the
//! software authenticator of passkey.rs.

use serde_json::{json, Value};

use super::passkey::Passkey;
use super::Client;

impl Client {
    /// Makes this guest an account named `username` with a new passkey:
    /// the passkey and the `account` frame (with the recovery codes).
    pub async fn sign_up(&mut self, username: &str) -> (Passkey, Value) {
        self.send(json!({"type": "create_account", "username": username}))
            .await;
        let options = self.expect("passkey_create").await;
        let (passkey, credential) = Passkey::create(&options["options"]);
        self.send(json!({"type": "passkey_created", "credential": credential}))
            .await;
        let account = self.expect("account").await;
        (passkey, account)
    }

    /// Signs in to `username` with `passkey`: the new session's token.
    pub async fn sign_in(&mut self, username: &str, passkey: &mut Passkey) -> String {
        self.send(json!({"type": "sign_in", "username": username}))
            .await;
        let options = self.expect("passkey_request").await;
        let assertion = passkey.assert(&options["options"]);
        self.send(json!({"type": "passkey_asserted", "credential": assertion}))
            .await;
        let signed_in = self.expect("signed_in").await;
        signed_in["token"]
            .as_str()
            .expect("signed_in has a token")
            .to_string()
    }
}
