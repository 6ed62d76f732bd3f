//! The connections of this node: their outboxes (for frames and controls
//! arriving from other nodes, and for a quick match's partner on this node)
//! and the room each is linked to.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::db::Sanction;
use crate::outbox::{ConnId, Control, Outbox};

/// Which sessions of a person ended (their connections are closed).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Sessions {
    /// Every session but this one (sign out everywhere).
    AllBut(Vec<u8>),
    /// This one (signed out on one device, whose other tabs share it).
    One(Vec<u8>),
    /// Every one (a ban).
    All,
}

impl Sessions {
    fn includes(&self, hash: &[u8]) -> bool {
        match self {
            Sessions::AllBut(kept) => kept != hash,
            Sessions::One(ended) => ended == hash,
            Sessions::All => true,
        }
    }
}

/// This node's connections, by id.
#[derive(Default)]
pub struct Conns {
    map: Mutex<HashMap<ConnId, Registered>>,
}

struct Registered {
    outbox: Outbox,
    /// The room and, when it lives elsewhere, the node that owns it.
    link: Option<(String, Option<String>)>,
    /// The person and the hash of the session token it said hello with.
    session: Option<(i64, Vec<u8>)>,
}

impl Conns {
    pub fn register(&self, conn: ConnId, outbox: Outbox) {
        self.lock().insert(
            conn,
            Registered {
                outbox,
                link: None,
                session: None,
            },
        );
    }

    /// How many connections said hello on this node.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn unregister(&self, conn: ConnId) {
        self.lock().remove(&conn);
    }

    /// Records which room a connection is in (`None`: none).
    pub fn set_link(&self, conn: ConnId, link: Option<(String, Option<String>)>) {
        if let Some(registered) = self.lock().get_mut(&conn) {
            registered.link = link;
        }
    }

    /// Records the person and session of a connection (after `hello`).
    pub fn set_session(&self, conn: ConnId, player_id: i64, hash: Vec<u8>) {
        if let Some(registered) = self.lock().get_mut(&conn) {
            registered.session = Some((player_id, hash));
        }
    }

    /// Closes the connections of `player_id`'s `ended` sessions (but
    /// connection `except`). Answers how many were told.
    pub fn sign_out(&self, player_id: i64, ended: &Sessions, except: Option<ConnId>) -> usize {
        let mut told = 0;
        for (conn, registered) in self.lock().iter() {
            let Some((player, hash)) = &registered.session else {
                continue;
            };
            if Some(*conn) != except && *player == player_id && ended.includes(hash) {
                registered.outbox.control(Control::SignOut);
                told += 1;
            }
        }
        told
    }

    /// Tells every connection of the person a sanction names what it now
    /// means for them: banned (closed) or muted until when.
    pub fn sanction(&self, sanction: &Sanction, now_ms: i64) -> usize {
        let mut told = 0;
        for registered in self.lock().values() {
            if registered.session.as_ref().map(|s| s.0) != Some(sanction.player) {
                continue;
            }
            let control = if sanction.banned_until_ms.is_some_and(|until| until > now_ms) {
                Control::Banned
            } else {
                Control::Muted(sanction.muted_until_ms.filter(|&until| until > now_ms))
            };
            registered.outbox.control(control);
            told += 1;
        }
        told
    }

    pub fn outbox(&self, conn: ConnId) -> Option<Outbox> {
        self.lock().get(&conn).map(|r| r.outbox.clone())
    }

    /// Tells every connection linked to `code` on another node than `owner`
    /// to join it afresh.
    pub fn owner_changed(&self, code: &str, owner: &str) {
        for registered in self.lock().values() {
            if let Some((linked, Some(node))) = &registered.link {
                if linked == code && node != owner {
                    registered.outbox.rejoin(code);
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ConnId, Registered>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }
}
