//! The key of a client's address for everything that asks "the same
//! person?" of addresses: IPv4 as it is, IPv6 masked to its /64 (one home
//! or one host gets a whole /64, so its addresses are one key).
//!
//! A leaf: rooms (who may rate each other) and the per-address limits can
//! both use it.

use std::net::{IpAddr, Ipv6Addr};

/// The address as a key: an IPv4 address (or an IPv4-mapped IPv6 address)
/// as itself, an IPv6 address with its last 64 bits cleared.
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(Ipv6Addr::from(bits))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_keys_on_the_exact_address_and_ipv6_on_its_64() {
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert_eq!(address_key(a), a);
        assert_ne!(address_key(a), address_key(b));
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(address_key(mapped), a);
        let home: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let same_home: IpAddr = "2001:db8:1:2:ffff:1:2:3".parse().unwrap();
        let next_door: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(address_key(home), address_key(same_home));
        assert_ne!(address_key(home), address_key(next_door));
        assert_eq!(
            address_key(home),
            "2001:db8:1:2::".parse::<IpAddr>().unwrap()
        );
    }
}
