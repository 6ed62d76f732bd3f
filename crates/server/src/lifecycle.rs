//! The life of the server's tasks: the shutdown signal they watch, and the
//! tokens that keep shutdown waiting until each has ended (after mini-redis).
//!
//! A bottom layer: it uses nothing else of the crate.

use std::sync::Mutex;

use tokio::sync::{mpsc, watch};

/// The shutdown signal and the tokens of the running tasks.
pub struct Lifecycle {
    /// `true` once the server stops: connections close, rooms let go.
    shutdown: watch::Receiver<bool>,
    /// Each task holds a clone while it runs; shutdown waits until all are
    /// gone. Taken (set to `None`) at shutdown so that the wait can end.
    alive: Mutex<Option<mpsc::Sender<()>>>,
}

/// The server's side of a [`Lifecycle`]: it signals shutdown and then waits
/// for every task.
pub struct Stopper {
    stop: watch::Sender<bool>,
    all_stopped: mpsc::Receiver<()>,
}

impl Lifecycle {
    /// A lifecycle whose tasks stop when the [`Stopper`] says so.
    pub fn new() -> (Lifecycle, Stopper) {
        let (stop, shutdown) = watch::channel(false);
        let (alive, all_stopped) = mpsc::channel::<()>(1);
        (
            Lifecycle {
                shutdown,
                alive: Mutex::new(Some(alive)),
            },
            Stopper { stop, all_stopped },
        )
    }

    pub fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.shutdown.clone()
    }

    /// Whether the server is stopping (a stopping node takes no rooms).
    pub fn stopping(&self) -> bool {
        *self.shutdown.borrow()
    }

    /// A token that keeps shutdown waiting while a task runs.
    pub fn alive_token(&self) -> Option<mpsc::Sender<()>> {
        self.alive.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Drops the lifecycle's own token, so that the wait ends with the last
    /// task's.
    fn let_go(&self) {
        self.alive.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

impl Stopper {
    /// Tells every task to stop, and waits (at most `bound`) until all have.
    pub async fn stop(mut self, lifecycle: &Lifecycle, bound: std::time::Duration) {
        let _ = self.stop.send(true);
        lifecycle.let_go();
        // Every task drops its token when it ends; `None` means all have
        // ended. The bound only matters if a peer stops reading mid-frame.
        let _ = tokio::time::timeout(bound, self.all_stopped.recv()).await;
    }
}
