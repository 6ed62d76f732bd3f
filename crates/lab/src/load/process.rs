//! The processes around a run: the resident memory and CPU time of the server (found
//! by the port it listens on, through /proc) and of the generator itself.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};

/// User plus system CPU time of this process, in seconds.
pub(super) fn own_cpu_seconds() -> Option<f64> {
    // SAFETY: an all-zero rusage is a valid value, and getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// The address of a `/proc/net/tcp{,6}` line (hex words in the kernel's byte
/// order), with its port.
fn parse_proc_addr(field: &str) -> Option<SocketAddr> {
    let (ip, port) = field.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let ip: IpAddr = match ip.len() {
        8 => Ipv4Addr::from(u32::from_str_radix(ip, 16).ok()?.to_ne_bytes()).into(),
        32 => {
            let mut bytes = [0u8; 16];
            for (i, chunk) in bytes.chunks_mut(4).enumerate() {
                let word = u32::from_str_radix(&ip[i * 8..i * 8 + 8], 16).ok()?;
                chunk.copy_from_slice(&word.to_ne_bytes());
            }
            Ipv6Addr::from(bytes).into()
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// The inodes of the listening sockets in a `/proc/net/tcp{,6}` table that
/// accept connections to `target`.
fn listening_inodes(table: &str, target: SocketAddr) -> Vec<u64> {
    let local = is_local(target.ip());
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 10 || fields[3] != "0A" {
                return None;
            }
            let addr = parse_proc_addr(fields[1])?;
            let ip = match addr.ip() {
                IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
                ip => ip,
            };
            let matches = addr.port() == target.port()
                && (ip == target.ip() || (ip.is_unspecified() && local));
            matches.then(|| fields[9].parse().ok()).flatten()
        })
        .collect()
}

/// Whether `ip` is an address of this machine (one can bind to it).
fn is_local(ip: IpAddr) -> bool {
    ip.is_loopback() || UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok()
}

/// The local process that listens for connections to `target`, if any.
pub(crate) fn find_listener(target: SocketAddr) -> Option<u32> {
    let mut wanted = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(text) = std::fs::read_to_string(table) {
            wanted.extend(listening_inodes(&text, target));
        }
    }
    wanted.retain(|&inode| inode != 0);
    if wanted.is_empty() {
        return None;
    }
    let links: Vec<String> = wanted.iter().map(|i| format!("socket:[{i}]")).collect();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                if links.iter().any(|l| link.as_os_str() == l.as_str()) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// The resident memory of a process in MiB.
pub(super) fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib / 1024.0 * 10.0).round() / 10.0)
}

/// User plus system CPU time of a process, in seconds.
pub(crate) fn process_cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces) start at the
    // state, field 3; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| ticks / per_second as f64)
}

/// The CPU seconds of each of a process's threads, summed by the thread's
/// name without its trailing digits and dashes (`tokio-runtime-w`,
/// `broadside-cpu`, …): where the server spends its time.
pub(crate) fn threads_cpu_seconds(pid: u32) -> Option<std::collections::BTreeMap<String, f64>> {
    let mut by_name = std::collections::BTreeMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let Ok(task) = task else { continue };
        let Some(tid) = task
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(comm) = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/comm")) else {
            continue;
        };
        let name = comm
            .trim()
            .trim_end_matches(|c: char| c.is_ascii_digit() || c == '-')
            .to_string();
        let Some(seconds) = thread_cpu_seconds(pid, tid) else {
            continue;
        };
        *by_name.entry(name).or_insert(0.0) += seconds;
    }
    Some(by_name)
}

fn thread_cpu_seconds(pid: u32, tid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| ticks / per_second as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_threads_cpu_is_read_by_name() {
        let threads = threads_cpu_seconds(std::process::id()).expect("/proc is readable");
        assert!(!threads.is_empty());
        assert!(threads.values().all(|&s| s >= 0.0));
    }

    #[test]
    fn proc_net_tcp_addresses_are_read_in_kernel_order() {
        assert_eq!(
            parse_proc_addr("0100007F:1F90"),
            Some("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            parse_proc_addr("00000000000000000000000001000000:0050"),
            Some("[::1]:80".parse().unwrap())
        );
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
           0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0\n\
           1: 0100007F:1F90 0100007F:C000 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0 100 0 0 10 0\n\
           2: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0 100 0 0 10 0\n";
        assert_eq!(
            listening_inodes(table, "127.0.0.1:8080".parse().unwrap()),
            vec![4242]
        );
        assert_eq!(
            listening_inodes(table, "127.0.0.1:8081".parse().unwrap()),
            vec![4444]
        );
    }

    #[test]
    fn the_listener_of_a_port_is_found() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("loopback binds");
        let addr = listener.local_addr().expect("bound");
        assert_eq!(find_listener(addr), Some(std::process::id()));
        assert!(rss_mib(std::process::id()).is_some_and(|rss| rss > 0.0));
        assert!(process_cpu_seconds(std::process::id()).is_some());
    }
}
