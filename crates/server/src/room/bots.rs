//! The room's bots at play: each thinks on the CPU pool in the room's turn
//! and plays through [`Room::apply`] like anybody else (they are made, one
//! per bot seat and seeded from the game's seed, by `Room::bots_for`).

use broadside_ai::{Bot, Level};
use broadside_engine::{Command, Phase};

use super::{Occupant, Room};
use crate::cpu::Key;
use crate::secret;

impl Room {
    /// Every bot that must act now makes its move. Bots think on the pool, in
    /// the room's turn.
    pub(super) async fn play_bots(&mut self) {
        let Some(running) = self.game.as_ref() else {
            return;
        };
        let seats: Vec<usize> = running
            .game
            .to_move()
            .into_iter()
            .filter(|seat| running.bots.contains_key(seat))
            .collect();
        for seat in seats {
            let Some(running) = self.game.as_mut() else {
                return;
            };
            if !running.game.to_move().contains(&seat) {
                continue;
            }
            let view = running.game.view(Some(seat));
            let phase = view.phase;
            let rules = running.game.rules().clone();
            let Some(mut bot) = running.bots.remove(&seat) else {
                continue;
            };
            let thought = self
                .context
                .cpu
                .run(Key::Room(self.id), move || {
                    let command = bot.next_command(&view, &rules);
                    (bot, command)
                })
                .await;
            let Some(running) = self.game.as_mut() else {
                return;
            };
            let command = match thought {
                Ok((bot, command)) => {
                    running.bots.insert(seat, bot);
                    command
                }
                Err(error) => {
                    // Only a bug gets here (the room's own work is never
                    // refused as busy): the bot starts afresh, and the turn
                    // timer plays for it meanwhile.
                    tracing::error!(%error, seat, "a bot failed");
                    let level = match &self.seats[seat] {
                        Occupant::Bot(level) => *level,
                        _ => Level::Medium,
                    };
                    let seed = secret::new_seed().unwrap_or(seat as u64);
                    running.bots.insert(seat, Bot::for_level(level, seed));
                    running.bot_due = None;
                    return;
                }
            };
            let Some(command) = command else {
                continue;
            };
            if self.apply(command, Key::Room(self.id)).await.is_err() {
                // A bot's refused move must not stall a placement; in the battle
                // the turn timer plays for it.
                if phase == Phase::Placement {
                    let _ = self
                        .apply(Command::PlaceRandom { seat }, Key::Room(self.id))
                        .await;
                }
                if let Some(running) = self.game.as_mut() {
                    running.bot_due = None;
                }
                return;
            }
            // With a delay, one move per wake-up reads like a person playing.
            if !self.context.config.bot_delay.is_zero() {
                return;
            }
        }
    }
}
