//! PostgreSQL: the rooms' leases (owner node, fencing token, expiry by the
//! database's clock).

use std::time::Duration;

use super::{millis, Postgres};
use crate::db::decisions::sql_limit;
use crate::db::store::LeaseStore;
use crate::db::{DbError, Lease, Owner};

impl LeaseStore for Postgres {
    /// One statement, so two nodes racing for a room cannot both win.
    async fn acquire(
        &self,
        code: String,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        let client = self.client().await?;
        // The sequence may advance without the update happening (a live lease
        // of another node): tokens only need to grow, not to be dense.
        let statement = client
            .prepare_cached(
                "INSERT INTO leases (room_code, node, token, expires_at)
                 SELECT $1::text, $2::text, nextval('lease_tokens'),
                        now() + $3::bigint * interval '1 millisecond'
                 WHERE EXISTS (SELECT 1 FROM rooms WHERE code = $1::text)
                 ON CONFLICT (room_code) DO UPDATE
                     SET node = EXCLUDED.node, token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
                     WHERE leases.expires_at <= now() OR leases.node = EXCLUDED.node
                 RETURNING token",
            )
            .await?;
        let row = client
            .query_opt(&statement, &[&code, &node, &millis(ttl)])
            .await?;
        self.committed();
        Ok(row.map(|row| Lease {
            code,
            node: node.to_string(),
            token: row.get(0),
        }))
    }

    /// Even an expired lease renews while nobody has taken the room.
    async fn renew(&self, lease: &Lease, ttl: Duration) -> Result<bool, DbError> {
        let updated = self
            .execute(
                "UPDATE leases SET expires_at = now() + $3::bigint * interval '1 millisecond'
                 WHERE room_code = $1 AND token = $2",
                &[&lease.code, &lease.token, &millis(ttl)],
            )
            .await?;
        Ok(updated == 1)
    }

    /// A handed-over lease is left expired: other nodes' scans take it at once.
    async fn release(&self, lease: &Lease, hand_over: bool) -> Result<(), DbError> {
        self.execute(
            if hand_over {
                "UPDATE leases SET expires_at = now() - interval '1 second'
                 WHERE room_code = $1 AND token = $2"
            } else {
                "DELETE FROM leases WHERE room_code = $1 AND token = $2"
            },
            &[&lease.code, &lease.token],
        )
        .await?;
        Ok(())
    }

    async fn expired_leases(&self, limit: usize) -> Result<Vec<String>, DbError> {
        let rows = self
            .query(
                "SELECT room_code FROM leases WHERE expires_at <= now() ORDER BY expires_at LIMIT $1",
                &[&sql_limit(limit)],
            )
            .await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    async fn owner(&self, code: String) -> Result<Option<Owner>, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT node, token, expires_at > now() FROM leases WHERE room_code = $1",
            )
            .await?;
        let row = client.query_opt(&statement, &[&code]).await?;
        Ok(row.map(|row| Owner {
            node: row.get(0),
            token: row.get(1),
            live: row.get(2),
        }))
    }
}
