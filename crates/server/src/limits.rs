//! Limits that keep one client from starving the others: token buckets (frames
//! per connection; new rooms and joins by unknown codes per address) and caps
//! on open connections, per address and on the whole server; and the
//! process's limit of open files those connections need.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// A token bucket: `capacity` tokens at most, refilled at `per_second`.
#[derive(Debug)]
pub struct Bucket {
    tokens: f64,
    capacity: f64,
    per_second: f64,
    last: Instant,
}

impl Bucket {
    pub fn new(capacity: u32, per_second: f64) -> Bucket {
        Bucket {
            tokens: f64::from(capacity),
            capacity: f64::from(capacity),
            per_second,
            last: Instant::now(),
        }
    }

    fn refill(&mut self) {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.per_second;
        self.tokens = (self.tokens + refill).min(self.capacity);
        self.last = now;
    }

    /// Whether a token is there, without taking it.
    pub fn peek(&mut self) -> bool {
        self.refill();
        self.tokens >= 1.0
    }

    /// Takes one token if there is one.
    pub fn take(&mut self) -> bool {
        self.refill();
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// What the server remembers about one client address.
#[derive(Debug)]
struct Address {
    /// Open TCP connections from it.
    open: usize,
    /// Joins by a code that names no room (a code sweep).
    unknown_codes: Bucket,
    /// New rooms.
    new_rooms: Bucket,
    /// When a connection from it last opened or closed.
    seen: Instant,
}

/// Limits per client address and on the whole server.
#[derive(Clone, Debug)]
pub struct AddressLimits {
    /// TCP connections open at once, on the whole server.
    pub max_connections: usize,
    /// TCP connections open at once from one address.
    pub max_per_address: usize,
    /// Joins by an unknown code: a burst, then this many a minute.
    pub unknown_code_burst: u32,
    pub unknown_codes_per_minute: f64,
    /// New rooms: a burst, then this many a minute.
    pub room_burst: u32,
    pub rooms_per_minute: f64,
}

/// Addresses without a connection are forgotten after this long (their
/// buckets have refilled by then).
const FORGET_AFTER: std::time::Duration = std::time::Duration::from_secs(600);

#[derive(Debug, Default)]
struct Table {
    open: usize,
    addresses: HashMap<IpAddr, Address>,
    last_sweep: Option<Instant>,
}

/// Every client address's connections and buckets.
#[derive(Debug)]
pub struct Addresses {
    limits: AddressLimits,
    table: Mutex<Table>,
}

/// Why a connection was not accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    Server,
    Address,
}

impl Addresses {
    pub fn new(limits: AddressLimits) -> Arc<Addresses> {
        Arc::new(Addresses {
            limits,
            table: Mutex::new(Table::default()),
        })
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        // Every change under the lock is a few counter updates that cannot panic
        // half-way; a poisoned lock is still consistent.
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a new connection from `ip`, unless the server or the address
    /// already has as many as allowed.
    /// A new connection from `ip`; `proxy`: a trusted load balancer, which
    /// carries many clients' connections and so has no per-address cap.
    pub fn admit(self: &Arc<Self>, ip: IpAddr, proxy: bool) -> Result<Slot, Full> {
        let now = Instant::now();
        let mut table = self.table();
        if table.open >= self.limits.max_connections {
            return Err(Full::Server);
        }
        let limits = &self.limits;
        let address = table.addresses.entry(ip).or_insert_with(|| Address {
            open: 0,
            unknown_codes: Bucket::new(
                limits.unknown_code_burst,
                limits.unknown_codes_per_minute / 60.0,
            ),
            new_rooms: Bucket::new(limits.room_burst, limits.rooms_per_minute / 60.0),
            seen: now,
        });
        if address.open >= limits.max_per_address && !proxy {
            return Err(Full::Address);
        }
        address.open += 1;
        address.seen = now;
        table.open += 1;
        Ok(Slot {
            addresses: self.clone(),
            ip,
        })
    }

    fn release(&self, ip: IpAddr) {
        let now = Instant::now();
        let mut table = self.table();
        table.open = table.open.saturating_sub(1);
        if let Some(address) = table.addresses.get_mut(&ip) {
            address.open = address.open.saturating_sub(1);
            address.seen = now;
        }
        // Now and then, forget addresses that have been gone long enough.
        if table
            .last_sweep
            .is_none_or(|at| now.duration_since(at) > FORGET_AFTER)
        {
            table.last_sweep = Some(now);
            table
                .addresses
                .retain(|_, a| a.open > 0 || now.duration_since(a.seen) < FORGET_AFTER);
        }
    }

    fn take(&self, ip: IpAddr, bucket: impl FnOnce(&mut Address) -> &mut Bucket) -> bool {
        let mut table = self.table();
        // A connection holds its address's entry, so it is there; if not,
        // nothing is known against this address.
        table
            .addresses
            .get_mut(&ip)
            .is_none_or(|address| bucket(address).take())
    }

    /// Takes a token for a join by an unknown code; `false` when the address
    /// has tried too many.
    pub fn take_unknown_code(&self, ip: IpAddr) -> bool {
        self.take(ip, |a| &mut a.unknown_codes)
    }

    /// Whether the address may spend a guess at a code now (without spending one).
    pub fn may_guess(&self, ip: IpAddr) -> bool {
        let mut table = self.table();
        table
            .addresses
            .get_mut(&ip)
            .is_none_or(|a| a.unknown_codes.peek())
    }

    /// Takes a token for a new room; `false` when the address made too many.
    pub fn take_new_room(&self, ip: IpAddr) -> bool {
        self.take(ip, |a| &mut a.new_rooms)
    }

    /// Open connections on the whole server.
    #[cfg(test)]
    pub fn open(&self) -> usize {
        self.table().open
    }
}

/// One open connection, counted until it is dropped.
#[derive(Debug)]
pub struct Slot {
    addresses: Arc<Addresses>,
    ip: IpAddr,
}

impl Slot {
    pub fn ip(&self) -> IpAddr {
        self.ip
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.addresses.release(self.ip);
    }
}

/// Raises the process's limit of open files to its hard limit, and past it to
/// `wanted` where the process may (root); returns the new limit. Every
/// connection is a file: `broadside serve` calls this before listening so
/// that the connection cap, not the default limit of 1024, decides.
pub fn raise_file_limit(wanted: u64) -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        let wanted = wanted as libc::rlim_t;
        if limit.rlim_max < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted,
                rlim_max: wanted,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    #[allow(clippy::unnecessary_cast)] // rlim_t is not u64 everywhere
    Some(limit.rlim_cur as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_refills() {
        let mut bucket = Bucket::new(3, 1000.0);
        assert!(bucket.take() && bucket.take() && bucket.take());
        assert!(!bucket.take(), "the burst is spent");
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert!(bucket.take(), "a millisecond at 1000/s gives a token back");
    }

    fn limits(max_connections: usize, max_per_address: usize) -> AddressLimits {
        AddressLimits {
            max_connections,
            max_per_address,
            unknown_code_burst: 2,
            unknown_codes_per_minute: 0.0,
            room_burst: 1,
            rooms_per_minute: 0.0,
        }
    }

    #[test]
    fn connections_are_counted_per_address_and_in_all_until_dropped() {
        let addresses = Addresses::new(limits(3, 2));
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let a1 = addresses.admit(a, false).expect("first");
        let a2 = addresses.admit(a, false).expect("second");
        assert_eq!(addresses.admit(a, false).unwrap_err(), Full::Address);
        let b1 = addresses.admit(b, false).expect("another address");
        assert_eq!(addresses.admit(b, false).unwrap_err(), Full::Server);
        drop(a1);
        let b2 = addresses.admit(b, false).expect("a freed slot");
        drop(b2);
        // A trusted proxy carries many clients: only the server's cap holds.
        let p1 = addresses
            .admit(a, true)
            .expect("a proxy's third connection");
        drop(p1);
        let b2 = addresses.admit(b, false).expect("a freed slot again");
        assert_eq!(addresses.open(), 3);
        drop((a2, b1, b2));
        assert_eq!(addresses.open(), 0);
    }

    #[test]
    fn buckets_belong_to_the_address_not_the_connection() {
        let addresses = Addresses::new(limits(10, 10));
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let first = addresses.admit(ip, false).unwrap();
        assert!(addresses.take_new_room(ip));
        drop(first);
        // Reconnecting does not refill the bucket.
        let _again = addresses.admit(ip, false).unwrap();
        assert!(!addresses.take_new_room(ip));
        assert!(addresses.may_guess(ip));
        assert!(addresses.take_unknown_code(ip) && addresses.take_unknown_code(ip));
        assert!(!addresses.may_guess(ip) && !addresses.take_unknown_code(ip));
    }
}
