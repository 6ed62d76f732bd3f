//! The fleet a space opponent most plausibly bought (R-7.4: in space only the
//! number of ships is public), for the areas of `model.rs` to hunt.

use std::collections::BTreeMap;

use broadside_engine::{Rules, ShipAbility, RESERVE_TYPE};

/// A purchase: ship type id to count.
pub(crate) type Fleet = BTreeMap<String, u32>;

/// in space only the number of ships is public. The guess is the fleet
/// a seat most plausibly bought that explains all that is public: how many
/// ships it has afloat and in total, and the types already sunk.
///
/// The bots' own purchases come first: the default fleet, or the one with the
/// space station (whose reserve adds fighters later, so a count above it fits
/// it too). Any other fleet is found by a search of every purchase the shop
/// allows (`shop_search`), so that an unusual fleet, such as many small ships,
/// is not hunted for ships it cannot have. Only where nothing fits is the
/// default cut or padded with fighters to the count afloat.
pub(crate) fn guess_space_fleet(rules: &Rules, sunk: &[String], afloat: u32, total: u32) -> Fleet {
    let default = crate::default_purchase(rules);
    let station = crate::station_purchase(rules);
    let explained = std::iter::once(default.clone())
        .chain(station)
        .find_map(|purchase| afloat_fleet(rules, &purchase, sunk, afloat, total))
        .or_else(|| {
            shop_search(rules, &default, sunk, total)
                .and_then(|purchase| afloat_fleet(rules, &purchase, sunk, afloat, total))
        });
    if let Some(fleet) = explained {
        return fleet;
    }
    let mut list: Vec<String> = default
        .into_iter()
        .flat_map(|(id, n)| std::iter::repeat_n(id, n as usize))
        .collect();
    for id in sunk {
        if let Some(i) = list.iter().position(|t| t == id) {
            list.remove(i);
        }
    }
    // Remove the smallest first when the fleet is smaller than guessed.
    list.sort_by_key(|id| {
        rules
            .type_index(id)
            .map(|i| std::cmp::Reverse(rules.catalogue[i].shape.len()))
    });
    list.truncate(afloat as usize);
    while (list.len() as u32) < afloat {
        list.push(RESERVE_TYPE.to_string());
    }
    let mut fleet = Fleet::new();
    for id in list {
        *fleet.entry(id).or_insert(0) += 1;
    }
    fleet
}

/// What is left afloat of `purchase` if it explains the public counts: the
/// ships above the purchase are reserve fighters (only with a space station,
/// whole squadrons), and every sunk type must have been in the fleet.
fn afloat_fleet(
    rules: &Rules,
    purchase: &Fleet,
    sunk: &[String],
    afloat: u32,
    total: u32,
) -> Option<Fleet> {
    let reserve = total.checked_sub(purchase.values().sum())?;
    let mut fleet = purchase.clone();
    if reserve > 0 {
        if !purchase.keys().any(|id| carries_reserve(rules, id)) || !whole_squadrons(reserve) {
            return None;
        }
        *fleet.entry(RESERVE_TYPE.to_string()).or_insert(0) += reserve;
    }
    for id in sunk {
        let count = fleet.get_mut(id).filter(|n| **n > 0)?;
        *count -= 1;
    }
    fleet.retain(|_, n| *n > 0);
    (fleet.values().sum::<u32>() == afloat).then_some(fleet)
}

/// The reserve lands its fighters three at a time (R-7.9; fewer only on a
/// field with no room left, which the guess does not expect).
fn whole_squadrons(fighters: u32) -> bool {
    fighters % broadside_engine::RESERVE_FIGHTERS as u32 == 0
}

fn carries_reserve(rules: &Rules, id: &str) -> bool {
    rules
        .type_index(id)
        .is_some_and(|i| rules.catalogue[i].ability == Some(ShipAbility::Reserve))
}

/// The likeliest purchase (R-7.2: prices, limits, one capital ship, the
/// credits) that holds `total` ships with the reserve's fighters, and every
/// sunk type. Preferred, in order: no reserve fighters needed, the fewest
/// credits left unspent, the fewest ships different from the default fleet.
/// `None` if none fits, or if the catalogue is too large to search.
fn shop_search(rules: &Rules, default: &Fleet, sunk: &[String], total: u32) -> Option<Fleet> {
    struct Type {
        id: String,
        price: u32,
        limit: u32,
        capital: bool,
        reserve: bool,
        needed: u32,
        default: u32,
    }
    struct Search<'a> {
        types: &'a [Type],
        credits: u32,
        total: u32,
        counts: Vec<u32>,
        best: Option<((u32, u32, u32), Vec<u32>)>,
        budget: u32,
    }
    impl Search<'_> {
        fn visit(&mut self, i: usize, ships: u32, spent: u32, capital: bool) -> bool {
            if self.budget == 0 {
                return false;
            }
            self.budget -= 1;
            let Some(t) = self.types.get(i) else {
                self.leaf(ships, spent);
                return true;
            };
            let most = if t.capital && capital { 0 } else { t.limit };
            for n in 0..=most {
                let (ships, spent) = (ships + n, spent + n * t.price);
                if ships > self.total || spent > self.credits {
                    break;
                }
                self.counts[i] = n;
                if !self.visit(i + 1, ships, spent, capital || (t.capital && n > 0)) {
                    return false;
                }
            }
            self.counts[i] = 0;
            true
        }

        fn leaf(&mut self, ships: u32, spent: u32) {
            let reserve = self.total - ships;
            let types = self.types.iter().zip(&self.counts);
            if reserve > 0
                && !(whole_squadrons(reserve) && types.clone().any(|(t, &n)| t.reserve && n > 0))
            {
                return;
            }
            let fits = types.clone().all(|(t, &n)| {
                let landed = if t.id == RESERVE_TYPE { reserve } else { 0 };
                n + landed >= t.needed
            });
            if !fits {
                return;
            }
            let distance = types.map(|(t, &n)| n.abs_diff(t.default)).sum();
            let key = (reserve, self.credits - spent, distance);
            if self.best.as_ref().is_none_or(|(best, _)| key < *best) {
                self.best = Some((key, self.counts.clone()));
            }
        }
    }

    let types: Vec<Type> = rules
        .catalogue
        .iter()
        .filter(|t| t.price > 0 && t.limit > 0)
        .map(|t| Type {
            id: t.id.clone(),
            price: t.price,
            limit: t.limit,
            capital: t.capital,
            reserve: t.ability == Some(ShipAbility::Reserve),
            needed: sunk.iter().filter(|id| **id == t.id).count() as u32,
            default: default.get(&t.id).copied().unwrap_or(0),
        })
        .collect();
    let mut search = Search {
        types: &types,
        credits: rules.credits,
        total,
        counts: vec![0; types.len()],
        best: None,
        budget: SHOP_SEARCH_BUDGET,
    };
    if !search.visit(0, 0, 0, false) {
        return None;
    }
    let (_, counts) = search.best?;
    Some(
        types
            .iter()
            .zip(counts)
            .filter(|(_, n)| *n > 0)
            .map(|(t, n)| (t.id.clone(), n))
            .collect(),
    )
}

/// The most steps `shop_search` takes. The standard catalogue takes a few
/// thousand (docs/ai.md, "Space: the guess searches the shop"); a catalogue
/// too large to search within the bound gives no guess from the shop rather
/// than a slow move.
const SHOP_SEARCH_BUDGET: u32 = 200_000;
