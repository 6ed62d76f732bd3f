//! The space shop: checking a purchase against the catalogue's
//! prices and limits, the capital limit and the budget; the default fleet of a
//! seat that buys nothing; the move to placement once every seat has a
//! fleet.

use std::collections::BTreeMap;

use crate::command::{Event, Phase};
use crate::error::RuleError;
use crate::ships::SPACE_DEFAULT_FLEET;

use super::{bad, Game};

impl Game {
    /// Checks a purchase and returns the fleet as catalogue indices, largest first.
    pub fn check_purchase(&self, ships: &BTreeMap<String, u32>) -> Result<Vec<usize>, RuleError> {
        let mut fleet = Vec::new();
        let mut capitals: u32 = 0;
        let mut cost: u64 = 0;
        for id in ships.keys() {
            if self.rules.type_index(id).is_none() {
                return Err(RuleError::UnknownShip(id.clone()));
            }
        }
        for (id, &count) in ships {
            let index = self.rules.type_index(id).expect("checked above");
            let ship_type = &self.rules.catalogue[index];
            if ship_type.capital {
                // Saturating: counts come from clients, and a wrapped sum of
                // huge ones would pass the capital limit.
                capitals = capitals.saturating_add(count);
            }
            cost += ship_type.price as u64 * count as u64;
            fleet.extend(std::iter::repeat_n(index, count.min(64) as usize));
        }
        if capitals > 1 {
            return Err(RuleError::CapitalLimit);
        }
        for (id, &count) in ships {
            let index = self.rules.type_index(id).expect("checked above");
            if count > self.rules.catalogue[index].limit {
                return Err(RuleError::TypeLimit(id.clone()));
            }
        }
        if cost > self.rules.credits as u64 {
            return Err(RuleError::OverBudget {
                cost: cost.min(u32::MAX as u64) as u32,
                credits: self.rules.credits,
            });
        }
        if fleet.is_empty() {
            return Err(bad("a fleet needs at least one ship"));
        }
        fleet.sort_by_key(|&t| (std::cmp::Reverse(self.rules.catalogue[t].shape.len()), t));
        let shapes: Vec<_> = fleet
            .iter()
            .map(|&t| &self.rules.catalogue[t].shape)
            .collect();
        if !crate::placement::fleet_fits(self.rules.board, &shapes, self.rules.ships_may_touch) {
            return Err(RuleError::FleetDoesNotFit);
        }
        Ok(fleet)
    }

    pub(super) fn buy(
        &mut self,
        seat: usize,
        ships: &BTreeMap<String, u32>,
    ) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Shop)?;
        let fleet = self.check_purchase(ships)?;
        let mut events = Vec::new();
        self.set_fleet(seat, fleet, &mut events);
        self.maybe_end_shop(&mut events);
        Ok(events)
    }

    pub(super) fn set_fleet(&mut self, seat: usize, fleet: Vec<usize>, events: &mut Vec<Event>) {
        events.push(Event::Bought {
            seat,
            ships: fleet.len() as u32,
        });
        self.seats[seat].fleet = fleet;
        self.seats[seat].bought = true;
    }

    /// the default fleet, or its largest prefix the credits pay for. On a
    /// custom field too small for it, the largest such prefix that fits: a seat
    /// gets this fleet without a fit check of its own (shop timeout, resigning)
    /// and must always be able to place it.
    pub(super) fn default_space_fleet(&self) -> Vec<usize> {
        let mut credits = self.rules.credits;
        let mut prefix = Vec::new();
        for id in SPACE_DEFAULT_FLEET {
            let index = self
                .rules
                .type_index(id)
                .expect("the default fleet uses catalogue ids");
            let price = self.rules.catalogue[index].price;
            if price > credits {
                break;
            }
            credits -= price;
            prefix.push(index);
        }
        while !prefix.is_empty() {
            let mut fleet = prefix.clone();
            fleet.sort_by_key(|&t| (std::cmp::Reverse(self.rules.catalogue[t].shape.len()), t));
            let shapes: Vec<_> = fleet
                .iter()
                .map(|&t| &self.rules.catalogue[t].shape)
                .collect();
            if crate::placement::fleet_fits(self.rules.board, &shapes, self.rules.ships_may_touch) {
                return fleet;
            }
            prefix.pop();
        }
        prefix
    }

    pub(super) fn maybe_end_shop(&mut self, events: &mut Vec<Event>) {
        if self.seats.iter().all(|s| s.bought) {
            self.phase = Phase::Placement;
            events.push(Event::PhaseChanged {
                phase: Phase::Placement,
            });
            // A seat that resigned in the shop places nothing itself: its
            // fleet is laid at random, so that placement never waits for it.
            for seat in 0..self.rules.seats {
                if self.seats[seat].eliminated && !self.seats[seat].ready {
                    let placed = self
                        .place_random(seat)
                        .expect("a fleet that passed the fit check always has a random layout");
                    events.extend(placed);
                }
            }
        }
    }
}
