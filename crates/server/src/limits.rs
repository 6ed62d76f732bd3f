//! Limits that keep one client from starving the others: token buckets (frames
//! per connection; new rooms and joins by unknown codes per address) and caps
//! on open connections, per address, per network and on the whole server; and
//! the process's limit of open files those connections need.
//!
//! Every per-client limit keys on [`address_key`]: an IPv4 address as it is,
//! an IPv6 address by its /64 (one home or host has a whole /64). Networks
//! (an IPv4 /24, an IPv6 /48) share a part of the server's cap, so that
//! nobody with many addresses can fill the server and lock the others out.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

pub use crate::address::address_key;

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

/// What the server remembers about one client (an [`address_key`]).
#[derive(Debug)]
struct Address {
    /// Open connections from it.
    open: usize,
    /// Joins by a code that names no room (a code sweep).
    unknown_codes: Bucket,
    /// New rooms (quick-match pairings and games against a bot included).
    new_rooms: Bucket,
    /// When a connection from it last opened or closed, or it last spent a
    /// token.
    seen: Instant,
}

/// Limits per client address and on the whole server.
#[derive(Clone, Debug)]
pub struct AddressLimits {
    /// TCP connections open at once, on the whole server.
    pub max_connections: usize,
    /// Connections open at once from one client.
    pub max_per_address: usize,
    /// The share of `max_connections`, in percent, that the clients of one
    /// network (an IPv4 /24, an IPv6 /48) may hold at once.
    pub network_share_percent: u32,
    /// Joins by an unknown code: a burst, then this many a minute.
    pub unknown_code_burst: u32,
    pub unknown_codes_per_minute: f64,
    /// New rooms: a burst, then this many a minute.
    pub room_burst: u32,
    pub rooms_per_minute: f64,
}

impl AddressLimits {
    /// Connections one network may hold: its share of the server's cap, at
    /// least one.
    fn per_network(&self) -> usize {
        let share = self
            .max_connections
            .saturating_mul(self.network_share_percent.min(100) as usize)
            / 100;
        share.max(1)
    }
}

/// Addresses without a connection are forgotten after this long (their
/// buckets have refilled by then).
const FORGET_AFTER: std::time::Duration = std::time::Duration::from_secs(600);

#[derive(Debug, Default)]
struct Table {
    /// TCP connections open on the whole server.
    open: usize,
    addresses: HashMap<IpAddr, Address>,
    /// Open connections per network ([`network_key`]).
    networks: HashMap<IpAddr, usize>,
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
    Network,
}

/// The network of an address, for the share of the cap one network may
/// hold: an IPv4 /24, an IPv6 /48 (a site's usual assignment). `None` for
/// loopback: this machine's own clients (tests, load tools, a proxy on the
/// same host that is not trusted) are no stranger's network.
pub fn network_key(ip: IpAddr) -> Option<IpAddr> {
    let ip = address_key(ip);
    if ip.is_loopback() {
        return None;
    }
    Some(match ip {
        IpAddr::V4(v4) => IpAddr::V4(Ipv4Addr::from(u32::from(v4) & !0xff)),
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 80) - 1))),
    })
}

impl Address {
    fn new(limits: &AddressLimits, now: Instant) -> Address {
        Address {
            open: 0,
            unknown_codes: Bucket::new(
                limits.unknown_code_burst,
                limits.unknown_codes_per_minute / 60.0,
            ),
            new_rooms: Bucket::new(limits.room_burst, limits.rooms_per_minute / 60.0),
            seen: now,
        }
    }
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

    /// A new TCP connection from `ip`, unless the server, the client or its
    /// network already has as many as allowed. `proxy`: a trusted load
    /// balancer, which carries many clients' connections: only the server's
    /// cap counts it here, and each client it carries is counted at the
    /// WebSocket upgrade ([`Addresses::admit_client`]).
    pub fn admit(self: &Arc<Self>, ip: IpAddr, proxy: bool) -> Result<Slot, Full> {
        let mut table = self.table();
        if table.open >= self.limits.max_connections {
            return Err(Full::Server);
        }
        let client = if proxy {
            None
        } else {
            Some(self.count_client(&mut table, ip)?)
        };
        table.open += 1;
        Ok(Slot {
            addresses: self.clone(),
            client,
            counted_on_server: true,
        })
    }

    /// A client that a trusted load balancer carries (named in its
    /// `X-Real-IP`), counted against the per-client and per-network caps
    /// while its WebSocket is open. Its TCP connection is the balancer's,
    /// already counted on the server.
    pub fn admit_client(self: &Arc<Self>, ip: IpAddr) -> Result<Slot, Full> {
        let mut table = self.table();
        let client = self.count_client(&mut table, ip)?;
        Ok(Slot {
            addresses: self.clone(),
            client: Some(client),
            counted_on_server: false,
        })
    }

    /// Counts one more connection of client `ip` (and its network), unless
    /// either is at its cap; returns the client's key.
    fn count_client(&self, table: &mut Table, ip: IpAddr) -> Result<IpAddr, Full> {
        let now = Instant::now();
        let key = address_key(ip);
        let limits = &self.limits;
        let open = table.addresses.get(&key).map_or(0, |a| a.open);
        if open >= limits.max_per_address {
            return Err(Full::Address);
        }
        if let Some(network) = network_key(key) {
            let held = table.networks.entry(network).or_insert(0);
            if *held >= limits.per_network() {
                return Err(Full::Network);
            }
            *held += 1;
        }
        let address = table
            .addresses
            .entry(key)
            .or_insert_with(|| Address::new(limits, now));
        address.open += 1;
        address.seen = now;
        Ok(key)
    }

    fn release(&self, client: Option<IpAddr>, counted_on_server: bool) {
        let now = Instant::now();
        let mut table = self.table();
        if counted_on_server {
            table.open = table.open.saturating_sub(1);
        }
        if let Some(key) = client {
            if let Some(address) = table.addresses.get_mut(&key) {
                address.open = address.open.saturating_sub(1);
                address.seen = now;
            }
            if let Some(network) = network_key(key) {
                if let Some(held) = table.networks.get_mut(&network) {
                    *held = held.saturating_sub(1);
                    if *held == 0 {
                        table.networks.remove(&network);
                    }
                }
            }
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

    /// Runs `use_bucket` on the client's bucket; a client not known yet (no
    /// connection counted) gets its entry now, so that no path around the
    /// caps escapes the buckets.
    fn bucket<T>(&self, ip: IpAddr, use_bucket: impl FnOnce(&mut Address) -> T) -> T {
        let now = Instant::now();
        let mut table = self.table();
        let limits = &self.limits;
        let address = table
            .addresses
            .entry(address_key(ip))
            .or_insert_with(|| Address::new(limits, now));
        address.seen = now;
        use_bucket(address)
    }

    /// Takes a token for a join by an unknown code; `false` when the address
    /// has tried too many.
    pub fn take_unknown_code(&self, ip: IpAddr) -> bool {
        self.bucket(ip, |a| a.unknown_codes.take())
    }

    /// Whether the address may spend a guess at a code now (without spending one).
    pub fn may_guess(&self, ip: IpAddr) -> bool {
        self.bucket(ip, |a| a.unknown_codes.peek())
    }

    /// Takes a token for a new room; `false` when the address made too many.
    pub fn take_new_room(&self, ip: IpAddr) -> bool {
        self.bucket(ip, |a| a.new_rooms.take())
    }

    /// Whether the address may make a room now (without spending a token).
    pub fn may_make_room(&self, ip: IpAddr) -> bool {
        self.bucket(ip, |a| a.new_rooms.peek())
    }

    /// Open connections on the whole server.
    pub fn open(&self) -> usize {
        self.table().open
    }
}

/// One open connection, counted until it is dropped: a TCP connection (on
/// the server, and for its client unless it is a trusted proxy's), or a
/// proxied client's WebSocket (for that client only).
#[derive(Debug)]
pub struct Slot {
    addresses: Arc<Addresses>,
    /// The client's key, if the slot counts against its caps.
    client: Option<IpAddr>,
    /// Whether the slot counts against the server's cap.
    counted_on_server: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.addresses.release(self.client, self.counted_on_server);
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
            network_share_percent: 100,
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

    #[test]
    fn a_proxied_client_counts_for_itself_not_for_the_server_twice() {
        let addresses = Addresses::new(limits(3, 1));
        let proxy: IpAddr = "10.0.0.9".parse().unwrap();
        let client: IpAddr = "192.0.2.7".parse().unwrap();
        let tcp = addresses
            .admit(proxy, true)
            .expect("the proxy's connection");
        let ws = addresses.admit_client(client).expect("its client");
        assert_eq!(addresses.open(), 1, "one TCP connection");
        let tcp2 = addresses.admit(proxy, true).expect("the proxy again");
        assert_eq!(
            addresses.admit_client(client).unwrap_err(),
            Full::Address,
            "the client's own cap holds behind the proxy"
        );
        drop(ws);
        let _ws = addresses.admit_client(client).expect("a freed place");
        drop((tcp, tcp2));
        assert_eq!(addresses.open(), 0);
        // Its buckets are its own, not the proxy's.
        assert!(addresses.take_new_room(client));
        assert!(addresses.take_new_room(proxy));
        assert!(!addresses.take_new_room(client));
    }

    #[test]
    fn a_network_holds_at_most_its_share_of_the_cap() {
        let addresses = Addresses::new(AddressLimits {
            network_share_percent: 10,
            ..limits(40, 10)
        });
        let v4 = |last: u8| IpAddr::from([198, 51, 100, last]);
        let held: Vec<Slot> = (1..=4)
            .map(|n| addresses.admit(v4(n), false).expect("within the share"))
            .collect();
        assert_eq!(
            addresses.admit(v4(200), false).unwrap_err(),
            Full::Network,
            "a fifth address of the same /24"
        );
        let _other = addresses
            .admit(IpAddr::from([198, 51, 101, 1]), false)
            .expect("the next /24 gets in");
        drop(held);
        let _again = addresses.admit(v4(200), false).expect("a freed share");
        // IPv6: addresses key on their /64, networks are /48s.
        let v6 = |text: &str| text.parse::<IpAddr>().unwrap();
        let _a: Vec<Slot> = ["2001:db8:7:1::1", "2001:db8:7:2::1", "2001:db8:7:3::1"]
            .iter()
            .map(|a| addresses.admit_client(v6(a)).expect("within the share"))
            .collect();
        let _b = addresses
            .admit_client(v6("2001:db8:7:4::1"))
            .expect("fourth");
        assert_eq!(
            addresses
                .admit_client(v6("2001:db8:7:ffff::1"))
                .unwrap_err(),
            Full::Network
        );
        addresses
            .admit_client(v6("2001:db8:8::1"))
            .expect("another /48");
        // Loopback is this machine: held to the per-address cap only.
        let local: Vec<Slot> = (1..=8)
            .map(|n| {
                addresses
                    .admit_client(IpAddr::from([127, 0, 0, n]))
                    .expect("loopback")
            })
            .collect();
        assert_eq!(local.len(), 8);
    }

    #[test]
    fn one_ipv6_64_is_one_client() {
        let addresses = Addresses::new(limits(10, 1));
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let _held = addresses.admit(a, false).unwrap();
        assert_eq!(addresses.admit(b, false).unwrap_err(), Full::Address);
        assert!(addresses.take_new_room(a));
        assert!(!addresses.take_new_room(b), "one bucket for the /64");
        assert_eq!(
            network_key(a),
            Some("2001:db8:1::".parse().unwrap()),
            "the /48"
        );
        assert_eq!(
            network_key(IpAddr::from([192, 0, 2, 77])),
            Some(IpAddr::from([192, 0, 2, 0]))
        );
    }
}
