//! The frames about accounts (accounts.rs): making one, passkeys, signing
//! in and out, recovery codes and the codes that link a device.
//!
//! A sign-in answers `signed_in` with a new session's token and changes
//! nothing else on this connection: the client connects again with it (so
//! every room and wait of the old session ends cleanly with its socket).

use broadside_engine::Preset;
use tokio::time::Instant;

use super::{internal, Connection, LinkWait};
use crate::accounts::{self, Ceremony, LINK_CODE_LIFE_MS};
use crate::conns::Sessions;
use crate::db::{LinkKind, NewAccount};
use crate::protocol::{
    codes, AccountInfo, AccountRating, BlockedPlayer, ClientFrame, PasskeyInfo, Refusal,
    ServerFrame,
};
use crate::room::Person;
use crate::secret;

/// How often a connection waiting for its link code's approval asks.
pub(super) const LINK_POLL: std::time::Duration = std::time::Duration::from_secs(1);

impl Connection {
    /// One frame about accounts; `frame` is one of them.
    pub(super) async fn account_frame(
        &mut self,
        person: Person,
        frame: ClientFrame,
    ) -> Result<(), Refusal> {
        match frame {
            ClientFrame::CreateAccount { username } => {
                self.create_account(&person, &username).await
            }
            ClientFrame::AddPasskey => self.add_passkey(&person).await,
            ClientFrame::PasskeyCreated { credential } => {
                self.passkey_created(&person, credential).await
            }
            ClientFrame::SignIn { username } => self.sign_in(&username).await,
            ClientFrame::PasskeyAsserted { credential } => self.passkey_asserted(credential).await,
            ClientFrame::Recover { username, code } => self.recover(&username, &code).await,
            ClientFrame::Account => self.send_account(&person, None).await,
            ClientFrame::SignOut => self.sign_out(&person).await,
            ClientFrame::SignOutEverywhere => self.sign_out_everywhere(&person).await,
            ClientFrame::LinkOffer => self.link_offer(&person).await,
            ClientFrame::LinkRedeem { code } => self.link_redeem(&code).await,
            ClientFrame::LinkRequest => self.link_request().await,
            ClientFrame::LinkApprove { code } => self.link_approve(&person, &code).await,
            _ => unreachable!("only frames about accounts come here"),
        }
    }

    /// Spends a guess of this address's ration of codes (the ration of
    /// unknown room codes): wrong recovery and link codes cannot be swept.
    fn take_code_guess(&self) -> Result<(), Refusal> {
        if self.shared.addresses.take_unknown_code(self.ip) {
            Ok(())
        } else {
            Err(Refusal::new(
                codes::RATE_LIMITED,
                "too many wrong codes from your address; wait a minute",
            ))
        }
    }

    /// The signed-in person's account as stored.
    async fn account_of(&self, person: &Person) -> Result<crate::db::AccountRow, Refusal> {
        self.shared
            .context
            .db
            .account(person.player_id)
            .await
            .map_err(internal)?
            .ok_or_else(|| internal("the account is gone"))
    }

    fn signed_in_account(person: &Person) -> Result<(), Refusal> {
        if person.account {
            Ok(())
        } else {
            Err(Refusal::new(
                codes::NOT_SIGNED_IN,
                "this needs an account: create one or sign in",
            ))
        }
    }

    async fn create_account(&mut self, person: &Person, username: &str) -> Result<(), Refusal> {
        if person.account {
            return Err(Refusal::new(
                codes::ALREADY_SIGNED_IN,
                "this session is an account's already",
            ));
        }
        let (username, key) = accounts::username_key(username)?;
        let db = &self.shared.context.db;
        if db
            .account_by_key(key.clone())
            .await
            .map_err(internal)?
            .is_some()
        {
            return Err(username_taken());
        }
        let (options, ceremony) = self.shared.accounts.begin_create(username, key)?;
        self.ceremony = Some(ceremony);
        self.send(ServerFrame::PasskeyCreate { options }.to_text());
        Ok(())
    }

    async fn add_passkey(&mut self, person: &Person) -> Result<(), Refusal> {
        Self::signed_in_account(person)?;
        let db = &self.shared.context.db;
        let account = self.account_of(person).await?;
        let existing = db.passkeys(person.player_id).await.map_err(internal)?;
        let (options, ceremony) = self.shared.accounts.begin_add(&account, &existing)?;
        self.ceremony = Some(ceremony);
        self.send(ServerFrame::PasskeyCreate { options }.to_text());
        Ok(())
    }

    async fn passkey_created(
        &mut self,
        person: &Person,
        credential: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), Refusal> {
        let now = self.shared.context.now_ms();
        let shared = self.shared.clone();
        let db = &shared.context.db;
        match self.ceremony.take() {
            Some(Ceremony::Create {
                username,
                key,
                handle,
                state,
            }) => {
                let passkey = shared.accounts.finish_registration(
                    credential,
                    &state,
                    person.player_id,
                    now,
                )?;
                let (recovery, recovery_hashes) =
                    accounts::new_recovery_codes().map_err(internal)?;
                let unusable = secret::new_token().map_err(internal)?;
                let created = db
                    .create_account(NewAccount {
                        player_id: person.player_id,
                        username: username.clone(),
                        key,
                        handle: handle.as_bytes().to_vec(),
                        passkey,
                        session_hash: self.session.clone(),
                        unusable_hash: secret::token_hash(&format!("unusable:{unusable}")),
                        recovery_hashes,
                        now_ms: now,
                    })
                    .await
                    .map_err(internal)?;
                if !created {
                    return Err(username_taken());
                }
                let mut person = person.clone();
                person.account = true;
                self.person = Some(person.clone());
                self.username = Some(username);
                self.send_account(&person, Some(recovery)).await
            }
            Some(Ceremony::Add { state }) => {
                let passkey = shared.accounts.finish_registration(
                    credential,
                    &state,
                    person.player_id,
                    now,
                )?;
                if !db.add_passkey(passkey).await.map_err(internal)? {
                    return Err(Refusal::new(
                        codes::PASSKEY_FAILED,
                        "that passkey is registered already",
                    ));
                }
                self.send_account(person, None).await
            }
            other => {
                self.ceremony = other;
                Err(no_ceremony())
            }
        }
    }

    async fn sign_in(&mut self, username: &str) -> Result<(), Refusal> {
        let Ok((_, key)) = accounts::username_key(username) else {
            return Err(accounts::sign_in_failed());
        };
        let db = &self.shared.context.db;
        let account = db
            .account_by_key(key)
            .await
            .map_err(internal)?
            .ok_or_else(accounts::sign_in_failed)?;
        let passkeys = db.passkeys(account.player_id).await.map_err(internal)?;
        let (options, ceremony) = self
            .shared
            .accounts
            .begin_sign_in(account.player_id, &passkeys)?;
        self.ceremony = Some(ceremony);
        self.send(ServerFrame::PasskeyRequest { options }.to_text());
        Ok(())
    }

    async fn passkey_asserted(
        &mut self,
        credential: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), Refusal> {
        let Some(Ceremony::SignIn { player_id, state }) = self.ceremony.take() else {
            return Err(no_ceremony());
        };
        let shared = self.shared.clone();
        let db = &shared.context.db;
        let now = shared.context.now_ms();
        let passkeys = db.passkeys(player_id).await.map_err(internal)?;
        let used = shared
            .accounts
            .finish_sign_in(credential, &state, &passkeys, now)?;
        db.passkey_used(used.cred_id, used.passkey, now)
            .await
            .map_err(internal)?;
        self.signed_in(player_id).await
    }

    async fn recover(&mut self, username: &str, code: &str) -> Result<(), Refusal> {
        // A wrong guess costs from the same ration as an unknown room code.
        self.take_code_guess()?;
        let db = &self.shared.context.db;
        let (Ok((_, key)), Some(hash)) = (
            accounts::username_key(username),
            accounts::recovery_hash(code),
        ) else {
            return Err(accounts::sign_in_failed());
        };
        let account = db
            .account_by_key(key)
            .await
            .map_err(internal)?
            .ok_or_else(accounts::sign_in_failed)?;
        let now = self.shared.context.now_ms();
        if !db
            .use_recovery_code(account.player_id, hash, now)
            .await
            .map_err(internal)?
        {
            return Err(accounts::sign_in_failed());
        }
        self.signed_in(account.player_id).await
    }

    /// A new session for `player_id`, sent to this device (not to a banned
    /// person's).
    async fn signed_in(&mut self, player_id: i64) -> Result<(), Refusal> {
        let db = &self.shared.context.db;
        let sanction = db.sanction(player_id).await.map_err(internal)?;
        let now = self.shared.context.now_ms();
        if let Some(until) = crate::moderation::banned_until(sanction.as_ref(), now) {
            return Err(crate::moderation::banned(until));
        }
        let account = db
            .account(player_id)
            .await
            .map_err(internal)?
            .ok_or_else(accounts::sign_in_failed)?;
        let token = secret::new_token().map_err(internal)?;
        db.create_session(
            secret::token_hash(&token),
            player_id,
            self.shared.context.now_ms(),
        )
        .await
        .map_err(internal)?;
        self.send(
            ServerFrame::SignedIn {
                token,
                username: account.username,
            }
            .to_text(),
        );
        Ok(())
    }

    /// The `blocks` frame: whom this person blocks.
    pub(super) async fn send_blocks(&mut self, person: &Person) -> Result<(), Refusal> {
        let blocks = self
            .shared
            .context
            .db
            .blocks_of(person.player_id)
            .await
            .map_err(internal)?;
        let players = blocks
            .into_iter()
            .map(|(player, name)| BlockedPlayer { player, name })
            .collect();
        self.send(ServerFrame::Blocks { players }.to_text());
        Ok(())
    }

    /// The `account` frame; `recovery` only right after the account is made.
    pub(super) async fn send_account(
        &mut self,
        person: &Person,
        recovery: Option<Vec<String>>,
    ) -> Result<(), Refusal> {
        Self::signed_in_account(person)?;
        let db = &self.shared.context.db;
        let account = self.account_of(person).await?;
        let passkeys = db.passkeys(person.player_id).await.map_err(internal)?;
        let (sessions, recovery_codes_left) = db
            .session_counts(person.player_id)
            .await
            .map_err(internal)?;
        let info = AccountInfo {
            username: account.username,
            created: account.created_ms,
            passkeys: passkeys
                .into_iter()
                .map(|row| PasskeyInfo {
                    id: row.cred_id,
                    created: row.created_ms,
                    last_used: row.last_used_ms,
                })
                .collect(),
            sessions,
            recovery_codes_left,
            recovery_codes: recovery,
            ratings: self.account_ratings(person.player_id).await?,
        };
        self.send(ServerFrame::Account(Box::new(info)).to_text());
        Ok(())
    }

    /// The person's rating in every preset they have a rating in (a rated
    /// game played), provisional as on the leaderboard.
    async fn account_ratings(&self, player_id: i64) -> Result<Vec<AccountRating>, Refusal> {
        let db = &self.shared.context.db;
        let mut ratings = Vec::new();
        for preset in Preset::ALL {
            let found = db
                .ratings(vec![player_id], preset.id().to_string())
                .await
                .map_err(internal)?;
            if let Some(rating) = found.get(&player_id) {
                ratings.push(AccountRating {
                    preset,
                    rating: rating.rating.round(),
                    provisional: rating.provisional(),
                    games: rating.games,
                });
            }
        }
        Ok(ratings)
    }

    async fn sign_out(&mut self, person: &Person) -> Result<(), Refusal> {
        Self::signed_in_account(person)?;
        self.shared
            .context
            .db
            .end_session(self.session.clone())
            .await
            .map_err(internal)?;
        // Other tabs of this device share the session: they are closed.
        // This connection is told, and the client connects again as a
        // guest (it asked to leave; it is not cut off mid-frame).
        let ended = Sessions::One(self.session.clone());
        self.shared
            .conns
            .sign_out(person.player_id, &ended, Some(self.id));
        if let Some(cluster) = &self.shared.cluster {
            cluster.sign_out(person.player_id, ended).await;
        }
        self.send(ServerFrame::SignedOut.to_text());
        Ok(())
    }

    async fn sign_out_everywhere(&mut self, person: &Person) -> Result<(), Refusal> {
        Self::signed_in_account(person)?;
        self.shared
            .context
            .db
            .end_other_sessions(person.player_id, self.session.clone())
            .await
            .map_err(internal)?;
        let ended = Sessions::AllBut(self.session.clone());
        self.shared.conns.sign_out(person.player_id, &ended, None);
        if let Some(cluster) = &self.shared.cluster {
            cluster.sign_out(person.player_id, ended).await;
        }
        self.send_account(person, None).await
    }

    async fn link_offer(&mut self, person: &Person) -> Result<(), Refusal> {
        Self::signed_in_account(person)?;
        let code = secret::new_link_code().map_err(internal)?;
        let hash = accounts::link_hash(&code).expect("a new link code reads back");
        let now = self.shared.context.now_ms();
        self.shared
            .context
            .db
            .store_link_code(
                hash,
                LinkKind::Offer,
                Some(person.player_id),
                now,
                now + LINK_CODE_LIFE_MS,
            )
            .await
            .map_err(internal)?;
        self.send(link_code_frame(code));
        Ok(())
    }

    async fn link_redeem(&mut self, code: &str) -> Result<(), Refusal> {
        self.take_code_guess()?;
        let hash = accounts::link_hash(code).ok_or_else(link_code_invalid)?;
        let now = self.shared.context.now_ms();
        let player = self
            .shared
            .context
            .db
            .take_link_code(hash, LinkKind::Offer, now)
            .await
            .map_err(internal)?
            .ok_or_else(link_code_invalid)?;
        self.signed_in(player).await
    }

    async fn link_request(&mut self) -> Result<(), Refusal> {
        let code = secret::new_link_code().map_err(internal)?;
        let hash = accounts::link_hash(&code).expect("a new link code reads back");
        let now = self.shared.context.now_ms();
        self.shared
            .context
            .db
            .store_link_code(
                hash.clone(),
                LinkKind::Request,
                None,
                now,
                now + LINK_CODE_LIFE_MS,
            )
            .await
            .map_err(internal)?;
        self.link_wait = Some(LinkWait {
            hash,
            until: Instant::now() + std::time::Duration::from_millis(LINK_CODE_LIFE_MS as u64),
        });
        self.send(link_code_frame(code));
        Ok(())
    }

    async fn link_approve(&mut self, person: &Person, code: &str) -> Result<(), Refusal> {
        Self::signed_in_account(person)?;
        self.take_code_guess()?;
        let hash = accounts::link_hash(code).ok_or_else(link_code_invalid)?;
        let now = self.shared.context.now_ms();
        if !self
            .shared
            .context
            .db
            .approve_link_code(hash, person.player_id, now)
            .await
            .map_err(internal)?
        {
            return Err(link_code_invalid());
        }
        self.send(ServerFrame::LinkApproved.to_text());
        Ok(())
    }

    /// Asks whether this connection's link code has been approved; signs it
    /// in once it has, gives up when the code expires.
    pub(super) async fn poll_link(&mut self) {
        let Some(wait) = &self.link_wait else {
            return;
        };
        let hash = wait.hash.clone();
        if Instant::now() > wait.until {
            self.link_wait = None;
            self.refuse(&link_code_invalid(), Some("link_request"), None);
            return;
        }
        let now = self.shared.context.now_ms();
        match self
            .shared
            .context
            .db
            .take_link_code(hash, LinkKind::Request, now)
            .await
        {
            Ok(Some(player)) => {
                self.link_wait = None;
                if let Err(refusal) = self.signed_in(player).await {
                    self.refuse(&refusal, Some("link_request"), None);
                }
            }
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(%error, "a link code could not be read");
            }
        }
    }
}

fn link_code_frame(code: String) -> String {
    ServerFrame::LinkCode {
        code,
        expires_in_ms: LINK_CODE_LIFE_MS as u64,
    }
    .to_text()
}

fn username_taken() -> Refusal {
    Refusal::new(
        codes::USERNAME_TAKEN,
        "that username, or one that looks like it, is taken",
    )
}

fn link_code_invalid() -> Refusal {
    Refusal::new(
        codes::LINK_CODE_INVALID,
        "that code is unknown, used or expired",
    )
}

fn no_ceremony() -> Refusal {
    Refusal::new(
        codes::PASSKEY_FAILED,
        "no passkey was asked for on this connection",
    )
}
