//! What every connection of a node shares: the layers below it, wired once
//! by `server::run`.

use std::sync::Arc;

use crate::accounts::Accounts;
use crate::cluster::Cluster;
use crate::config::Config;
use crate::conns::Conns;
use crate::context::RoomContext;
use crate::lifecycle::Lifecycle;
use crate::limits::Addresses;
use crate::lobby::Lobby;
use crate::metrics::Load;
use crate::registry::Registry;

/// The node's services, one each.
pub struct Shared {
    /// The database, the CPU pool, the configuration, the clock and the ids
    /// (what rooms get too).
    pub context: Arc<RoomContext>,
    /// The rooms this node runs, and where the others live.
    pub registry: Arc<Registry>,
    /// Public play: the quick match, open rooms, leaderboard, history.
    pub lobby: Arc<Lobby>,
    /// Connections and buckets per client address.
    pub addresses: Arc<Addresses>,
    /// The bus of a cluster, if this node is one.
    pub cluster: Option<Arc<Cluster>>,
    /// This node's connections (frames from other nodes find them here).
    pub conns: Arc<Conns>,
    /// The shutdown signal and the tokens that keep shutdown waiting.
    pub lifecycle: Arc<Lifecycle>,
    /// The relying party of passkeys (accounts.rs).
    pub accounts: Accounts,
    /// The node's own scheduling lag, and whether it drains (metrics.rs).
    pub load: Arc<Load>,
}

impl Shared {
    pub fn config(&self) -> &Config {
        &self.context.config
    }
}
