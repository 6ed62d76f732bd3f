//! A software authenticator for the tests: it makes a real P-256 passkey
//! and answers the server's WebAuthn options as a browser and a platform
//! authenticator would (`PublicKeyCredential.toJSON()`), so that the
//! server's verification (webauthn-rs) runs for real. Attestation "none",
//! user presence and verification always given.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use rand::rngs::OsRng;
use rand::TryRngCore;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The origin the test "browser" says it is on (the server's default
/// relying party accepts localhost on any port).
pub const ORIGIN: &str = "http://localhost:8080";

/// One passkey on one authenticator.
pub struct Passkey {
    key: SigningKey,
    cred_id: Vec<u8>,
    user_handle: Vec<u8>,
    counter: u32,
}

fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    OsRng
        .try_fill_bytes(&mut bytes)
        .expect("the system's generator works");
    bytes
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn unb64(text: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .expect("the server sends base64url")
}

/// CBOR: a major type with its argument.
fn head(major: u8, value: usize, out: &mut Vec<u8>) {
    let major = major << 5;
    match value {
        0..=23 => out.push(major | value as u8),
        24..=0xff => out.extend([major | 24, value as u8]),
        _ => {
            out.push(major | 25);
            out.extend((value as u16).to_be_bytes());
        }
    }
}

fn cbor_text(text: &str, out: &mut Vec<u8>) {
    head(3, text.len(), out);
    out.extend(text.as_bytes());
}

fn cbor_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    head(2, bytes.len(), out);
    out.extend(bytes);
}

impl Passkey {
    /// Answers a `passkey_create` frame's options: the credential to send
    /// back as `passkey_created`.
    pub fn create(options: &Value) -> (Passkey, Value) {
        let secret: [u8; 32] = random();
        let key = SigningKey::from_slice(&secret).expect("32 random bytes are a P-256 key");
        let passkey = Passkey {
            key,
            cred_id: random::<16>().to_vec(),
            user_handle: unb64(options["user"]["id"].as_str().expect("a user id")),
            counter: 0,
        };
        let client_data = json!({
            "type": "webauthn.create",
            "challenge": options["challenge"],
            "origin": ORIGIN,
            "crossOrigin": false,
        })
        .to_string();
        let point = passkey.key.verifying_key().to_encoded_point(false);
        let mut cose = vec![0xa5];
        cose.extend([0x01, 0x02]); // kty: EC2
        cose.extend([0x03, 0x26]); // alg: ES256 (-7)
        cose.extend([0x20, 0x01]); // crv: P-256
        cose.push(0x21); // x
        cbor_bytes(point.x().expect("uncompressed"), &mut cose);
        cose.push(0x22); // y
        cbor_bytes(point.y().expect("uncompressed"), &mut cose);
        let rp_id = options["rp"]["id"].as_str().expect("an rp id");
        let mut auth_data = Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(0x45); // user present, user verified, attested data
        auth_data.extend(0u32.to_be_bytes());
        auth_data.extend([0u8; 16]); // AAGUID
        auth_data.extend((passkey.cred_id.len() as u16).to_be_bytes());
        auth_data.extend(&passkey.cred_id);
        auth_data.extend(cose);
        let mut attestation = vec![0xa3];
        cbor_text("fmt", &mut attestation);
        cbor_text("none", &mut attestation);
        cbor_text("attStmt", &mut attestation);
        attestation.push(0xa0);
        cbor_text("authData", &mut attestation);
        cbor_bytes(&auth_data, &mut attestation);
        let credential = json!({
            "id": b64(&passkey.cred_id),
            "rawId": b64(&passkey.cred_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data.as_bytes()),
                "attestationObject": b64(&attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        });
        (passkey, credential)
    }

    /// Answers a `passkey_request` frame's options: the assertion to send
    /// back as `passkey_asserted`.
    pub fn assert(&mut self, options: &Value) -> Value {
        self.counter += 1;
        let client_data = json!({
            "type": "webauthn.get",
            "challenge": options["challenge"],
            "origin": ORIGIN,
            "crossOrigin": false,
        })
        .to_string();
        let rp_id = options["rpId"].as_str().expect("an rp id");
        let mut auth_data = Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(0x05); // user present, user verified
        auth_data.extend(self.counter.to_be_bytes());
        let mut signed = auth_data.clone();
        signed.extend(Sha256::digest(client_data.as_bytes()));
        let signature: Signature = self.key.sign(&signed);
        json!({
            "id": b64(&self.cred_id),
            "rawId": b64(&self.cred_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data.as_bytes()),
                "authenticatorData": b64(&auth_data),
                "signature": b64(signature.to_der().as_bytes()),
                "userHandle": b64(&self.user_handle),
            },
            "clientExtensionResults": {},
        })
    }
}
