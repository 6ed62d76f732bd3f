//! The connections of this node: their outboxes (for frames and controls
//! arriving from other nodes, and for a quick match's partner on this node)
//! and the room each is linked to.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::outbox::{ConnId, Outbox};

/// This node's connections, by id.
#[derive(Default)]
pub struct Conns {
    map: Mutex<HashMap<ConnId, Registered>>,
}

struct Registered {
    outbox: Outbox,
    /// The room and, when it lives elsewhere, the node that owns it.
    link: Option<(String, Option<String>)>,
}

impl Conns {
    pub fn register(&self, conn: ConnId, outbox: Outbox) {
        self.lock().insert(conn, Registered { outbox, link: None });
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
