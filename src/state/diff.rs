//! What changed between two states of a flight, by column and collection
//! name: the content of a change notification.

use super::flight::FlightState;

/// The names of the columns (lower-case SIS element names) and collections
/// (SIS group names) whose values differ between `old` and `new`.
pub fn changed_parts(old: &FlightState, new: &FlightState) -> Vec<&'static str> {
    let mut changed = new.fields.changed_columns(&old.fields);
    let collections: [(&'static str, bool); 10] = [
        ("GTDT", old.gates != new.gates),
        ("CKDT", old.counters != new.counters),
        ("CLDT", old.carousels != new.carousels),
        ("PSDT", old.stands != new.stands),
        ("CHDT", old.chutes != new.chutes),
        ("DELY", old.delays != new.delays),
        ("ABTM", old.bridges != new.bridges),
        ("CHOT", old.chocks != new.chocks),
        ("ROUT", old.route != new.route),
        ("ERUT", old.entire_route != new.entire_route),
    ];
    changed.extend(
        collections
            .into_iter()
            .filter(|(_, differ)| *differ)
            .map(|(name, _)| name),
    );
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Gate;

    #[test]
    fn names_columns_then_collections() {
        let old = FlightState::new(1);
        let mut new = FlightState::new(1);
        new.fields.reno = Some("B1234".into());
        new.gates.push(Gate::default());
        assert_eq!(changed_parts(&old, &new), vec!["reno", "GTDT"]);
        assert!(changed_parts(&new, &new).is_empty());
    }
}
