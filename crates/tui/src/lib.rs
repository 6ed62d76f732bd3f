//! The Broadside terminal client: `broadside play`.
//!
//! An Elm-style program: an [`App`] holds the state, every key, timer tick and
//! network frame arrives as one [`Msg`] on a single channel, [`App::update`]
//! changes the state, and `impl Widget for &App` draws it with ratatui.
//!
//! Architecture invariant: the client decides no rule. Offline the engine's
//! `Game` referees and the screen shows only the seat's `View` and the events
//! filtered for it; online the server sends exactly the same view.

mod app;
mod i18n;
mod identity;
mod net;
mod ui;
mod words;

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use ratatui::crossterm::event::{self, Event as TermEvent};

pub use app::{
    Account, App, Config, Field, Form, Leaderboard, Login, Matching, Msg, Play, Prompt, PromptKind,
    Ranked, ReservePick, Screen, StartEntry, DEFAULT_SAVE, START_ENTRIES,
};
pub use i18n::Lang;
pub use identity::{remembered_name, TokenSlot};
pub use net::{endpoint, CloseReason, NetError, NetEvent};
pub use ui::cell_style;
pub use words::{Names, LEGEND};

/// How often the clock ticks (bots move on ticks).
pub const TICK: Duration = Duration::from_millis(120);

/// Why the client stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("terminal error: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs the client in the current terminal until the player quits. The
/// terminal is restored on return and on panic (ratatui's init installs the
/// panic hook that does it).
pub fn run(config: Config) -> Result<(), TuiError> {
    let (sender, receiver) = mpsc::channel::<Msg>();
    let input = sender.clone();
    thread::spawn(move || loop {
        let msg = match event::read() {
            Ok(TermEvent::Key(key)) => Msg::Key(key),
            Ok(TermEvent::Resize(_, _)) => Msg::Resize,
            Ok(_) => continue,
            Err(_) => break,
        };
        if input.send(msg).is_err() {
            break;
        }
    });
    let ticks = sender.clone();
    thread::spawn(move || loop {
        thread::sleep(TICK);
        if ticks.send(Msg::Tick).is_err() {
            break;
        }
    });
    let mut app = App::new(config, Some(sender));
    let mut terminal = ratatui::init();
    let result = (|| -> Result<(), TuiError> {
        loop {
            terminal.draw(|frame| frame.render_widget(&app, frame.area()))?;
            let Ok(msg) = receiver.recv() else {
                return Ok(());
            };
            app.update(msg);
            // Take every message already waiting before drawing again.
            while let Ok(msg) = receiver.try_recv() {
                app.update(msg);
            }
            if app.quit {
                return Ok(());
            }
        }
    })();
    ratatui::restore();
    result
}
