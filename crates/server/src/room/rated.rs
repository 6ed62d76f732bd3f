//! What makes a game rated (docs/protocol.md, "Rated games"), decided here
//! and nowhere else in the room: who is a rated person, what a rated room
//! may set, whether the people seated come from one address, whether every
//! rated person has played (made a move of their own in the battle), and so
//! whether a finished game counts. The pair limit and the leaderboard's
//! bar are the storage's (`db/decisions.rs`), on the rows this decides.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use broadside_engine::{Command, Event, Options, Rules, Setup};
use broadside_protocol::{codes, AbortReason, Aborted, RoomSetup};

use super::Occupant;
use crate::address::address_key;
use crate::protocol::Refusal;

/// The person a seat rates, if any: people are rated, bots are not.
pub(super) fn rated_person(occupant: &Occupant) -> Option<i64> {
    match occupant {
        Occupant::Person(person) => Some(person.player_id),
        _ => None,
    }
}

/// Whether a person without an account holds a seat: such a game is never
/// rated (accounts.rs), and a rated room does not seat them.
pub(super) fn guest_seated(seats: &[Occupant]) -> bool {
    seats
        .iter()
        .any(|occupant| matches!(occupant, Occupant::Person(person) if !person.account))
}

/// The refusal of a guest where only accounts may be.
pub(super) fn account_needed() -> Refusal {
    Refusal::new(
        codes::ACCOUNT_NEEDED,
        "rated games are for accounts: create one or sign in first",
    )
}

/// A rated room's setup: no option that shows a seat more than it should
/// (`spectators_see_all`: a second token would watch the opponent's fleet),
/// no practice (one side never shoots), and no clock below the preset's
/// defaults (a host could run a stranger's clock out). Unrated rooms may
/// set anything the engine accepts.
pub(super) fn check_rated_setup(setup: &RoomSetup, rules: &Rules) -> Result<(), Refusal> {
    if !setup.rated {
        return Ok(());
    }
    if rules.spectators_see_all {
        return Err(Refusal::new(
            codes::NOT_FOR_RATED,
            "a rated room cannot let spectators see every fleet",
        ));
    }
    if rules.practice {
        return Err(Refusal::new(
            codes::NOT_FOR_RATED,
            "practice is never rated",
        ));
    }
    let defaults = Rules::resolve(&Setup {
        preset: setup.preset,
        seats: setup.seats,
        seed: 0,
        options: Options::default(),
        teams: setup.teams.clone(),
    })
    .map_err(Refusal::from)?;
    let clocks = [
        ("turn_seconds", rules.turn_seconds, defaults.turn_seconds),
        ("round_seconds", rules.round_seconds, defaults.round_seconds),
        ("place_seconds", rules.place_seconds, defaults.place_seconds),
        ("shop_seconds", rules.shop_seconds, defaults.shop_seconds),
    ];
    for (name, set, default) in clocks {
        if set < default {
            return Err(Refusal::new(
                codes::CLOCK_TOO_SHORT,
                format!("a rated room's {name} is at least the preset's {default}"),
            ));
        }
    }
    Ok(())
}

/// Whether two of the people seated share an address key (IPv4: the
/// address; IPv6: its /64), by every address each was seen from here.
pub(super) fn shares_address(
    seats: &[Occupant],
    addresses: &BTreeMap<i64, BTreeSet<IpAddr>>,
) -> bool {
    let people: BTreeSet<i64> = seats.iter().filter_map(rated_person).collect();
    let mut seen: BTreeMap<IpAddr, i64> = BTreeMap::new();
    for person in people {
        for &key in addresses.get(&person).into_iter().flatten() {
            match seen.insert(key, person) {
                Some(other) if other != person => return true,
                _ => {}
            }
        }
    }
    false
}

/// Remembers an address a person was seen from, as its key.
pub(super) fn remember_address(
    addresses: &mut BTreeMap<i64, BTreeSet<IpAddr>>,
    player_id: i64,
    ip: IpAddr,
) {
    addresses
        .entry(player_id)
        .or_default()
        .insert(address_key(ip));
}

/// What the game so far says about its rating: who has played, who
/// resigned, and whether it was aborted. Rebuilt from the log on restore.
#[derive(Clone, Debug, Default)]
pub(super) struct Earned {
    /// Seats that made a move of their own in the battle (a shot, a volley,
    /// an ability, a salvo: not a timeout's random move).
    pub moved: BTreeSet<usize>,
    /// Seats that resigned: they get their own placing, not their
    /// team's later win.
    pub resigned: BTreeSet<usize>,
    /// The first rated person who left the game before their first move.
    pub aborted: Option<Aborted>,
}

impl Earned {
    /// Takes note of one applied command and its events.
    pub fn note(&mut self, seats: &[Occupant], command: &Command, events: &[Event]) {
        let person = |seat: usize| seats.get(seat).and_then(rated_person).is_some();
        match command {
            Command::Fire { seat, .. }
            | Command::Volley { seat, .. }
            | Command::Ability { seat, .. }
            | Command::Salvo { seat, .. } => {
                self.moved.insert(*seat);
            }
            Command::Timeout => {
                // A clock that ran out in the battle moves for its seats:
                // the seats whose shots it fired, unmoved, abort the game.
                for event in events {
                    let shooter = match event {
                        Event::Shot { shooter, .. } | Event::Volley { shooter, .. } => *shooter,
                        Event::SalvoSubmitted { seat } => *seat,
                        _ => continue,
                    };
                    if person(shooter) && !self.moved.contains(&shooter) {
                        self.abort(shooter, AbortReason::Timeout);
                    }
                }
            }
            _ => {}
        }
        for event in events {
            match event {
                Event::Resigned { seat } => {
                    self.resigned.insert(*seat);
                    if person(*seat) && !self.moved.contains(seat) {
                        self.abort(*seat, AbortReason::Resigned);
                    }
                }
                Event::Eliminated { seat } if person(*seat) && !self.moved.contains(seat) => {
                    self.abort(*seat, AbortReason::Eliminated);
                }
                _ => {}
            }
        }
    }

    /// A person left the room while the game ran.
    pub fn left(&mut self, seat: usize) {
        if !self.moved.contains(&seat) {
            self.abort(seat, AbortReason::Left);
        }
    }

    fn abort(&mut self, seat: usize, reason: AbortReason) {
        if self.aborted.is_none() {
            self.aborted = Some(Aborted { seat, reason });
        }
    }

    /// Whether a finished game counts for the ratings: the room is rated
    /// (and allowed to be), at least two people play, every one of them
    /// with an account, nobody aborted it,
    /// every person made a move of their own, and no two of them share an
    /// address. The storage then applies the pair limit.
    pub fn counts(
        &self,
        setup: &RoomSetup,
        rules: &Rules,
        seats: &[Occupant],
        addresses: &BTreeMap<i64, BTreeSet<IpAddr>>,
    ) -> bool {
        let people: Vec<usize> = (0..seats.len())
            .filter(|&seat| rated_person(&seats[seat]).is_some())
            .collect();
        setup.rated
            && check_rated_setup(setup, rules).is_ok()
            && people.len() >= 2
            && !guest_seated(seats)
            && self.aborted.is_none()
            && people.iter().all(|seat| self.moved.contains(seat))
            && !shares_address(seats, addresses)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Person;
    use super::*;
    use broadside_engine::{Cell, Target};

    fn person(id: i64) -> Occupant {
        Occupant::Person(Person {
            player_id: id,
            nickname: format!("p{id}"),
            account: true,
        })
    }

    #[test]
    fn a_resignation_before_the_first_move_aborts_and_after_it_does_not() {
        let seats = [person(1), person(2)];
        let mut earned = Earned::default();
        let resign = Command::Resign { seat: 1 };
        let events = [Event::Resigned { seat: 1 }, Event::Eliminated { seat: 1 }];
        earned.note(&seats, &resign, &events);
        assert_eq!(
            earned.aborted,
            Some(Aborted {
                seat: 1,
                reason: AbortReason::Resigned
            })
        );

        let mut earned = Earned::default();
        for seat in [0, 1] {
            let fire = Command::Fire {
                seat,
                target: Target {
                    board: 1 - seat,
                    at: Cell { row: 0, col: 0 },
                },
            };
            earned.note(&seats, &fire, &[]);
        }
        earned.note(&seats, &resign, &events);
        assert_eq!(earned.aborted, None);
        assert!(earned.resigned.contains(&1));
    }

    #[test]
    fn people_from_one_address_share_it_and_ipv6_shares_its_64() {
        let seats = [
            person(1),
            person(2),
            Occupant::Bot(broadside_ai::Level::Easy),
        ];
        let mut addresses = BTreeMap::new();
        remember_address(&mut addresses, 1, "2001:db8::1".parse().unwrap());
        remember_address(&mut addresses, 2, "2001:db8:0:1::1".parse().unwrap());
        assert!(!shares_address(&seats, &addresses));
        remember_address(&mut addresses, 2, "2001:db8::ffff".parse().unwrap());
        assert!(shares_address(&seats, &addresses));
    }
}
