//! A connection's quick match: entering the queue, waking on its news or on
//! the bot offer, being paired (here, or by a partner's connection anywhere,
//! which sends `Control::Join`), accepting the bot or cancelling. The queue,
//! the pairing and the rooms are the lobby service's; the wait is this
//! connection's.

use broadside_engine::Preset;
use tokio::time::Instant;

use super::{Connection, MatchEvent, Matching};
use crate::cpu::Key;
use crate::db::Waiting;
use crate::protocol::{self, codes, Refusal, Role, ServerFrame};
use crate::room::Person;

impl Connection {
    /// `quick_match`: waits in the preset's queue, or pairs with whoever has
    /// waited longest for it.
    pub(super) async fn quick_match(
        &mut self,
        person: Person,
        preset: Preset,
    ) -> Result<(), Refusal> {
        self.refuse_if_busy("quick_match")?;
        // A pairing makes a room: an address out of new rooms cannot queue.
        if !self.shared.addresses.may_make_room(self.ip) {
            return Err(self.too_many_rooms());
        }
        let lobby = self.shared.lobby.clone();
        let since = Instant::now();
        self.matching = Some(Matching {
            preset,
            since,
            offer: Some(Box::pin(tokio::time::sleep_until(
                since + self.shared.config().match_wait,
            ))),
            waiting: None,
            news: lobby.queue_news(preset),
        });
        lobby.enqueue(&person, self.id, preset).await?;
        if self.pair(&person).await? {
            return Ok(());
        }
        // Tells the others waiting here too.
        let waiting = lobby.refresh(preset).await?;
        self.tell_waiting(waiting);
        Ok(())
    }

    /// Pairs this connection with the person who has waited longest for the
    /// same preset, if anybody waits; `true` if it did (and joined the room).
    async fn pair(&mut self, person: &Person) -> Result<bool, Refusal> {
        let Some(matching) = &self.matching else {
            return Ok(false);
        };
        let preset = matching.preset;
        // The pairing connection's address pays for the room (issue 34:
        // pairings made rooms past the room limit). Out of rooms, it waits
        // for a partner whose address may pair.
        if !self.shared.addresses.may_make_room(self.ip) {
            return Ok(false);
        }
        let partner = self
            .shared
            .lobby
            .take_partner(person, self.id, preset)
            .await?;
        match partner {
            Some(partner) => {
                self.shared.addresses.take_new_room(self.ip);
                self.start_match(person.clone(), preset, partner).await?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// A rated room for this person and their partner, started at once; the
    /// partner's connection is told to join it, this one joins.
    async fn start_match(
        &mut self,
        person: Person,
        preset: Preset,
        partner: Waiting,
    ) -> Result<(), Refusal> {
        self.matching = None;
        let code = self
            .shared
            .lobby
            .start_match(
                person.clone(),
                self.lang.clone(),
                preset,
                partner,
                Key::Client(self.ip),
            )
            .await?;
        self.join(person, code, Role::Player).await
    }

    /// Tells the client how many wait, if that changed.
    fn tell_waiting(&mut self, waiting: u32) {
        let wait = self.shared.config().match_wait.as_millis() as u64;
        let rated = self.person.as_ref().is_some_and(|person| person.account);
        let Some(matching) = self.matching.as_mut() else {
            return;
        };
        if matching.waiting != Some(waiting) {
            matching.waiting = Some(waiting);
            let frame = ServerFrame::Matching {
                preset: matching.preset,
                waiting,
                waited_ms: matching.since.elapsed().as_millis() as u64,
                bot_offer_ms: wait,
                rated,
            };
            self.send(frame.to_text());
        }
    }

    /// The queue had news, or the bot is due.
    pub(super) async fn match_event(&mut self, event: MatchEvent) {
        let Some(person) = self.person.clone() else {
            return;
        };
        match event {
            MatchEvent::News => {
                let Some(matching) = self.matching.as_mut() else {
                    return;
                };
                let waiting = *matching.news.borrow_and_update();
                if waiting >= 2 {
                    match self.pair(&person).await {
                        Ok(true) => return,
                        Ok(false) => {}
                        Err(refusal) => self.refuse(&refusal, Some("quick_match"), None),
                    }
                }
                self.tell_waiting(waiting);
            }
            MatchEvent::OfferBot => {
                let Some(matching) = self.matching.as_mut() else {
                    return;
                };
                matching.offer = None;
                let preset = matching.preset;
                let level = self.shared.lobby.bot_level(&person, preset).await;
                self.send(
                    ServerFrame::BotOffer {
                        preset,
                        level: protocol::wire_level(level),
                    }
                    .to_text(),
                );
            }
        }
    }

    /// A quick match paired this connection into room `code` (made by the
    /// partner's connection, maybe on another node).
    pub(super) async fn matched(&mut self, code: String) {
        // A `cancel_match` that crossed the pairing found the person gone
        // from the queue and was answered `paired`: this is that game.
        self.matching = None;
        let Some(person) = self.person.clone() else {
            return;
        };
        if let Err(refusal) = self.join(person, code, Role::Player).await {
            self.refuse(&refusal, Some("quick_match"), None);
        }
    }

    /// `accept_bot`: leaves the queue for a game against a bot, at once.
    pub(super) async fn accept_bot(&mut self, person: Person) -> Result<(), Refusal> {
        if self.matching.is_none() {
            return Err(not_matching());
        }
        self.refuse_if_busy("accept_bot")?;
        if !self.shared.addresses.take_new_room(self.ip) {
            return Err(self.too_many_rooms());
        }
        let matching = self.matching.take().ok_or_else(not_matching)?;
        let lobby = self.shared.lobby.clone();
        if !lobby.dequeue(&person, self.id, matching.preset).await? {
            // Paired meanwhile: that game is starting.
            return Err(super::rooms::paired());
        }
        let level = lobby.bot_level(&person, matching.preset).await;
        let code = lobby
            .bot_game(
                person.clone(),
                self.lang.clone(),
                matching.preset,
                level,
                Key::Client(self.ip),
            )
            .await?;
        self.join(person, code, Role::Player).await
    }

    /// `cancel_match`: `match_cancelled` only if the person was still in
    /// the queue; a pairing that took them out first wins (`paired`), so
    /// that no game starts after `match_cancelled`.
    pub(super) async fn cancel_match(&mut self, person: &Person) -> Result<(), Refusal> {
        let matching = self.matching.take().ok_or_else(not_matching)?;
        let waited = self
            .shared
            .lobby
            .dequeue(person, self.id, matching.preset)
            .await?;
        if !waited {
            return Err(super::rooms::paired());
        }
        self.send(ServerFrame::MatchCancelled.to_text());
        Ok(())
    }
}

impl Connection {
    /// The refusal of a new room (or a pairing) past the address's ration.
    pub(super) fn too_many_rooms(&self) -> Refusal {
        Refusal::new(
            codes::RATE_LIMITED,
            format!(
                "too many new rooms from your address (quick matches included): at most {} a minute",
                self.shared.config().rooms_per_minute
            ),
        )
    }
}

fn not_matching() -> Refusal {
    Refusal::new("not_matching", "you are not waiting for a quick match")
}
