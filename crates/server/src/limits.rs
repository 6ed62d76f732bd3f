//! Limits that keep one client from starving the others: a token bucket per
//! connection for frames and one for new rooms, and a cap on open connections.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
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

    /// Takes one token if there is one.
    pub fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.per_second;
        self.tokens = (self.tokens + refill).min(self.capacity);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// One open connection, counted until it is dropped.
pub struct Slot {
    open: Arc<AtomicUsize>,
}

impl Slot {
    /// A slot among at most `max` open connections, or `None` when all are taken.
    pub fn acquire(open: &Arc<AtomicUsize>, max: usize) -> Option<Slot> {
        let before = open.fetch_add(1, Ordering::AcqRel);
        if before >= max {
            open.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Slot { open: open.clone() })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
    }
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

    #[test]
    fn slots_are_counted_until_dropped() {
        let open = Arc::new(AtomicUsize::new(0));
        let a = Slot::acquire(&open, 2).expect("first");
        let b = Slot::acquire(&open, 2).expect("second");
        assert!(Slot::acquire(&open, 2).is_none(), "full");
        drop(a);
        let c = Slot::acquire(&open, 2).expect("a freed slot");
        assert_eq!(open.load(Ordering::Acquire), 2);
        drop((b, c));
        assert_eq!(open.load(Ordering::Acquire), 0);
    }
}
