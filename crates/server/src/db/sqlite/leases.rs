//! SQLite: leases are trivial. One process owns the file and every room in
//! it: a lease is always granted (token 0), never lost, never fenced.

use std::time::Duration;

use super::Sqlite;
use crate::db::store::LeaseStore;
use crate::db::{DbError, Lease, Owner};

/// The lease of a room that is this process's own.
pub(super) fn own_lease(code: String, node: &str) -> Lease {
    Lease {
        code,
        node: node.to_string(),
        token: 0,
    }
}

impl LeaseStore for Sqlite {
    async fn acquire(
        &self,
        code: String,
        node: &str,
        _ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        Ok(Some(own_lease(code, node)))
    }

    async fn renew(&self, _lease: &Lease, _ttl: Duration) -> Result<bool, DbError> {
        Ok(true)
    }

    async fn release(&self, _lease: &Lease, _hand_over: bool) -> Result<(), DbError> {
        Ok(())
    }

    async fn expired_leases(&self, _limit: usize) -> Result<Vec<String>, DbError> {
        Ok(Vec::new())
    }

    async fn owner(&self, _code: String) -> Result<Option<Owner>, DbError> {
        Ok(None)
    }
}
